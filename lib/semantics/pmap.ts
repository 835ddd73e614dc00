/**
 * A small persistent string-keyed map: `set` returns a new map and leaves the old one as
 * it was, sharing all but one bucket with it. The fold keeps every approval of a run for
 * as long as the run lasts (approvals are not spent), and the replay keeps old fold
 * states as snapshots, so copying one whole Map per change would be quadratic; copying a
 * bucket array and one bucket is not.
 */
const BUCKETS = 32;

function bucketOf(key: string): number {
  // FNV-1a over the UTF-16 code units: cheap, and spreads call and approval ids well.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % BUCKETS;
}

export class PMap<V> {
  static empty<V>(): PMap<V> {
    return EMPTY as PMap<V>;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PMap<V> {
    let m = PMap.empty<V>();
    for (const [k, v] of entries) m = m.set(k, v);
    return m;
  }

  /** Use `PMap.empty()` or `PMap.from()`. */
  constructor(
    private readonly buckets: ReadonlyArray<ReadonlyMap<string, V> | undefined>,
    readonly size: number,
  ) {}

  get(key: string): V | undefined {
    return this.buckets[bucketOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.buckets[bucketOf(key)]?.has(key) ?? false;
  }

  set(key: string, value: V): PMap<V> {
    const b = bucketOf(key);
    const old = this.buckets[b];
    if (old !== undefined && old.get(key) === value && old.has(key)) return this;
    const bucket = new Map(old);
    bucket.set(key, value);
    const buckets = this.buckets.slice();
    buckets[b] = bucket;
    return new PMap(buckets, this.size + (old?.has(key) ? 0 : 1));
  }

  /** Entries in an order that depends only on the keys and the order they were first set. */
  *entries(): IterableIterator<[string, V]> {
    for (const bucket of this.buckets) if (bucket) yield* bucket.entries();
  }
}

const EMPTY = new PMap<unknown>(new Array<undefined>(BUCKETS).fill(undefined), 0);
