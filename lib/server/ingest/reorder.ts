import "server-only";
/**
 * The reorder buffer: a run's events are processed in seq order whatever order they
 * arrive in. An event at the next expected seq goes straight through (the common case
 * skips the buffer); others wait until the seqs before them arrive or the request ends.
 */
export class ReorderBuffer<T> {
  private readonly waiting = new Map<number, T>();

  /** `expect`: the first seq not yet stored; `isStored` skips seqs stored before this request. */
  constructor(
    private expect: number,
    private readonly isStored: (seq: number) => boolean,
  ) {}

  get size(): number {
    return this.waiting.size;
  }

  /** A waiting item at `seq` (a resend compares with it). */
  get(seq: number): T | undefined {
    return this.waiting.get(seq);
  }

  /** Takes the item at `seq`; `process` gets every item now in order, in seq order. */
  offer(seq: number, item: T, process: (item: T) => void): void {
    if (seq === this.expect && this.waiting.size === 0) {
      process(item);
      this.advance();
      return;
    }
    this.waiting.set(seq, item);
    for (let next = this.waiting.get(this.expect); next !== undefined; next = this.waiting.get(this.expect)) {
      this.waiting.delete(this.expect);
      process(next);
      this.advance();
    }
  }

  /** Empties the buffer: what waited follows a gap, returned in seq order. */
  takeRest(): Array<{ seq: number; item: T }> {
    const rest = [...this.waiting].map(([seq, item]) => ({ seq, item })).sort((a, b) => a.seq - b.seq);
    this.waiting.clear();
    return rest;
  }

  /** The seq the first waiting item would need to follow without a gap. */
  get expected(): number {
    return this.expect;
  }

  clear(): void {
    this.waiting.clear();
  }

  private advance(): void {
    this.expect++;
    while (this.isStored(this.expect)) this.expect++;
  }
}
