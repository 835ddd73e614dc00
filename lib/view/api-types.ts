/**
 * The shapes of the API answers, as the browser sees them: the single definition, used by
 * lib/server/queries.ts to build them and by client code (which must not import lib/server)
 * to read them.
 */
import type { RunIdentity } from "../journal/summary";

export interface RunListItem extends RunIdentity {
  id: string;
  status: string;
  live: boolean;
  /** null when unknown, and when the source recorded no times (timesRecorded false). */
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  /** false: the source had no times; events carry synthetic ones that only keep their order. */
  timesRecorded: boolean;
  eventCount: number;
  errorCount: number;
  findingCount: number;
  fidelity: string;
  chainStatus: string;
  chainBrokenAt: number | null;
  tags: string[];
  source: string;
  updatedAt: number;
}

export interface RunListPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

export interface FindingItem {
  rule: string;
  seq: number;
  severity: string;
  message: string;
}

export interface RunDetail extends RunListItem {
  header: Record<string, unknown>;
  recorderLastHash: string | null;
  serverLastHash: string | null;
  nextSeq: number;
  maxSeq: number;
  findings: FindingItem[];
}

/** One stored event as the events routes send it. */
export interface StoredEvent {
  seq: number;
  chain: string;
  recordedHash: string | null;
  redactions: number;
  /** The stored (redacted) event, with the server's chain hash as `hash` when known. */
  event: {
    run: string;
    seq: number;
    ts: string;
    type: string;
    step?: string;
    parent?: number;
    data: Record<string, unknown>;
    hash?: string;
    [k: string]: unknown;
  };
}

/** The run state around an event, rebuilt on the server from the state events. */
export interface StateAt {
  /** State before the last state-changing event at or before the seq. */
  before: unknown;
  /** State after it: the run state at the seq. */
  after: unknown;
  /** Seq of that last state-changing event (state or checkpoint), null when none. */
  changedAt: number | null;
  /** The checkpoint the rebuild started from, null when it started from {}. */
  fromCheckpoint: number | null;
  /** `data.hash` recorded on the changedAt event. */
  recordedHash: string | null;
  /** Hash of the rebuilt state (sha256 of its canonical JSON). */
  rebuiltHash: string;
  /** The state hash the analyzer holds at the seq: the recorded one, or the hash of {}. */
  hashAtSeq: string;
  /** Why the last state event could not be applied, when it could not. */
  error: string | null;
  /**
   * The rebuilt state holds secrets replaced at ingest (an event since the last whole
   * replacement was stored redacted): its hash cannot match the recorder's, and is not judged.
   */
  redacted: boolean;
}

export interface InspectAnswer {
  seq: number;
  event: StoredEvent;
  /** Events that belong with it: the call's answer, the approval's pair, the context sent, the parent. */
  related: StoredEvent[];
  state: StateAt | null;
  findings: FindingItem[];
}

export interface RunChange {
  eventCount: number;
  maxSeq: number;
  nextSeq: number;
  status: string;
  live: boolean;
  updatedAt: number;
}

export interface SearchAnswer {
  seqs: number[];
  truncated: boolean;
}

/** POST /api/journals, as the upload form reports it. */
export interface UploadAnswer {
  runs?: { run: string; status: string; accepted: number; duplicates: number; nextSeq: number; findings: number }[];
  errors?: { line: number; run?: string; seq?: number; message: string; kind?: string }[];
  warnings?: unknown[];
  error?: string;
  /** Set by /api/imports: the format the file was detected as. */
  format?: string;
  formatLabel?: string;
}
