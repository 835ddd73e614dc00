"use client";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { EVENT_KINDS, type RunIndex } from "@/lib/graph";
import { formatDuration, formatOffset } from "@/lib/view/format";
import {
  assignLanes,
  bucketMarks,
  clampViewport,
  fitLabel,
  lowerBound,
  panViewport,
  revealTime,
  ticks,
  TICK_STEPS,
  zoomViewport,
  type Viewport,
} from "@/lib/view/timeline";
import { idleWarp, NO_WARP, warpedTicks, warpRunIndex, type TimeWarp } from "@/lib/view/time-warp";
import { bucketOf, buildTimelineLod, COVERED, FAILED, levelFor, WRITE, type TimelineLod } from "@/lib/view/timeline-lod";
import { useIsDark } from "@/components/theme/theme-toggle";
import { useRunStore, useRunStoreApi } from "@/components/run/run-store";
import { useTimesRecorded } from "@/components/run/times-recorded";

const AXIS = 20;
const LANES = [
  { id: "steps", label: "steps", h: 22 },
  { id: "model", label: "model", h: 16 },
  { id: "tool", label: "tools", h: 16 },
  { id: "events", label: "events", h: 24 },
  { id: "findings", label: "findings", h: 14 },
  { id: "notes", label: "notes", h: 12 },
] as const;
const NO_NOTES: ReadonlyMap<number, number> = new Map();
const LABEL_W = 64;
const GAP = 4;
/** Height of each sub-lane when a group has several (nested steps, overlapping calls). */
const SUB_H = [16, 10, 10];

/** Where each lane group and its sub-lanes sit: `sub` lanes of `subH` px from `top`. */
interface LaneLayout {
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
function layoutLanes(index: RunIndex): LaneLayout {
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
function lodOf(index: RunIndex, L: LaneLayout): TimelineLod {
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
const LOD_PER_PX = 2;

interface Colors {
  fg: string;
  muted: string;
  border: string;
  panel: string;
  bad: string;
  warn: string;
  selected: string;
  accent: string;
  kind: string[];
}

function readColors(): Colors {
  const cs = getComputedStyle(document.documentElement);
  const v = (name: string) => cs.getPropertyValue(name).trim() || "#888";
  return {
    fg: v("--fg"),
    muted: v("--muted"),
    border: v("--border"),
    panel: v("--panel-2"),
    bad: v("--bad"),
    warn: v("--warn"),
    selected: v("--selected-border"),
    accent: v("--accent"),
    kind: EVENT_KINDS.map((k) => v(`--k-${k}`)),
  };
}

/**
 * Steps, model calls, tool calls and events on a time axis, drawn on a canvas: each frame
 * visits only what is in view (binary search on time) and at most one mark per pixel and
 * lane, so 100,000 events draw in a few ms. Wheel zooms, drag pans, click selects.
 * The viewport lives in a ref and is drawn directly; React only holds the selection.
 */
export function Timeline({
  index: recorded,
  findings,
  notes = NO_NOTES,
}: {
  index: RunIndex;
  findings: ReadonlyMap<number, number>;
  /** reviewers' notes per seq, marked in their own lane */
  notes?: ReadonlyMap<number, number>;
}) {
  const api = useRunStoreApi();
  const selectedSeq = useRunStore((s) => s.selectedSeq);
  const dark = useIsDark();
  const timed = useTimesRecorded();
  // long idle waits drawn short (lib/view/time-warp.ts): everything below draws on `index`,
  // the run on the warped axis; labels read the recorded times
  const warp = useMemo(() => (timed ? idleWarp(recorded.summary.tsMs, recorded.byTime) : NO_WARP), [recorded, timed]);
  const index = useMemo(() => warpRunIndex(recorded, warp), [recorded, warp]);
  const warpRef = useRef(warp);
  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const bounds = useRef<Viewport>({ startMs: index.startMs, endMs: index.endMs });
  const view = useRef<Viewport>({ startMs: index.startMs, endMs: index.endMs });
  const colors = useRef<Colors | null>(null);
  const frame = useRef(0);
  const [hover, setHover] = useState<{ x: number; text: string } | null>(null);
  const findingRows = useRef<Array<{ row: number; count: number }>>([]);
  const noteRows = useRef<number[]>([]);
  const selectedRef = useRef<number>(-1);

  const indexRef = useRef(index);
  const lanes = useMemo(() => layoutLanes(index), [index]);
  const lanesRef = useRef(lanes);
  const lod = useMemo(() => lodOf(index, lanes), [index, lanes]);
  const lodRef = useRef(lod);
  const paintRef = useRef<() => void>(() => {});

  useEffect(() => {
    const rows: Array<{ row: number; count: number }> = [];
    for (const [seq, count] of findings) {
      const r = index.rowOfSeq(seq);
      if (r >= 0) rows.push({ row: r, count });
    }
    findingRows.current = rows;
    const marked: number[] = [];
    for (const seq of notes.keys()) {
      const r = index.rowOfSeq(seq);
      if (r >= 0) marked.push(r);
    }
    noteRows.current = marked;
  }, [findings, notes, index]);

  // draw is stable and paints from refs on the next frame, so handlers installed once stay correct
  const draw = useCallback(() => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => paintRef.current());
  }, []);

  const paint = () => {
    const index = indexRef.current;
    const L = lanesRef.current;
    const c = canvas.current;
    if (!c) return;
    const ctx = c.getContext("2d");
    if (!ctx) return;
    const dpr = window.devicePixelRatio || 1;
    const W = c.clientWidth;
    const H = c.clientHeight;
    if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) {
      c.width = Math.round(W * dpr);
      c.height = Math.round(H * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const col = (colors.current ??= readColors());
    const v = view.current;
    const plotW = Math.max(1, W - LABEL_W);
    const span = v.endMs - v.startMs;
    const xOf = (t: number) => LABEL_W + ((t - v.startMs) / span) * plotW;
    const s = index.summary;
    const lod = lodRef.current;
    const msPerPx = span / plotW;
    // spans of one lane run together into one bar per run of equal flags
    const lodSpans = (lane: number, level: number, y: number, h: number, color: (flags: number) => string) => {
      const Lv = lod.levels[level];
      const flags = Lv.spans[lane];
      const b0 = bucketOf(lod, level, v.startMs);
      const b1 = bucketOf(lod, level, v.endMs);
      for (let b = b0; b <= b1;) {
        const f = flags[b];
        let e = b + 1;
        while (e <= b1 && flags[e] === f) e++;
        if (f & COVERED) {
          const x0 = xOf(lod.startMs + b * Lv.bucketMs);
          ctx.fillStyle = color(f);
          ctx.fillRect(x0, y, Math.max(1, xOf(lod.startMs + e * Lv.bucketMs) - x0), h);
        }
        b = e;
      }
    };
    const spanLevel = (items: number) => {
      const total = Math.max(1, index.endMs - index.startMs);
      return (items * Math.min(1, span / total)) / plotW > LOD_PER_PX ? Math.max(0, levelFor(lod, msPerPx)) : -1;
    };

    // axis
    ctx.font = "11px ui-sans-serif, system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const w = warpRef.current;
    const origin = w.toReal(index.startMs);
    const tk = timed
      ? warpedTicks(w, v.startMs, v.endMs, plotW, origin, TICK_STEPS).ticks
      : ticks(v, plotW, index.startMs).times.map((t) => ({ at: t, t }));
    for (const { at, t } of tk) {
      const x = Math.round(xOf(at)) + 0.5;
      ctx.fillStyle = col.border;
      ctx.fillRect(x, AXIS - 4, 1, H - AXIS);
      ctx.fillStyle = col.muted;
      // without recorded times, event n sits at n ms: the axis counts events
      ctx.fillText(timed ? formatOffset(t - origin) : `#${Math.round(t - index.startMs)}`, x + 3, AXIS / 2);
    }
    // each idle wait drawn short: a hatched band across the lanes, its real length on the axis
    for (const g of w.gaps) {
      const x0 = xOf(w.toDisplay(g.from));
      const x1 = xOf(w.toDisplay(g.to));
      if (x1 < LABEL_W || x0 > W) continue;
      ctx.fillStyle = col.panel;
      ctx.fillRect(x0, AXIS - 4, Math.max(2, x1 - x0), H - AXIS + 4);
      ctx.fillStyle = col.border;
      for (let y = AXIS; y < H; y += 6) ctx.fillRect(x0 + ((y / 6) % 2 === 0 ? 0 : (x1 - x0) / 2), y, 1, 3);
      ctx.fillStyle = col.muted;
      const label = `⋯ ${formatDuration(g.to - g.from)} idle`;
      const tw = ctx.measureText(label).width;
      const lx = Math.max(LABEL_W + 2, (x0 + x1) / 2 - tw / 2);
      // over the tick labels it would collide with: the wait is what the reader needs here
      ctx.fillStyle = col.panel;
      ctx.fillRect(lx - 4, 0, tw + 8, AXIS - 4);
      ctx.fillStyle = col.muted;
      ctx.fillText(label, lx, AXIS / 2);
    }
    LANES.forEach((lane, i) => {
      ctx.fillStyle = col.muted;
      ctx.fillText(lane.label, 6, L.top[i] + Math.min(lane.h, L.subH[i] * L.sub[i]) / 2);
    });
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, plotW, H);
    ctx.clip();

    // steps: alternating bars, a nested step one sub-lane below its parent, names only
    // where they fit inside their bar (truncated with "…" or left out)
    {
      const h = L.subH[0];
      const lastPx = new Map<number, number>();
      let labels = 0;
      let overflow = 0;
      const level = spanLevel(index.steps.length);
      if (level >= 0) {
        // more steps than pixels: their coverage, failed where one failed; no labels fit anyway
        ctx.globalAlpha = 0.35;
        for (let sub = 0; sub < L.sub[0]; sub++) lodSpans(sub, level, L.top[0] + sub * h, h - 1, (f) => (f & FAILED ? col.bad : col.muted));
        ctx.globalAlpha = 1;
      }
      for (const st of level >= 0 ? [] : index.steps) {
        if (st.endMs < v.startMs || st.startMs > v.endMs) continue;
        const sub = L.stepLane[st.ordinal];
        const y = L.top[0] + sub * h;
        const x0 = xOf(st.startMs);
        const x1 = Math.max(x0 + 1, xOf(st.endMs));
        if (x1 - x0 < 2 && Math.floor(x0) === lastPx.get(sub)) continue;
        lastPx.set(sub, Math.floor(x0));
        ctx.fillStyle = st.failures > 0 ? col.bad : st.ordinal % 2 ? col.kind[1] : col.muted;
        ctx.globalAlpha = 0.35;
        ctx.fillRect(x0, y, x1 - x0, h - 1);
        ctx.globalAlpha = 1;
        // the visible part of the bar is what the label may use
        const left = Math.max(x0, LABEL_W);
        const right = Math.min(x1, W);
        const text = fitLabel(st.name ?? st.id, right - left, (t) => ctx.measureText(t).width);
        if (text !== null) {
          labels++;
          if (ctx.measureText(text).width + 4 > right - left) overflow++;
          ctx.fillStyle = col.fg;
          ctx.fillText(text, left + 4, y + h / 2);
        }
      }
      // for tests and tools that cannot read a canvas
      c.dataset.stepLanes = String(L.sub[0]);
      c.dataset.stepLabels = String(labels);
      c.dataset.labelOverflow = String(overflow);
    }
    // calls: overlapping calls (parallel tools, a call inside a call) in sub-lanes
    {
      const lastPx = new Map<number, number>();
      const level = spanLevel(index.calls.length);
      if (level >= 0)
        for (const li of [1, 2]) {
          const h = L.subH[li];
          const pad = L.sub[li] === 1 ? 2 : 1;
          const first = li === 1 ? L.sub[0] : L.sub[0] + L.sub[1];
          for (let sub = 0; sub < L.sub[li]; sub++)
            lodSpans(first + sub, level, L.top[li] + sub * h + pad, h - 2 * pad, (f) =>
              f & FAILED ? col.bad : col.kind[EVENT_KINDS.indexOf(li === 1 ? "model" : f & WRITE ? "tool-write" : "tool-read")],
            );
        }
      (level >= 0 ? [] : index.calls).forEach((call, ci) => {
        if (call.endMs < v.startMs || call.startMs > v.endMs) return;
        const li = call.lane === "model" ? 1 : 2;
        const sub = L.callLane[ci];
        const key = li * 100_000 + sub;
        const x0 = xOf(call.startMs);
        const x1 = Math.max(x0 + 2, xOf(call.endMs));
        if (x1 - x0 < 3 && Math.floor(x0) === lastPx.get(key) && !call.failed) return;
        lastPx.set(key, Math.floor(x0));
        ctx.fillStyle = call.failed
          ? col.bad
          : col.kind[EVENT_KINDS.indexOf(call.lane === "model" ? "model" : call.write ? "tool-write" : "tool-read")];
        const h = L.subH[li];
        const pad = L.sub[li] === 1 ? 2 : 1;
        ctx.fillRect(x0, L.top[li] + sub * h + pad, x1 - x0, h - 2 * pad);
      });
      c.dataset.modelLanes = String(L.sub[1]);
      c.dataset.toolLanes = String(L.sub[2]);
    }
    // events: one tick per pixel per kind, failures always drawn. A bit per kind for the
    // current pixel column: runs that interleave kinds would otherwise draw every event.
    {
      const y = L.top[3];
      const h = LANES[3].h;
      const from = lowerBound(s.tsMs, v.startMs, index.byTime);
      const to = lowerBound(s.tsMs, v.endMs, index.byTime);
      const level = (to - from) / plotW > LOD_PER_PX ? levelFor(lod, msPerPx) : -1;
      let lastPx = -1;
      let drawn = 0;
      let failedDrawn = false;
      const mark = (x: number, kinds: number, failed: boolean) => {
        if (x !== lastPx) {
          lastPx = x;
          drawn = 0;
          failedDrawn = false;
        }
        if (failed && !failedDrawn) {
          failedDrawn = true;
          ctx.fillStyle = col.bad;
          ctx.fillRect(x, y, 2, h);
        }
        const fresh = kinds & ~drawn;
        if (fresh === 0) return;
        drawn |= fresh;
        for (let k = 0; k < col.kind.length; k++) {
          if (!(fresh & (1 << k))) continue;
          ctx.fillStyle = col.kind[k];
          ctx.fillRect(x, y + 4, 2, h - 8);
        }
      };
      c.dataset.eventsLod = String(level);
      if (level >= 0) {
        // a bucket per pixel at most, whatever the run's length
        const Lv = lod.levels[level];
        const b1 = bucketOf(lod, level, v.endMs);
        for (let b = bucketOf(lod, level, v.startMs); b <= b1; b++)
          if (Lv.count[b] > 0) mark(Math.floor(xOf(lod.startMs + b * Lv.bucketMs)), Lv.kinds[b], Lv.failed[b] === 1);
      } else
        for (let i = from; i < index.n; i++) {
          const row = index.byTime[i];
          const t = s.tsMs[row];
          if (t > v.endMs) break;
          // a failed event is drawn red, not in its kind's colour
          const failed = index.failed[row] === 1;
          mark(Math.floor(xOf(t)), failed ? 0 : 1 << index.kindOfRow[row], failed);
        }
    }
    // findings: one mark per finding, aggregated with its count where marks would overprint
    {
      const y = L.top[4];
      const marks: Array<{ x: number; count: number }> = [];
      for (const f of findingRows.current) {
        const x = xOf(s.tsMs[f.row]);
        if (x >= LABEL_W - 6 && x <= W + 6) marks.push({ x, count: f.count });
      }
      const buckets = bucketMarks(marks);
      // what the lane shows, for tests and tools that cannot read a canvas
      c.dataset.findingMarks = String(buckets.length);
      c.dataset.findingCount = String(buckets.reduce((n, b) => n + b.count, 0));
      for (const b of buckets) {
        ctx.fillStyle = col.bad;
        if (b.marks === 1 && b.count === 1) {
          ctx.beginPath();
          ctx.moveTo(b.x, y);
          ctx.lineTo(b.x - 5, y + 10);
          ctx.lineTo(b.x + 5, y + 10);
          ctx.fill();
          continue;
        }
        const text = b.count.toLocaleString("en-US");
        const w = Math.max(14, ctx.measureText(text).width + 6);
        ctx.fillRect(b.x - w / 2, y - 1, w, 13);
        ctx.fillStyle = col.panel;
        ctx.textAlign = "center";
        ctx.fillText(text, b.x, y + 5.5);
        ctx.textAlign = "left";
      }
    }
    // reviewers' notes: a square per noted event
    {
      const y = L.top[5];
      ctx.fillStyle = col.accent;
      for (const row of noteRows.current) {
        const x = xOf(s.tsMs[row]);
        if (x < LABEL_W - 6 || x > W + 6) continue;
        ctx.fillRect(Math.round(x) - 4, y + 1, 8, 8);
      }
    }
    // selection
    const sel = selectedRef.current;
    if (sel >= 0) {
      const x = Math.round(xOf(s.tsMs[sel])) + 0.5;
      ctx.fillStyle = col.selected;
      ctx.fillRect(x - 1, AXIS, 3, H - AXIS);
    }
    ctx.restore();
    if (!api.getState().timelineReady) api.getState().setTimelineReady(true);
  };

  // the latest render's values, in place before the effects below draw
  useLayoutEffect(() => {
    indexRef.current = index;
    warpRef.current = warp;
    lanesRef.current = lanes;
    lodRef.current = lod;
    selectedRef.current = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
    paintRef.current = paint;
  });

  // the data changed (a live run grew): extend the bounds, keep the user's zoom
  useEffect(() => {
    const old = bounds.current;
    bounds.current = { startMs: index.startMs, endMs: index.endMs };
    const wasFull = view.current.startMs <= old.startMs && view.current.endMs >= old.endMs;
    view.current = wasFull ? { startMs: index.startMs, endMs: index.endMs } : clampViewport(view.current, bounds.current);
    draw();
  }, [index, draw]);

  // keep the selection visible
  useEffect(() => {
    const row = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
    if (row >= 0) view.current = revealTime(view.current, index.summary.tsMs[row], bounds.current);
    draw();
  }, [selectedSeq, index, draw]);

  useEffect(() => {
    colors.current = null;
    draw();
  }, [dark, findings, notes, draw]);

  useEffect(() => {
    const el = box.current;
    const c = canvas.current;
    if (!el || !c) return;
    const ro = new ResizeObserver(() => draw());
    ro.observe(el);
    // wheel must be non-passive to keep the page from scrolling
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      const frac = Math.min(1, Math.max(0, (e.clientX - rect.left - LABEL_W) / Math.max(1, rect.width - LABEL_W)));
      const v = view.current;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = (e.shiftKey ? e.deltaY : e.deltaX) / Math.max(1, rect.width - LABEL_W);
        view.current = panViewport(v, d * (v.endMs - v.startMs), bounds.current);
      } else {
        view.current = zoomViewport(v, Math.exp(e.deltaY * 0.002), frac, bounds.current);
      }
      draw();
    };
    c.addEventListener("wheel", onWheel, { passive: false });
    return () => {
      ro.disconnect();
      c.removeEventListener("wheel", onWheel);
      cancelAnimationFrame(frame.current);
    };
  }, [draw]);

  const drag = useRef<{ x: number; start: Viewport; moved: boolean } | null>(null);

  const pick = (clientX: number, clientY: number): number => {
    const c = canvas.current!;
    const rect = c.getBoundingClientRect();
    const x = clientX - rect.left;
    const y = clientY - rect.top;
    const v = view.current;
    const plotW = Math.max(1, rect.width - LABEL_W);
    const t = v.startMs + ((x - LABEL_W) / plotW) * (v.endMs - v.startMs);
    const msPerPx = (v.endMs - v.startMs) / plotW;
    const s = index.summary;
    // a step or call bar under the pointer (in its sub-lane) selects its first event
    const L = lanes;
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
  };

  const zoomBy = (f: number) => {
    view.current = zoomViewport(view.current, f, 0.5, bounds.current);
    draw();
  };

  return (
    <div className="timeline" ref={box} data-selected-seq={selectedSeq ?? undefined}>
      <canvas
        ref={canvas}
        style={{ minHeight: lanes.height }}
        role="img"
        data-idle-gaps={warp.gaps.length}
        aria-label={`Timeline of ${index.n.toLocaleString("en-US")} events ${timed ? `over ${formatDuration(recorded.endMs - recorded.startMs)}` : "in recorded order (the source has no times)"}${warp.gaps.length > 0 ? ` (${idleText(warp)} not drawn to scale)` : ""}${notes.size > 0 ? `, ${notes.size} with reviewers' notes` : ""}: wheel to zoom, drag to pan, click to select`}
        onPointerDown={(e) => {
          (e.target as HTMLElement).setPointerCapture(e.pointerId);
          drag.current = { x: e.clientX, start: view.current, moved: false };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          const c = canvas.current!;
          if (d) {
            const dx = e.clientX - d.x;
            if (Math.abs(dx) > 3) d.moved = true;
            if (d.moved) {
              const plotW = Math.max(1, c.clientWidth - LABEL_W);
              view.current = panViewport(d.start, (-dx / plotW) * (d.start.endMs - d.start.startMs), bounds.current);
              draw();
            }
            return;
          }
          const row = pick(e.clientX, e.clientY);
          const rect = c.getBoundingClientRect();
          if (row >= 0) {
            const s = recorded.summary;
            setHover({
              x: Math.min(e.clientX - rect.left + 10, (box.current?.clientWidth ?? 400) - 260),
              text: `#${s.seq[row]} ${s.type[row]}${s.name[row] ? ` ${s.name[row]}` : ""}${timed ? ` ${formatOffset(s.tsMs[row] - recorded.startMs)}` : ""}`,
            });
          } else setHover(null);
        }}
        onPointerLeave={() => setHover(null)}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = null;
          if (d && !d.moved) {
            const row = pick(e.clientX, e.clientY);
            if (row >= 0) api.getState().select(index.summary.seq[row]);
          }
        }}
      />
      {hover ? (
        <div
          style={{
            position: "absolute",
            left: hover.x,
            bottom: 4,
            background: "var(--bg)",
            border: "1px solid var(--border)",
            borderRadius: 4,
            padding: "1px 6px",
            fontSize: 11,
            pointerEvents: "none",
            whiteSpace: "nowrap",
          }}
        >
          {hover.text}
        </div>
      ) : null}
      <div className="timeline-tools">
        <button type="button" aria-label="Zoom in" onClick={() => zoomBy(0.5)}>
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => zoomBy(2)}>
          −
        </button>
        <button
          type="button"
          onClick={() => {
            view.current = { ...bounds.current };
            draw();
          }}
        >
          Fit
        </button>
      </div>
    </div>
  );
}

/** The idle waits drawn short, for the canvas's label: "10 h idle" or "2 idle waits (14 h)". */
function idleText(w: TimeWarp): string {
  const total = w.gaps.reduce((a, g) => a + g.to - g.from, 0);
  return w.gaps.length === 1 ? `${formatDuration(total)} idle` : `${w.gaps.length} idle waits (${formatDuration(total)})`;
}
