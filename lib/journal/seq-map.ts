/**
 * A map keyed by seq. Seqs are dense small integers, so they index an array (a Map's
 * lookups, several an event, showed in ingest's profile); a seq far
 * past the array's end (a recorder starting at 10^9, a huge gap) goes to a Map instead of
 * leaving the array full of holes.
 */
const MAX_HOLE = 1024;

export class SeqMap<T> {
  /** dense[i] is seq base + i. */
  private readonly dense: Array<T | undefined> = [];
  private sparse: Map<number, T> | null = null;
  /** The smallest seq in `sparse` at or past the array's end (absorb when the array reaches it). */
  private sparseMin = Infinity;
  private count = 0;
  /** Every seq below `base` is present, with `prefixValue` unless `sparse` holds another. */
  private base = 0;
  private prefixValue: T | undefined = undefined;

  /**
   * A map that holds every seq below `n` with `value`, in constant time: a live run's next
   * request knows every seq below its first missing one is stored, and writing them one by
   * one made each request cost as much as the run held.
   */
  static withPrefix<T>(n: number, value: T): SeqMap<T> {
    const m = new SeqMap<T>();
    if (n > 0) {
      m.base = n;
      m.prefixValue = value;
      m.count = n;
    }
    return m;
  }

  get size(): number {
    return this.count;
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined;
  }

  /** undefined when absent (a stored value is never undefined). */
  get(seq: number): T | undefined {
    const i = seq - this.base;
    if (i >= 0 && i < this.dense.length) return this.dense[i];
    if (seq >= 0 && seq < this.base) return this.sparse?.get(seq) ?? this.prefixValue;
    return this.sparse?.get(seq);
  }

  set(seq: number, value: T): void {
    const i = seq - this.base;
    if (i >= 0 && i < this.dense.length) {
      if (this.dense[i] === undefined) this.count++;
      this.dense[i] = value;
      return;
    }
    if (i >= 0 && Number.isSafeInteger(seq) && i <= this.dense.length + MAX_HOLE) {
      if (this.sparse?.delete(seq)) this.count--; // it was far past the end when first set
      while (this.dense.length < i) this.dense.push(undefined);
      this.dense.push(value);
      this.count++;
      // seqs that were beyond the array may now fall inside it
      if (this.base + this.dense.length > this.sparseMin) this.absorb();
      return;
    }
    this.sparse ??= new Map();
    // a seq of the prefix is present already: replacing its value adds nothing
    if (!this.sparse.has(seq) && !(seq >= 0 && seq < this.base)) this.count++;
    this.sparse.set(seq, value);
    if (i >= this.dense.length && seq < this.sparseMin) this.sparseMin = seq;
  }

  private absorb(): void {
    const sparse = this.sparse!;
    const end = this.base + this.dense.length;
    this.sparseMin = Infinity;
    for (const [seq, value] of sparse) {
      if (seq >= this.base && seq < end) {
        this.dense[seq - this.base] = value;
        sparse.delete(seq);
      } else if (seq >= end && seq < this.sparseMin) this.sparseMin = seq;
    }
    if (sparse.size === 0) this.sparse = null;
  }
}
