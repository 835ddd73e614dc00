/**
 * The timeline's level-of-detail index: the run's time range cut into 2^k equal buckets
 * (level 0, the finest), each coarser level merging pairs of the one below, down to
 * MIN_BUCKETS. A bucket holds what the timeline draws for the events in it (how many, a
 * bit per event kind, whether one failed) and, per span lane (steps, model and tool calls
 * in their sub-lanes), whether a span covers it, a failed one, a write. Zoomed out, a frame
 * draws at most one bucket per pixel of the level whose buckets are a pixel wide or more,
 * whatever the run's length; zoomed in past level 0, the few events in view are drawn
 * one by one.
 */

export const MIN_BUCKETS = 256;
const DEFAULT_FINEST = 1 << 16;

/** Span flags of a bucket. */
export const COVERED = 1;
export const FAILED = 2;
export const WRITE = 4;

interface LodLevel {
  /** Width of a bucket, ms. */
  bucketMs: number;
  buckets: number;
  /** Events in each bucket. */
  count: Uint32Array;
  /** Bit k set: an event of kind k (EVENT_KINDS index) that did not fail is in the bucket. */
  kinds: Uint32Array;
  /** 1: a failed event is in the bucket. */
  failed: Uint8Array;
  /** Per span lane, COVERED | FAILED | WRITE for each bucket. */
  spans: Uint8Array[];
}

export interface TimelineLod {
  startMs: number;
  endMs: number;
  /** Finest first. */
  levels: LodLevel[];
}

interface LodEvents {
  n: number;
  tsMs: ArrayLike<number>;
  /** EVENT_KINDS index of each row (below 32). */
  kindOfRow: ArrayLike<number>;
  failed: ArrayLike<number>;
}

export interface LodSpan {
  startMs: number;
  endMs: number;
  /** Which span lane it is drawn in. */
  lane: number;
  failed?: boolean;
  write?: boolean;
}

/** The bucket of time `t` at a level: the one whose half-open range holds it (the last holds endMs). */
export function bucketOf(lod: TimelineLod, level: number, t: number): number {
  const L = lod.levels[level];
  const b = Math.floor((t - lod.startMs) / L.bucketMs);
  return b < 0 ? 0 : b >= L.buckets ? L.buckets - 1 : b;
}

/**
 * Builds the index over events (any order) and spans. `finest` (a power of two) is level
 * 0's bucket count; runs with fewer events get fewer buckets, since a bucket per event is
 * already exact.
 */
export function buildTimelineLod(
  ev: LodEvents,
  spans: readonly LodSpan[],
  spanLanes: number,
  startMs: number,
  endMs: number,
  finest = DEFAULT_FINEST,
): TimelineLod {
  let buckets = MIN_BUCKETS;
  while (buckets < finest && buckets < ev.n) buckets *= 2;
  const span = Math.max(endMs - startMs, 1);
  const lod: TimelineLod = { startMs, endMs, levels: [] };
  const level0: LodLevel = {
    bucketMs: span / buckets,
    buckets,
    count: new Uint32Array(buckets),
    kinds: new Uint32Array(buckets),
    failed: new Uint8Array(buckets),
    spans: [],
  };
  lod.levels.push(level0);
  for (let i = 0; i < ev.n; i++) {
    const b = bucketOf(lod, 0, ev.tsMs[i]);
    level0.count[b]++;
    // as the timeline draws them: a failed event in red, not in its kind's colour
    if (ev.failed[i]) level0.failed[b] = 1;
    else level0.kinds[b] |= 1 << ev.kindOfRow[i];
  }
  // spans by difference arrays: O(spans + buckets) per lane however long the spans are
  const cover = Array.from({ length: spanLanes }, () => new Int32Array(buckets + 1));
  const fail = Array.from({ length: spanLanes }, () => new Int32Array(buckets + 1));
  const write = Array.from({ length: spanLanes }, () => new Int32Array(buckets + 1));
  for (const s of spans) {
    if (s.lane < 0 || s.lane >= spanLanes) continue;
    const b0 = bucketOf(lod, 0, s.startMs);
    const b1 = bucketOf(lod, 0, Math.max(s.startMs, s.endMs)) + 1;
    cover[s.lane][b0]++;
    cover[s.lane][b1]--;
    if (s.failed) {
      fail[s.lane][b0]++;
      fail[s.lane][b1]--;
    }
    if (s.write) {
      write[s.lane][b0]++;
      write[s.lane][b1]--;
    }
  }
  for (let l = 0; l < spanLanes; l++) {
    const flags = new Uint8Array(buckets);
    let c = 0;
    let f = 0;
    let w = 0;
    for (let b = 0; b < buckets; b++) {
      c += cover[l][b];
      f += fail[l][b];
      w += write[l][b];
      flags[b] = (c > 0 ? COVERED : 0) | (f > 0 ? FAILED : 0) | (w > 0 ? WRITE : 0);
    }
    level0.spans.push(flags);
  }
  // coarser levels: each bucket is the union of its two children
  for (let prev = level0; prev.buckets > MIN_BUCKETS;) {
    const n = prev.buckets >> 1;
    const next: LodLevel = {
      bucketMs: prev.bucketMs * 2,
      buckets: n,
      count: new Uint32Array(n),
      kinds: new Uint32Array(n),
      failed: new Uint8Array(n),
      spans: prev.spans.map(() => new Uint8Array(n)),
    };
    for (let b = 0; b < n; b++) {
      const a = 2 * b;
      next.count[b] = prev.count[a] + prev.count[a + 1];
      next.kinds[b] = prev.kinds[a] | prev.kinds[a + 1];
      next.failed[b] = prev.failed[a] | prev.failed[a + 1];
      for (let l = 0; l < prev.spans.length; l++) next.spans[l][b] = prev.spans[l][a] | prev.spans[l][a + 1];
    }
    lod.levels.push(next);
    prev = next;
  }
  return lod;
}

/**
 * The level to draw at `msPerPx`: the finest whose buckets are at least a pixel wide, or
 * -1 when even level 0's are wider than a pixel (zoomed in: draw the events themselves).
 */
export function levelFor(lod: TimelineLod, msPerPx: number): number {
  if (lod.levels.length === 0 || lod.levels[0].bucketMs > msPerPx) return -1;
  for (let k = 0; k < lod.levels.length; k++) if (lod.levels[k].bucketMs >= msPerPx) return k;
  return lod.levels.length - 1;
}
