/**
 * The timeline's viewport: which span of time (epoch ms) is drawn across how many
 * pixels, zoom around a point, pan, and tick marks at round intervals.
 */

export interface Viewport {
  startMs: number;
  endMs: number;
}

/** Smallest span shown, ms: zooming further would only spread one millisecond. */
const MIN_SPAN_MS = 5;

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

export const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Tick times (epoch ms) at a round interval giving about one tick per `minPx` pixels. */
export function ticks(v: Viewport, widthPx: number, origin: number, minPx = 90): { step: number; times: number[] } {
  const span = v.endMs - v.startMs;
  const want = (span / Math.max(1, widthPx)) * minPx;
  const step = TICK_STEPS.find((s) => s >= want) ?? Math.ceil(want / 86_400_000) * 86_400_000;
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

interface MarkBucket {
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

export interface Span {
  startMs: number;
  endMs: number;
}

/**
 * Lanes for spans that may nest or overlap (a step inside a step, parallel tool calls):
 * each span gets the lowest lane free at its start, outer spans (earlier start, then
 * longer) first, so a nested step sits one lane below the step that holds it and no two
 * spans in one lane overlap. Spans are half-open; a span with no duration still occupies
 * its instant, so two at the same time get two lanes. Returns the lane of each span in
 * input order and the number of lanes.
 */
export function assignLanes(spans: ReadonlyArray<Span>): { lane: Int32Array; lanes: number } {
  const n = spans.length;
  const lane = new Int32Array(n);
  const end = (i: number) => Math.max(spans[i].endMs, spans[i].startMs);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => spans[a].startMs - spans[b].startMs || end(b) - end(a) || a - b);
  // busy lanes by their end (lanes that end there first, zero-length ones after), free lanes by their number: O(n log n) for any nesting depth
  const busy = new MinHeap<[number, number, number]>((x, y) => x[0] - y[0] || x[2] - y[2] || x[1] - y[1]);
  const free = new MinHeap<number>((x, y) => x - y);
  let lanes = 0;
  for (const i of order) {
    const s = spans[i].startMs;
    while (busy.size > 0) {
      const top = busy.peek()!;
      // a zero-length span keeps its lane through its own instant
      if (top[0] > s || (top[0] === s && top[2] === 1)) break;
      busy.pop();
      free.push(top[1]);
    }
    const l = free.size > 0 ? free.pop()! : lanes++;
    lane[i] = l;
    const e = end(i);
    busy.push([e, l, e === s ? 1 : 0]);
  }
  return { lane, lanes };
}

class MinHeap<T> {
  private a: T[] = [];
  constructor(private less: (x: T, y: T) => number) {}
  get size(): number {
    return this.a.length;
  }
  peek(): T | undefined {
    return this.a[0];
  }
  push(v: T): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.less(a[i], a[p]) >= 0) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m]) < 0) m = l;
        if (r < a.length && this.less(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

/**
 * The label that fits a bar `widthPx` wide (after `padPx` of padding): the text, or its
 * longest prefix with "…", or null when not even one letter and the ellipsis fit, so a
 * label is never drawn past its bar. `measure` is the canvas's text width.
 */
export function fitLabel(text: string, widthPx: number, measure: (s: string) => number, padPx = 8): string | null {
  const room = widthPx - padPx;
  if (room <= 0 || text.length === 0) return null;
  if (measure(text) <= room) return text;
  let lo = 0;
  let hi = text.length - 1;
  // the longest prefix whose "prefix…" fits: binary search, text widths grow with length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(text.slice(0, mid) + "…") <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? null : text.slice(0, lo) + "…";
}
