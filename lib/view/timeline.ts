/**
 * The timeline's viewport: which span of time (epoch ms) is drawn across how many
 * pixels, zoom around a point, pan, and tick marks at round intervals.
 */

export interface Viewport {
  startMs: number;
  endMs: number;
}

/** Smallest span shown, ms: zooming further would only spread one millisecond. */
export const MIN_SPAN_MS = 5;

export function clampViewport(v: Viewport, bounds: Viewport): Viewport {
  const full = bounds.endMs - bounds.startMs;
  const margin = full * 0.05;
  let span = Math.max(MIN_SPAN_MS, Math.min(v.endMs - v.startMs, full + 2 * margin));
  if (!Number.isFinite(span)) span = full;
  let start = v.startMs;
  start = Math.max(bounds.startMs - margin, Math.min(start, bounds.endMs + margin - span));
  return { startMs: start, endMs: start + span };
}

/** Zooms by `factor` (<1 zooms in) keeping the time under `atFraction` (0..1) in place. */
export function zoomViewport(v: Viewport, factor: number, atFraction: number, bounds: Viewport): Viewport {
  const span = v.endMs - v.startMs;
  const at = v.startMs + span * atFraction;
  const next = Math.max(MIN_SPAN_MS, span * factor);
  return clampViewport({ startMs: at - next * atFraction, endMs: at - next * atFraction + next }, bounds);
}

export function panViewport(v: Viewport, deltaMs: number, bounds: Viewport): Viewport {
  return clampViewport({ startMs: v.startMs + deltaMs, endMs: v.endMs + deltaMs }, bounds);
}

/** A viewport that shows `t` (keeping the span), moving only when `t` is off screen. */
export function revealTime(v: Viewport, t: number, bounds: Viewport): Viewport {
  const span = v.endMs - v.startMs;
  if (t >= v.startMs + span * 0.02 && t <= v.endMs - span * 0.02) return v;
  return clampViewport({ startMs: t - span / 2, endMs: t + span / 2 }, bounds);
}

const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Tick times (epoch ms) at a round interval giving about one tick per `minPx` pixels. */
export function ticks(v: Viewport, widthPx: number, origin: number, minPx = 90): { step: number; times: number[] } {
  const span = v.endMs - v.startMs;
  const want = (span / Math.max(1, widthPx)) * minPx;
  const step = STEPS.find((s) => s >= want) ?? Math.ceil(want / 86_400_000) * 86_400_000;
  const times: number[] = [];
  const first = origin + Math.ceil((v.startMs - origin) / step) * step;
  for (let t = first; t <= v.endMs && times.length < 200; t += step) times.push(t);
  return { step, times };
}

/** Index of the first element of the ascending `arr` that is >= x. */
export function lowerBound(arr: ArrayLike<number>, x: number, order?: ArrayLike<number>): number {
  let lo = 0;
  let hi = order ? order.length : arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const v = order ? arr[order[mid]] : arr[mid];
    if (v < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface MarkBucket {
  /** where to draw it, px: the middle of the marks it holds */
  x: number;
  /** findings in it (a seq with two findings counts two) */
  count: number;
  /** marks (seqs) in it */
  marks: number;
}

/**
 * Finding marks aggregated when dense: marks closer than `gapPx` to the first of their
 * bucket share one bucket, drawn as one mark with its count, so a run with 100 findings in
 * one burst shows "100" instead of 100 overprinted triangles. `marks` need not be sorted.
 */
export function bucketMarks(marks: ReadonlyArray<{ x: number; count: number }>, gapPx = 14): MarkBucket[] {
  const sorted = [...marks].filter((m) => Number.isFinite(m.x)).sort((a, b) => a.x - b.x);
  const out: MarkBucket[] = [];
  let first = 0;
  let last = 0;
  let cur: MarkBucket | null = null;
  for (const m of sorted) {
    if (cur && m.x - first < gapPx) {
      cur.count += m.count;
      cur.marks++;
      last = m.x;
      cur.x = (first + last) / 2;
      continue;
    }
    first = last = m.x;
    cur = { x: m.x, count: m.count, marks: 1 };
    out.push(cur);
  }
  return out;
}
