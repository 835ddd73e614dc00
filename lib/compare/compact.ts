/**
 * An alignment as columns (typed arrays), for the compare page: a million aligned rows as
 * objects are hundreds of megabytes, as columns about 40 (and they cross from the worker
 * without a copy). The rows on screen are read back one at a time (`rowAt`); the events'
 * seqs and types come along, so a row shows its seq and type before its label is fetched.
 */
import type { AlignedRow, Alignment, CompareEvent, RowStatus } from "./align";

export const ROW_STATUSES: readonly RowStatus[] = ["same", "changed", "only-a", "only-b"];

export interface CompactAlignment extends Omit<Alignment, "rows"> {
  rowCount: number;
  /** Per row: index into run a's / run b's events, -1 where that run has no counterpart. */
  rowA: Int32Array;
  rowB: Int32Array;
  /** Per row: index into ROW_STATUSES. */
  status: Uint8Array;
  /** Per row: index into `segments`. */
  segment: Int32Array;
  /** Per row: index into `reasons`, -1 for none. */
  reason: Int32Array;
  reasons: string[];
  /** Per event of run a / run b: its seq and (index into `typeNames`) its type. */
  seqA: Float64Array;
  seqB: Float64Array;
  typeA: Uint16Array;
  typeB: Uint16Array;
  typeNames: string[];
}

/** The alignment of events `a` and `b` (of which only seq and type are read) as columns. */
export function compactAlignment(al: Alignment, a: readonly CompareEvent[], b: readonly CompareEvent[]): CompactAlignment {
  const n = al.rows.length;
  const rowA = new Int32Array(n);
  const rowB = new Int32Array(n);
  const status = new Uint8Array(n);
  const segment = new Int32Array(n);
  const reason = new Int32Array(n);
  const reasons: string[] = [];
  const reasonIds = new Map<string, number>();
  const statusId = new Map(ROW_STATUSES.map((s, i) => [s, i]));
  al.rows.forEach((r, i) => {
    rowA[i] = r.a ?? -1;
    rowB[i] = r.b ?? -1;
    status[i] = statusId.get(r.status) ?? 0;
    segment[i] = r.segment;
    reason[i] = r.reason === null ? -1 : intern(r.reason, reasons, reasonIds);
  });
  const typeNames: string[] = [];
  const typeIds = new Map<string, number>();
  const columns = (events: readonly CompareEvent[]) => {
    const seq = new Float64Array(events.length);
    const type = new Uint16Array(events.length);
    events.forEach((e, i) => {
      seq[i] = e.seq;
      type[i] = intern(e.type, typeNames, typeIds);
    });
    return { seq, type };
  };
  const ca = columns(a);
  const cb = columns(b);
  const { rows: _rows, ...rest } = al;
  void _rows;
  return {
    ...rest,
    rowCount: n,
    rowA,
    rowB,
    status,
    segment,
    reason,
    reasons,
    seqA: ca.seq,
    seqB: cb.seq,
    typeA: ca.type,
    typeB: cb.type,
    typeNames,
  };
}

/** Row `i` as `Alignment.rows[i]`. */
export function rowAt(c: CompactAlignment, i: number): AlignedRow {
  const r = c.reason[i];
  return {
    a: c.rowA[i] < 0 ? null : c.rowA[i],
    b: c.rowB[i] < 0 ? null : c.rowB[i],
    status: ROW_STATUSES[c.status[i]],
    segment: c.segment[i],
    reason: r < 0 ? null : c.reasons[r],
  };
}

/** The typed arrays of a compact alignment (what a worker transfers rather than copies). */
export function compactBuffers(c: CompactAlignment): ArrayBuffer[] {
  return [c.rowA, c.rowB, c.status, c.segment, c.reason, c.seqA, c.seqB, c.typeA, c.typeB].map((x) => x.buffer as ArrayBuffer);
}

/** The id of `text` in a string table (added at the end the first time it is seen). */
function intern(text: string, table: string[], ids: Map<string, number>): number {
  let id = ids.get(text);
  if (id === undefined) {
    id = table.length;
    table.push(text);
    ids.set(text, id);
  }
  return id;
}
