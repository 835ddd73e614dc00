import "server-only";
/** The public door's types (lib/server/ingest/index.ts re-exports them). */
import type { ReaderItem } from "../../journal/reader";
import type { Fidelity } from "../../journal/types";
import type { SqlTx } from "../sql";

export interface IngestOptions {
  /** `upload`: whole journals; `stream`: live append to one run. */
  mode: "upload" | "stream";
  /** Live append: every event must belong to this run. */
  onlyRun?: string;
  /** `bundle`: a verified audit bundle opened read-only (lib/server/bundle-runs.ts), the one source that may write `bundle:` ids */
  source: "upload" | "stream" | "import" | "otlp" | "bundle";
  /** The project new runs are created in; a run of another project is refused (default: "default"). */
  project?: string;
  /**
   * A policy (canonical JSON, checked by lib/server/workflow-policy.ts) attached to every run
   * this request creates (`retrace import --policy`): it judges the run in place of the one
   * its run.start recorded, and the journal stays as recorded.
   */
  policy?: string;
  /** Forced fidelity (imports from trace formats are `trace`). */
  fidelity?: Fidelity;
  maxEventsPerRun: number;
  /** Events taken so far: about every 5,000, at the end of a batch of the source. */
  onProgress?: (events: number) => void;
  /** Runs to lock before reading the source (a source that reads the database inside the transaction). */
  lockRuns?: string[];
  /** Replace these runs' stored events with what the source gives (runs derived from spans). */
  replaceRuns?: boolean;
  /** Any error rejects the whole request: nothing is committed (the OTLP receiver, which changes more than events). */
  atomic?: boolean;
  /** The source gives each run's events together (converted imports): a run is finished as soon as the next begins. */
  contiguousRuns?: boolean;
  /**
   * The source was redacted on an earlier arrival (spans received over OTLP): its
   * placeholders stand for secrets found then, and are reported as such.
   */
  redactedBefore?: boolean;
  /**
   * Row batches the SQLite writer may have queued and still be handed raw lines to derive
   * stored texts from (default WRITER_BACKLOG in finish-on-writer.ts; -1: this thread derives every one).
   */
  writerBacklog?: number;
  /** The whole source is small and in memory: SqlExec may run the transaction on this thread (TransactionOptions.small). */
  small?: boolean;
  /**
   * A gap this request fills after later events were stored is settled later (the server
   * chain after it, the chain verdict, the analysis: settle.ts), not in this request, whose
   * cost stays that of its own events. Set for small requests (live appends).
   */
  deferSettle?: boolean;
  /**
   * Given, for each run this request created, its viewer summary (lib/graph/summary-binary.ts)
   * built from the rows as they were written, when that is what reading them back would
   * give: on PostgreSQL (rows finished on this thread; a read-back of a 100,000-event run
   * took about half a second). Called before the commit: use it only once the run is stored.
   */
  onSummary?: (run: string, summary: BuiltSummary) => void;
}

/** A run's binary summary as ingest built it, with the run's version when it was written. */
export interface BuiltSummary {
  bytes: Uint8Array<ArrayBuffer>;
  updatedAt: number;
  eventCount: number;
  droppedAt: number;
}

export interface IngestError {
  line?: number;
  run?: string;
  seq?: number;
  message: string;
  kind: "invalid" | "conflict" | "limit";
}

export interface RunOutcome {
  run: string;
  status: "stored" | "rejected";
  accepted: number;
  duplicates: number;
  nextSeq: number;
  findings: number;
}

export interface IngestResult {
  runs: RunOutcome[];
  /** The first errors (LISTED_ISSUES in issues.ts); `moreErrors` counts the rest. */
  errors: IngestError[];
  warnings: IngestError[];
  /** Errors noticed beyond those listed (absent when none). */
  moreErrors?: number;
  /** Warnings noticed beyond those listed (absent when none). */
  moreWarnings?: number;
  /** Reading stopped before the end of the body (too many invalid lines); nothing was stored. */
  stopped?: string;
  /** Whether anything was committed. */
  committed: boolean;
}

/** Batches of reader items, or a function giving them once the transaction has begun. */
export type IngestSource =
  AsyncIterable<ReaderItem[]> | ((tx: SqlTx) => AsyncIterable<ReaderItem[]> | Promise<AsyncIterable<ReaderItem[]>>);
