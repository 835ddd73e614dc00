import "server-only";
/**
 * Reads for the run viewer, one concern a file: the columnar summary of a run's events
 * (summary.ts, kept warm by summary-cache.ts), one event with the events that belong with
 * it (inspect.ts) and the run state at it (state-at.ts), a payload search (search.ts),
 * a stream of "this run changed" for live runs (run-changes.ts), and a replay of the agent
 * beside its recording (replay-beside.ts).
 */
export { getRunSummaryBinary, getRunSummaryText, summaryQuery } from "./summary";
export { getRunSummaryCached, prepareStoredSummary, STORED_SUMMARY_EVENTS, storeBuiltSummary } from "./summary-cache";
export { inspectEvent, inspectQuery, storedEventJson } from "./inspect";
export { stateAt } from "./state-at";
export { searchEvents, searchQuery } from "./search";
export { runChangesStream } from "./run-changes";
export { replayBeside, type ReplayBeside } from "./replay-beside";
