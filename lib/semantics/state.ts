/**
 * The run state and its hashes, one `state` or `checkpoint` event at a time: what the
 * state is, the hash the run is "in" (what an approver's `stateHash` is compared with),
 * and whether the recorded hash agrees with the rebuilt state. See docs/journal-format.md
 * "Precise readings" (State, Hash in force).
 */
import { hashOf } from "../canonical";
import type { JournalEvent } from "../journal/types";
import { str } from "../journal/values";
import { EMPTY_STATE, EMPTY_STATE_HASH, nextState, replacesState, type RunState } from "../state";

/** The hash of a state with no canonical form (a lone surrogate): equals no recorded hash. */
export const UNHASHABLE = "(unhashable)";
/**
 * The hash of a state that is not the recorder's (rebuilt from events stored redacted)
 * when the journal recorded none: nothing is compared with it.
 */
export const UNKNOWN_HASH = "(unknown: redacted state)";

export interface StateFold {
  readonly state: RunState;
  /** Hash of `state`; in a redacted stretch the recorded hash (or UNKNOWN_HASH). */
  readonly stateHash: string;
  /**
   * The hash in force: the recorded hash of the last state or checkpoint event, or, when
   * that event recorded none, the hash of the state rebuilt after it; the hash of {} before
   * any. UNKNOWN_HASH when it cannot be known (redacted, unhashable).
   */
  readonly hashInForce: string;
  /** seq of a state mismatch not yet reset by a checkpoint: later ones follow from it. */
  readonly mismatchAt: number | null;
  /** Rebuilt from an event stored redacted: not the recorder's state, so no hash is checked until a set or checkpoint replaces it whole. */
  readonly redacted: boolean;
}

export const INITIAL_STATE_FOLD: StateFold = Object.freeze({
  state: EMPTY_STATE,
  stateHash: EMPTY_STATE_HASH,
  hashInForce: EMPTY_STATE_HASH,
  mismatchAt: null,
  redacted: false,
});

export function safeHash(state: RunState): string {
  try {
    return hashOf(state);
  } catch {
    return UNHASHABLE;
  }
}

/**
 * What a state or checkpoint event says about the hashes. `problem` is set when the
 * recorded hash (or the patch) disagrees with the rebuilt state; `causedBy` is the seq of
 * the pending mismatch it follows from (null: a finding of its own, `state.hash-mismatch`).
 */
export interface StateVerdict {
  kind: "state" | "checkpoint";
  /** False in a redacted stretch: nothing was compared. */
  checked: boolean;
  ok: boolean;
  error: string | null;
  /** Hash of the state before the event. */
  before: string;
  /** Hash of the state after it. */
  after: string;
  recorded: string | null;
  problem: "patch" | "hash" | "checkpoint" | null;
  causedBy: number | null;
}

export interface StateStepOut {
  next: StateFold;
  verdict: StateVerdict;
}

const inForce = (recorded: string | null, rebuilt: string) => recorded ?? (rebuilt === UNHASHABLE ? UNKNOWN_HASH : rebuilt);

/** One `state` or `checkpoint` event (`redacted`: it is stored with a secret replaced). */
export function stepState(sf: StateFold, event: JournalEvent, redacted = false): StateStepOut {
  const recorded = str(event.data.hash) ?? null;
  const kind = event.type === "checkpoint" ? "checkpoint" : "state";
  const step = nextState(sf.state, event);
  if (redacted || (sf.redacted && !replacesState(event))) {
    const hash = recorded ?? UNKNOWN_HASH;
    return {
      next: {
        state: step.state,
        stateHash: hash,
        hashInForce: hash,
        mismatchAt: kind === "checkpoint" ? null : sf.mismatchAt,
        redacted: true,
      },
      verdict: { kind, checked: false, ok: true, error: null, before: sf.stateHash, after: hash, recorded, problem: null, causedBy: null },
    };
  }
  const after = step.ok ? safeHash(step.state) : sf.stateHash;
  if (kind === "checkpoint") {
    // Checked against the state rebuilt before it (the snapshot then replaces it, whatever
    // its own hash); leaving a redacted stretch, that state is not the recorder's: not checked.
    const problem: StateVerdict["problem"] = recorded !== null && !sf.redacted && sf.stateHash !== recorded ? "checkpoint" : null;
    // With a mismatch pending, what the checkpoint disagrees with follows from it.
    const causedBy = problem !== null && sf.mismatchAt !== null ? sf.mismatchAt : null;
    return {
      next: { state: step.state, stateHash: after, hashInForce: inForce(recorded, after), mismatchAt: null, redacted: false },
      verdict: { kind, checked: !sf.redacted, ok: true, error: null, before: sf.stateHash, after, recorded, problem, causedBy },
    };
  }
  const problem: StateVerdict["problem"] = !step.ok ? "patch" : recorded !== null && recorded !== after ? "hash" : null;
  const causedBy = problem !== null ? sf.mismatchAt : null;
  return {
    next: {
      state: step.state,
      stateHash: after,
      hashInForce: inForce(recorded, after),
      mismatchAt: sf.mismatchAt ?? (problem !== null ? event.seq : null),
      redacted: false,
    },
    verdict: {
      kind,
      checked: true,
      ok: step.ok,
      error: step.ok ? null : step.error,
      before: sf.stateHash,
      after,
      recorded,
      problem,
      causedBy,
    },
  };
}

/** The state fold with its state replaced (a fork's state override). */
export function withState<F extends StateFold>(sf: F, state: RunState): F {
  const hash = safeHash(state);
  return { ...sf, state, stateHash: hash, hashInForce: hash === UNHASHABLE ? UNKNOWN_HASH : hash, redacted: false };
}
