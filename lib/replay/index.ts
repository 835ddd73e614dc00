/**
 * Hermetic replay of a recorded run (see README.md). Pure TypeScript with no way to reach
 * a tool or a model: it only folds over the journal it is given.
 */
export { createReplay, DEFAULT_SNAPSHOT_EVERY, openReplay, type GrowingReplay, type Replay, type ReplayView } from "./replay";
export {
  foldEvents,
  foldToJson,
  INITIAL_FOLD,
  replayStep,
  type FoldState,
  type FrameOut,
  type ReplayContext,
  type StepOutput,
} from "./fold";
export { buildForkPlan, forkPlanReads, ReplayError, type ForkPlan, type ForkPlanReads, type Replacement } from "./plan";
export { checkForkOverride, forkOverrideSchema, parseForkOverride, type ForkOverrideCheck } from "./fork-override";
export { assessFidelity, createFidelityScan, type FidelityVerdict } from "./fidelity";
export { createReplayStream, type ReplayChunk, type ReplayStream } from "./stream";
export { evaluateCondition } from "./condition";
export { evaluate, INITIAL_EVAL, writeCallAt, type EvalState, type Verdict, type WriteCall } from "./evaluate";
export * from "./types";
export { openPagedReplay, type PagedReplay, type RefoldedBlock } from "./paged";
