/**
 * Hermetic replay of a recorded run (see README.md). Pure TypeScript with no way to reach
 * a tool or a model: it only folds over the journal it is given.
 */
export { createReplay, DEFAULT_SNAPSHOT_EVERY, openReplay, type Replay, type ReplayView } from "./replay";
export { foldEvents, foldToJson, INITIAL_FOLD, replayStep, type FoldState, type FrameOut, type ReplayContext } from "./fold";
export { buildForkPlan, forkPlanReads, ReplayError, type ForkPlan } from "./plan";
export { checkForkOverride, parseForkOverride } from "./fork-override";
export { createFidelityScan, type FidelityVerdict } from "./fidelity";
export { createReplayStream, type ReplayChunk } from "./stream";
export { evaluateCondition } from "./condition";
export { evaluate, INITIAL_EVAL, writeCallAt, type EvalState, type Verdict, type WriteCall } from "./evaluate";
export * from "./types";
export { openPagedReplay, type PagedReplay, type RefoldedBlock } from "./paged";
