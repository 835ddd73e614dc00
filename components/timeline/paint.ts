/**
 * Paints the timeline on its canvas from what it is given: the axis (idle waits hatched),
 * the lanes' bars and marks, findings, notes and the selection. Each paint visits only what
 * is in view (binary search on time) and at most one mark per pixel and lane, or the
 * level-of-detail index when zoomed out. Sets data-* attributes on the canvas for tests and
 * tools that cannot read a canvas.
 */
import { EVENT_KINDS, type RunIndex } from "@/lib/graph";
import { formatDuration, formatOffset } from "@/lib/view/format";
import { bucketMarks, fitLabel, lowerBound, ticks, TICK_STEPS, type Viewport } from "@/lib/view/timeline";
import { AXIS, LABEL_W, LANES, LOD_PER_PX, type LaneLayout } from "@/lib/view/timeline-layout";
import { bucketOf, COVERED, FAILED, levelFor, WRITE, type TimelineLod } from "@/lib/view/timeline-lod";
import { warpedTicks, type TimeWarp } from "@/lib/view/time-warp";

export interface Colors {
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

export function readColors(): Colors {
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

export interface PaintInput {
  /** the run in display time (idle waits drawn short) */
  index: RunIndex;
  lanes: LaneLayout;
  lod: TimelineLod;
  view: Viewport;
  warp: TimeWarp;
  /** the source recorded times (else event n sits at n ms and the axis counts events) */
  timed: boolean;
  colors: Colors;
  findingRows: ReadonlyArray<{ row: number; count: number }>;
  noteRows: readonly number[];
  /** the selected row, or -1 */
  selectedRow: number;
}

/** Paints `p` on `c`; false when the canvas has no 2D context. */
export function paintTimeline(c: HTMLCanvasElement, p: PaintInput): boolean {
  const { index, lanes: L, lod, view: v, warp: w, timed, colors: col, findingRows, noteRows, selectedRow: sel } = p;
  const ctx = c.getContext("2d");
  if (!ctx) return false;
  const dpr = window.devicePixelRatio || 1;
  const W = c.clientWidth;
  const H = c.clientHeight;
  if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) {
    c.width = Math.round(W * dpr);
    c.height = Math.round(H * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const plotW = Math.max(1, W - LABEL_W);
  const span = v.endMs - v.startMs;
  const xOf = (t: number) => LABEL_W + ((t - v.startMs) / span) * plotW;
  const s = index.summary;
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
    for (const f of findingRows) {
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
    for (const row of noteRows) {
      const x = xOf(s.tsMs[row]);
      if (x < LABEL_W - 6 || x > W + 6) continue;
      ctx.fillRect(Math.round(x) - 4, y + 1, 8, 8);
    }
  }
  // selection
  if (sel >= 0) {
    const x = Math.round(xOf(s.tsMs[sel])) + 0.5;
    ctx.fillStyle = col.selected;
    ctx.fillRect(x - 1, AXIS, 3, H - AXIS);
  }
  ctx.restore();
  return true;
}
