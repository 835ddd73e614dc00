/**
 * Run semantics: the one definition of what a run's events mean (see README.md). Pure
 * TypeScript; the analyzer, the replay, the inspector, the graph and the runs list read it.
 */
export {
  callApproval,
  decideApproval,
  EMPTY_BOOK,
  requestApproval,
  type ApprovalBook,
  type ApprovalStatus,
  type CallApproval,
  type DecisionRecord,
  type UseRecord,
} from "./approvals";
export { evaluateCondition } from "./condition";
export {
  effectCall,
  effectReconcile,
  effectResult,
  EMPTY_EFFECTS,
  groupOf,
  writeCallAt,
  type CallEffect,
  type Duplicate,
  type EarlyResult,
  type EffectFold,
  type ResultEffect,
  type ToolStatus,
  type WriteCall,
} from "./effects";
export { countedFailures, errorEvents, FailureCounter, isFailure, type FailureInput, type FailureSnapshot } from "./failure";
export { compareFindings } from "./findings";
export { healthCounts, plural, runHealth, severityTone, topFinding, type HealthTone, type RunHealth, type RunHealthInput } from "./health";
export {
  callLedger,
  isConfirmed,
  isOpen,
  NO_RESULT,
  unknownOutcome,
  type BranchReconcile,
  type CallEvent,
  type RecordedCall,
} from "./ledger";
export { groupByRun, orderEvents } from "./order";
export { PMap } from "./pmap";
export { retrievalVerdict, type RetrievalDocument, type RetrievalVerdict } from "./retrieval";
export { epochNanos, secondsToNanos } from "./time";
export { eventVerdicts, type ApprovalVerdict, type CallVerdict, type DecisionVerdict, type EventVerdicts } from "./verdicts";
export { contractOf, judgedBy, judgedEvents, readInvariant, readPolicy } from "./policy";
export { argsVerdict, needsIdempotencyKey, type ArgsVerdict } from "./contracts";
export { contractEffect, effectOf } from "./call-effect";
export { compileSchema, validateSchema, SCHEMA_MAX_DEPTH, SCHEMA_MAX_NODES, type CompiledSchema, type SchemaError } from "./json-schema";
export { firstAt, isArgPath, readPath } from "./arg-path";
export {
  EMPTY_POLICY_FOLD,
  inputText,
  policyCall,
  policyFoldFromJson,
  policyFoldToJson,
  policyInput,
  policyResult,
  wordsOf,
  type PolicyFold,
  type PolicyFoldSnapshot,
  type PolicyVerdict,
} from "./invariants";
export {
  chainLink,
  effectivePolicy,
  INITIAL_ORDER,
  INITIAL_RUN,
  stepOrder,
  stepRun,
  type OrderFold,
  type OrderVerdict,
  type RunFold,
  type RunStep,
  type Verdict,
} from "./run";
export {
  INITIAL_STATE_FOLD,
  safeHash,
  stepState,
  UNHASHABLE,
  UNKNOWN_HASH,
  withState,
  type StateFold,
  type StateStepOut,
  type StateVerdict,
} from "./state";
