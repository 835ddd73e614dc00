/**
 * The rows an alignment of two runs is made of: the events it reads, the segments (steps)
 * it pairs, the aligned rows and a divergence. Types only, shared by align.ts and
 * meaningful.ts (which align.ts calls), so neither imports the other's types back.
 */
/** The part of a journal event the alignment reads (an API event or a JournalEvent). */
export interface CompareEvent {
  seq: number;
  type: string;
  step?: string;
  data: { [key: string]: unknown };
}

export type RowStatus = "same" | "changed" | "only-a" | "only-b";

export interface Segment {
  /** Step name (or id), or "(run)" for run-level events. */
  label: string;
  stepId: string | null;
  /** Indices into the run's event array, [start, end). */
  start: number;
  end: number;
}

export interface SegmentPair {
  a: Segment | null;
  b: Segment | null;
}

export interface AlignedRow {
  /** Index into run a's / run b's events, or null when the other run has no counterpart. */
  a: number | null;
  b: number | null;
  status: RowStatus;
  /** Index into `segments`. */
  segment: number;
  /** Why the row is not `same`, for people. */
  reason: string | null;
}

export interface Divergence {
  row: number;
  aSeq: number | null;
  bSeq: number | null;
  status: Exclude<RowStatus, "same">;
  reason: string;
  /** Label of the step it happened in. */
  segment: string;
}
