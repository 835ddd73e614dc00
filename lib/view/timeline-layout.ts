/**
 * The timeline's layout, without React or a canvas: where each lane group and its sub-lanes
 * sit (nested steps and overlapping calls get sub-lanes), the level-of-detail index built on
 * those lanes, what a point of the canvas picks, and the idle waits' label. The component
 * (components/timeline) draws and handles input on top of it.
 */
import type { RunIndex } from "../graph";
import { formatDuration } from "./format";
import type { TimeWarp } from "./time-warp";
import { assignLanes, lowerBound, type Viewport } from "./timeline";
import { buildTimelineLod, type TimelineLod } from "./timeline-lod";

export const AXIS = 20;
export const LANES = [
  { id: "steps", label: "steps", h: 22 },
  { id: "model", label: "model", h: 16 },
  { id: "tool", label: "tools", h: 16 },
  { id: "events", label: "events", h: 24 },
  { id: "findings", label: "findings", h: 14 },
  { id: "notes", label: "notes", h: 12 },
] as const;
export const LABEL_W = 64;
const GAP = 4;
/** Height of each sub-lane when a group has several (nested steps, overlapping calls). */
const SUB_H = [16, 10, 10];

/** Where each lane group and its sub-lanes sit: `sub` lanes of `subH` px from `top`. */
export interface LaneLayout {
  top: number[];
  subH: number[];
  sub: number[];
  height: number;
  stepLane: Int32Array;
  callLane: Int32Array;
}

/**
 * Nested steps and overlapping calls each get a sub-lane of their group (assignLanes), so
 * no two bars share a lane where they overlap in time.
 */
export function layoutLanes(index: RunIndex): LaneLayout {
  const steps = assignLanes(index.steps);
  const callLane = new Int32Array(index.calls.length);
  const sub = LANES.map((_, g) => (g === 0 ? Math.max(1, steps.lanes) : 1));
  for (const [g, kind] of [
    [1, "model"],
    [2, "tool"],
  ] as const) {
    const ids: number[] = [];
    index.calls.forEach((c, i) => {
      if (c.lane === kind) ids.push(i);
    });
    const r = assignLanes(ids.map((i) => index.calls[i]));
    ids.forEach((id, k) => (callLane[id] = r.lane[k]));
    sub[g] = Math.max(1, r.lanes);
  }
  const subH = LANES.map((l, g) => (sub[g] === 1 ? l.h : SUB_H[g]));
  const top: number[] = [];
  let y = AXIS + 6;
  LANES.forEach((_, g) => {
    top.push(y);
    y += sub[g] * subH[g] + GAP;
  });
  return { top, subH, sub, height: y + 22, stepLane: steps.lane, callLane };
}

/**
 * The level-of-detail index of the run (lib/view/timeline-lod.ts): span lanes are the step
 * sub-lanes, then the model call sub-lanes, then the tool call ones.
 */
export function lodOf(index: RunIndex, L: LaneLayout): TimelineLod {
  const spans = [
    ...index.steps.map((st) => ({ startMs: st.startMs, endMs: st.endMs, lane: L.stepLane[st.ordinal], failed: st.failures > 0 })),
    ...index.calls.map((c, i) => ({
      startMs: c.startMs,
      endMs: c.endMs,
      lane: (c.lane === "model" ? L.sub[0] : L.sub[0] + L.sub[1]) + L.callLane[i],
      failed: c.failed,
      write: c.write,
    })),
  ];
  const ev = { n: index.n, tsMs: index.summary.tsMs, kindOfRow: index.kindOfRow, failed: index.failed };
  return buildTimelineLod(ev, spans, L.sub[0] + L.sub[1] + L.sub[2], index.startMs, index.endMs);
}

/** More marks than this many per pixel in view: draw from the LOD index instead of one by one. */
export const LOD_PER_PX = 2;

/**
 * The row under a point of the canvas (x, y in CSS pixels from its top left, `width` its
 * width) in viewport `v`: a step or call bar under the pointer (in its sub-lane) selects its
 * first event, else the event nearest in time within 8 px; -1 when none.
 */
export function pickRow(index: RunIndex, L: LaneLayout, v: Viewport, x: number, y: number, width: number): number {
  const plotW = Math.max(1, width - LABEL_W);
  const t = v.startMs + ((x - LABEL_W) / plotW) * (v.endMs - v.startMs);
  const msPerPx = (v.endMs - v.startMs) / plotW;
  const s = index.summary;
  // a step or call bar under the pointer (in its sub-lane) selects its first event
  const subAt = (g: number) => Math.floor((y - L.top[g]) / L.subH[g]);
  if (y >= L.top[0] && y < L.top[1]) {
    const sub = subAt(0);
    const st = index.steps.find((st) => L.stepLane[st.ordinal] === sub && st.startMs <= t + msPerPx && st.endMs >= t - msPerPx);
    if (st) return st.rows[0];
  }
  if (y >= L.top[1] && y < L.top[3]) {
    const g = y < L.top[2] ? 1 : 2;
    const lane = g === 1 ? "model" : "tool";
    const sub = subAt(g);
    const ci = index.calls.findIndex(
      (c, i) => c.lane === lane && L.callLane[i] === sub && c.startMs <= t + 2 * msPerPx && c.endMs >= t - 2 * msPerPx,
    );
    if (ci >= 0) return index.calls[ci].startRow;
  }
  // otherwise the event nearest in time
  const i = lowerBound(s.tsMs, t, index.byTime);
  let best = -1;
  let bestD = Infinity;
  for (const j of [i - 1, i]) {
    if (j < 0 || j >= index.n) continue;
    const d = Math.abs(s.tsMs[index.byTime[j]] - t);
    if (d < bestD) {
      bestD = d;
      best = index.byTime[j];
    }
  }
  return bestD <= 8 * msPerPx ? best : -1;
}

/** The idle waits drawn short, for the canvas's label: "10 h idle" or "2 idle waits (14 h)". */
export function idleText(w: TimeWarp): string {
  const total = w.gaps.reduce((a, g) => a + g.to - g.from, 0);
  return w.gaps.length === 1 ? `${formatDuration(total)} idle` : `${w.gaps.length} idle waits (${formatDuration(total)})`;
}
