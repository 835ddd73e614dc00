/**
 * The replay's evaluation of a run is the run semantics' fold (lib/semantics): the state a
 * runtime would hold and the policy decisions it would make. A fork is the same fold with
 * overrides: a policy laid over the recorded one (`evaluate`'s `override`), a decision
 * replaced (the plan's replacement events), a state replaced (`withState`).
 */
import type { JournalEvent, RunPolicy } from "../journal/types";
import { effectivePolicy, INITIAL_RUN, stepRun, type RunFold, type RunStep, type Verdict } from "../semantics";
import { safeHash, UNHASHABLE, UNKNOWN_HASH, withState as stateWithState } from "../semantics";
import type { RunState } from "../state";
import { writeCallAt, type WriteCall } from "../semantics";

/**
 * `writeCallAt(view.fold.base.effects, seq)`: the effect verdicts of the write call at a
 * seq as recorded (the call it retries, the call it duplicates, a missing key).
 */
export { effectivePolicy, safeHash, UNHASHABLE, UNKNOWN_HASH, writeCallAt, type Verdict, type WriteCall };

export type EvalState = RunFold;
type EvalStep = RunStep;
export const INITIAL_EVAL: EvalState = INITIAL_RUN;

/** Evaluates one event. `override` is a fork's policy (null for the recorded run). */
export function evaluate(ev: EvalState, event: JournalEvent, override: RunPolicy | null = null, redacted = false): EvalStep {
  return stepRun(ev, event, override, redacted);
}

/** The evaluation with its run state replaced (a fork's state override). */
export function withState(ev: EvalState, state: RunState): EvalState {
  return stateWithState(ev, state);
}
