/**
 * A map keyed by seq. Seqs are dense small integers, so they index an array (a Map's
 * lookups, several an event, showed in ingest's profile); a seq far
 * past the array's end (a recorder starting at 10^9, a huge gap) goes to a Map instead of
 * leaving the array full of holes.
 */
const MAX_HOLE = 1024;

export class SeqMap<T> {
  private readonly dense: Array<T | undefined> = [];
  private sparse: Map<number, T> | null = null;
  /** The smallest seq in `sparse` at or past the array's end (absorb when the array reaches it). */
  private sparseMin = Infinity;
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined;
  }

  /** undefined when absent (a stored value is never undefined). */
  get(seq: number): T | undefined {
    if (seq >= 0 && seq < this.dense.length) return this.dense[seq];
    return this.sparse?.get(seq);
  }

  set(seq: number, value: T): void {
    if (seq >= 0 && seq < this.dense.length) {
      if (this.dense[seq] === undefined) this.count++;
      this.dense[seq] = value;
      return;
    }
    if (seq >= 0 && Number.isSafeInteger(seq) && seq <= this.dense.length + MAX_HOLE) {
      if (this.sparse?.delete(seq)) this.count--; // it was far past the end when first set
      while (this.dense.length < seq) this.dense.push(undefined);
      this.dense.push(value);
      this.count++;
      // seqs that were beyond the array may now fall inside it
      if (this.dense.length > this.sparseMin) this.absorb();
      return;
    }
    this.sparse ??= new Map();
    if (!this.sparse.has(seq)) this.count++;
    this.sparse.set(seq, value);
    if (seq >= this.dense.length && seq < this.sparseMin) this.sparseMin = seq;
  }

  private absorb(): void {
    const sparse = this.sparse!;
    this.sparseMin = Infinity;
    for (const [seq, value] of sparse) {
      if (seq >= 0 && seq < this.dense.length) {
        this.dense[seq] = value;
        sparse.delete(seq);
      } else if (seq >= this.dense.length && seq < this.sparseMin) this.sparseMin = seq;
    }
    if (sparse.size === 0) this.sparse = null;
  }
}
