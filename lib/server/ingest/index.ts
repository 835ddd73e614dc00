import "server-only";
/**
 * Ingest: validated events in, durable runs out. The public door; the modules of this
 * folder and how they fit are described in lib/server/README.md ("Ingest, one request").
 */
export { ingest } from "./flow";
export { LISTED_ISSUES, MAX_INVALID_LINES } from "./issues";
export type { BuiltSummary, IngestError, IngestOptions, IngestResult, IngestSource, RunOutcome } from "./types";
export { settleRunInTx } from "./settle";
export { rejudgeRunInTx, type AttachedPolicy } from "./rejudge";
