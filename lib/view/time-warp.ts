/**
 * A time axis with its long idle stretches cut short. An agent run that waited hours for
 * a human approval, or a branch run whose first events are the original's (recorded days
 * before the live ones), spends nearly all of its span between two events: drawn to
 * scale, every event sits in one pixel column. The warp keeps the active stretches to
 * scale and draws each idle gap that dominates the run at a fixed width, marked as such,
 * so the timeline never claims a scale it does not keep (the gap says how long it was).
 */

import type { RunIndex } from "../graph";

/** An idle stretch (epoch ms, real time) the axis draws short: no event falls inside it. */
interface IdleGap {
  from: number;
  to: number;
}

export interface TimeWarp {
  /** The gaps drawn short, ascending; empty: the axis is to scale. */
  readonly gaps: readonly IdleGap[];
  /** How long (display ms) each gap is drawn. */
  readonly shown: number;
  /** Real time → display time (the identity before the first gap). */
  toDisplay(t: number): number;
  /** Display time → real time (inside a drawn gap: proportionally across it). */
  toReal(d: number): number;
}

export const NO_WARP: TimeWarp = { gaps: [], shown: 0, toDisplay: (t) => t, toReal: (d) => d };

/** A gap is drawn short when it is longer than this share of the rest of the run, and this long at least. */
const DOMINANT_SHARE = 0.25;
const MIN_GAP_MS = 10_000;
/** A short gap is drawn as this share of the active time. */
const SHOWN_SHARE = 0.04;
const MAX_GAPS = 16;

/**
 * The warp of a run whose event times are `times` (any order; `order` lists the rows in
 * time order when given): each gap between two consecutive event times that is longer than
 * a quarter of the rest of the run (and 10 s) is drawn short, the longest first, at most 16.
 */
export function idleWarp(times: ArrayLike<number>, order?: ArrayLike<number>): TimeWarp {
  const n = order ? order.length : times.length;
  if (n < 2) return NO_WARP;
  const at = (i: number) => (order ? times[order[i]] : times[i]);
  const candidates: IdleGap[] = [];
  let prev = at(0);
  for (let i = 1; i < n; i++) {
    const t = at(i);
    if (!Number.isFinite(t)) continue;
    if (t - prev >= MIN_GAP_MS) candidates.push({ from: prev, to: t });
    if (t > prev) prev = t;
  }
  const total = prev - at(0);
  if (candidates.length === 0 || !(total > 0)) return NO_WARP;
  candidates.sort((a, b) => b.to - b.from - (a.to - a.from));
  const picked: IdleGap[] = [];
  let rest = total;
  for (const g of candidates) {
    if (picked.length >= MAX_GAPS) break;
    const len = g.to - g.from;
    if (len <= DOMINANT_SHARE * (rest - len)) break;
    picked.push(g);
    rest -= len;
  }
  if (picked.length === 0) return NO_WARP;
  picked.sort((a, b) => a.from - b.from);
  const shown = Math.max(1, rest * SHOWN_SHARE);
  // display time of each gap's start: real start minus what the gaps before it lost
  const lostBefore: number[] = [];
  let lost = 0;
  for (const g of picked) {
    lostBefore.push(lost);
    lost += g.to - g.from - shown;
  }
  const gapAt = (t: number, key: (g: IdleGap, i: number) => number) => {
    // the last gap whose start is at or before t
    let lo = 0;
    let hi = picked.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (key(picked[mid], mid) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  };
  return {
    gaps: picked,
    shown,
    toDisplay(t) {
      const i = gapAt(t, (g) => g.from);
      if (i < 0) return t;
      const g = picked[i];
      const d0 = g.from - lostBefore[i];
      if (t >= g.to) return t - lostBefore[i] - (g.to - g.from - shown);
      return d0 + ((t - g.from) / (g.to - g.from)) * shown;
    },
    toReal(d) {
      const i = gapAt(d, (g, k) => g.from - lostBefore[k]);
      if (i < 0) return d;
      const g = picked[i];
      const d0 = g.from - lostBefore[i];
      if (d >= d0 + shown) return d + lostBefore[i] + (g.to - g.from - shown);
      return g.from + ((d - d0) / shown) * (g.to - g.from);
    },
  };
}

/**
 * Tick marks at round real times in each stretch the warp keeps to scale, about one per
 * `minPx` pixels of the display viewport [startD, endD]: `at` is where to draw (display
 * time) and `t` the real time it labels. Ticks closer than half of `minPx` to the one
 * before (where a stretch starts after a gap) are left out.
 */
export function warpedTicks(
  warp: TimeWarp,
  startD: number,
  endD: number,
  widthPx: number,
  origin: number,
  steps: readonly number[],
  minPx = 90,
): { step: number; ticks: Array<{ at: number; t: number }> } {
  const span = endD - startD;
  const want = (span / Math.max(1, widthPx)) * minPx;
  const step = steps.find((s) => s >= want) ?? Math.ceil(want / 86_400_000) * 86_400_000;
  const out: Array<{ at: number; t: number }> = [];
  const minGap = want / 2;
  // the stretches kept to scale, in real time: before the first gap, between gaps, after the last
  const bounds: Array<[number, number]> = [];
  let from = -Infinity;
  for (const g of warp.gaps) {
    bounds.push([from, g.from]);
    from = g.to;
  }
  bounds.push([from, Infinity]);
  const r0 = warp.toReal(startD);
  const r1 = warp.toReal(endD);
  for (const [a, b] of bounds) {
    const lo = Math.max(a, r0);
    const hi = Math.min(b, r1);
    if (lo > hi) continue;
    for (let t = origin + Math.ceil((lo - origin) / step) * step; t <= hi && out.length < 200; t += step) {
      const at = warp.toDisplay(t);
      if (out.length > 0 && at - out[out.length - 1].at < minGap) continue;
      out.push({ at, t });
    }
  }
  return { step, ticks: out };
}

/**
 * The run's index on the warped axis: every time (events, steps, calls, the run's bounds)
 * in display time, all else shared. The timeline draws, zooms and picks on it; labels read
 * the real index.
 */
export function warpRunIndex(index: RunIndex, warp: TimeWarp): RunIndex {
  if (warp.gaps.length === 0) return index;
  const src = index.summary.tsMs;
  const tsMs = new Float64Array(src.length);
  for (let i = 0; i < src.length; i++) tsMs[i] = warp.toDisplay(src[i]);
  const span = <T extends { startMs: number; endMs: number }>(x: T): T => ({
    ...x,
    startMs: warp.toDisplay(x.startMs),
    endMs: warp.toDisplay(x.endMs),
  });
  return {
    ...index,
    summary: { ...index.summary, tsMs },
    steps: index.steps.map(span),
    calls: index.calls.map(span),
    startMs: warp.toDisplay(index.startMs),
    endMs: warp.toDisplay(index.endMs),
  };
}
