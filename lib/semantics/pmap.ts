/**
 * A small persistent string-keyed map: `set` returns a new map and leaves the old one as
 * it was. The fold keeps every approval and every call id of a run for as long as the run
 * lasts, and the replay keeps old fold states as snapshots, so copying one whole Map per
 * change would be quadratic.
 *
 * Built for how folds use it: almost every change is made to the newest map (the analyzer
 * on the ingest hot path never goes back). Every map made from one another shares one
 * store, a native Map from each key to its history (version, value, version, value, …);
 * a map is a version number in it. A change to the newest map appends one history entry
 * (no path copy, no JavaScript hashing: most of the ingest cost of the hash trie this
 * replaced was compiling and running its path copies). Reading an older map finds the
 * last entry at or before its version. A change to an older map (a replay seeking from a
 * kept snapshot, a fork branching off) first copies what that map holds into a new store,
 * whose newest map the changed one is.
 */

/** A history value standing for "deleted". */
const GONE: unique symbol = Symbol("gone");
type Gone = typeof GONE;

/** key → version, value, version, value, … (versions ascending). */
type History<V> = Array<number | V | Gone>;

interface Store<V> {
  readonly map: Map<string, History<V>>;
  /** The newest version of this store: only the map at it appends to the store. */
  tip: number;
}

/** Index of the value in force at `version` in `h` (−1: none yet). */
function valueAt<V>(h: History<V>, version: number): number {
  const last = h.length - 1;
  if ((h[last - 1] as number) <= version) return last; // the newest map, or unchanged since
  let lo = 0;
  let hi = (last - 1) / 2; // number of entries − 1
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((h[mid * 2] as number) <= version) {
      found = mid * 2 + 1;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
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
  private constructor(
    private readonly store: Store<V>,
    private readonly version: number,
    readonly size: number,
  ) {}

  get(key: string): V | undefined {
    const h = this.store.map.get(key);
    if (h === undefined) return undefined;
    const i = valueAt(h, this.version);
    if (i < 0) return undefined;
    const x = h[i] as V | Gone;
    return x === GONE ? undefined : x;
  }

  has(key: string): boolean {
    const h = this.store.map.get(key);
    if (h === undefined) return false;
    const i = valueAt(h, this.version);
    return i >= 0 && h[i] !== GONE;
  }

  set(key: string, value: V): PMap<V> {
    const store = this.own();
    const h = store.map.get(key);
    let added = true;
    if (h !== undefined) {
      const i = valueAt(h, this.version);
      if (i >= 0 && h[i] !== GONE) {
        if (h[i] === value) return this;
        added = false;
      }
    }
    const v = ++store.tip;
    if (h === undefined) store.map.set(key, [v, value]);
    else h.push(v, value);
    return new PMap(store, v, this.size + (added ? 1 : 0));
  }

  delete(key: string): PMap<V> {
    if (!this.has(key)) return this;
    const store = this.own();
    const v = ++store.tip;
    store.map.get(key)!.push(v, GONE);
    return new PMap(store, v, this.size - 1);
  }

  /** Entries in the order their keys were first set (the same however this map was reached). */
  *entries(): IterableIterator<[string, V]> {
    for (const [k, h] of this.store.map) {
      const i = valueAt(h, this.version);
      if (i >= 0 && h[i] !== GONE) yield [k, h[i] as V];
    }
  }

  /**
   * The store this map may append to: its own when it is the newest, else a copy of what
   * it holds (keys deleted by then are kept as such, so entries() keeps its order).
   */
  private own(): Store<V> {
    if (this.version === this.store.tip) return this.store;
    const map = new Map<string, History<V>>();
    for (const [k, h] of this.store.map) {
      const i = valueAt(h, this.version);
      if (i >= 0) map.set(k, [0, h[i]]);
    }
    // version 0 of the copy holds what this map holds; the change made next is version 1
    return { map, tip: 0 };
  }
}

// tip −1: no map is the empty map's newest, so every change to it starts a store of its own
const EMPTY = new (PMap as unknown as new (store: Store<unknown>, version: number, size: number) => PMap<unknown>)(
  { map: new Map(), tip: -1 },
  0,
  0,
);
