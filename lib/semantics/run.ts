/**
 * The one fold of a run's meaning: ordering and the chain link (`stepOrder`), and what
 * each accepted event means (`stepRun`): policy, steps, stops, approvals, state, effects
 * and outcomes. Both
 * are pure: nothing passed in is changed and whatever did not change is shared, so the
 * replay keeps any fold as a snapshot, while the analyzer (on the ingest hot path) pays
 * one small object per event. The analyzer turns the verdicts into findings; the replay
 * into divergences (and, comparing a fork's fold with the recorded one, into changes).
 */
import { verifyEvent, type ChainVerdict } from "../journal/chain";
import type { JournalEvent, JsonValue, RunPolicy } from "../journal/types";
import { obj, str } from "../journal/values";
import { callApproval, decideApproval, EMPTY_BOOK, requestApproval, type ApprovalBook, type CallApproval } from "./approvals";
import { evaluateCondition } from "./condition";
import { EMPTY_EFFECTS, effectCall, effectReconcile, effectResult, type CallEffect, type EffectFold, type ResultEffect } from "./effects";
import { contractEffect } from "./call-effect";
import { argsVerdict, type ArgsVerdict } from "./contracts";
import { EMPTY_POLICY_FOLD, policyCall, policyInput, policyResult, type PolicyFold, type PolicyVerdict } from "./invariants";
import { contractOf, readPolicy } from "./policy";
import { INITIAL_STATE_FOLD, stepState, UNKNOWN_HASH, type StateFold, type StateVerdict } from "./state";

/** Where the run's seqs are: what makes an event a duplicate, late, or after a gap. */
export interface OrderFold {
  readonly run: string | null;
  /** Highest seq accepted, −1 before the first. */
  readonly lastSeq: number;
  /** Recorded hash of the event at lastSeq (null: it had none). */
  readonly lastHash: string | null;
}

export const INITIAL_ORDER: OrderFold = Object.freeze({ run: null, lastSeq: -1, lastHash: null });

export interface OrderVerdict {
  /** False for another run's event, or a seq at or below the last accepted (a duplicate or too late): the event means nothing. */
  accepted: boolean;
  /** seqs missing right before this event (inclusive range), or null. */
  gap: { from: number; to: number } | null;
  chain: ChainVerdict;
}

/** The chain verdict of one event; an event with no canonical form cannot verify. */
export function chainLink(prevHash: string | undefined, event: JournalEvent): ChainVerdict {
  try {
    return verifyEvent(prevHash, event);
  } catch {
    return typeof event.hash === "string" && (event.seq === 0 || prevHash !== undefined) ? "fail" : "none";
  }
}

/**
 * One event in arrival order (callers sort by seq). `chain`: the verdict when the caller
 * already has it, `null` to skip verifying (a replay re-stepping known events).
 */
export function stepOrder(o: OrderFold, event: JournalEvent, chain?: ChainVerdict | null): { next: OrderFold; verdict: OrderVerdict } {
  const seq = event.seq;
  if ((o.run !== null && event.run !== o.run) || seq <= o.lastSeq) return { next: o, verdict: REJECTED };
  const gap = seq > o.lastSeq + 1 ? { from: o.lastSeq + 1, to: seq - 1 } : null;
  const prev = o.lastSeq === seq - 1 && o.lastHash !== null ? o.lastHash : undefined;
  const verdict = chain === null ? "none" : (chain ?? chainLink(prev, event));
  return {
    next: { run: o.run ?? event.run, lastSeq: seq, lastHash: typeof event.hash === "string" ? event.hash : null },
    // the verdict of an event in sequence is one of three, shared (one object less an event)
    verdict: gap === null ? IN_SEQUENCE[verdict] : { accepted: true, gap, chain: verdict },
  };
}

const REJECTED: OrderVerdict = Object.freeze({ accepted: false, gap: null, chain: "none" as const });
const IN_SEQUENCE: Readonly<Record<ChainVerdict, OrderVerdict>> = Object.freeze({
  ok: Object.freeze({ accepted: true, gap: null, chain: "ok" as const }),
  fail: Object.freeze({ accepted: true, gap: null, chain: "fail" as const }),
  none: Object.freeze({ accepted: true, gap: null, chain: "none" as const }),
});

/** The run's meaning so far; the state fields are the state fold's (flat, so a step copies one object). */
export interface RunFold extends StateFold {
  /** The policy of the run's run.start (null before one is seen: no policy rule applies). */
  readonly policy: RunPolicy | null;
  readonly steps: number;
  /** A decision to stop has been seen. */
  readonly stopped: boolean;
  /** An action after the stop has been seen. */
  readonly pastStop: boolean;
  readonly book: ApprovalBook;
  /** Write calls, their outcomes and the call ids seen (effects.ts). */
  readonly effects: EffectFold;
  /** What the policy's invariants read of the past (invariants.ts). */
  readonly invariants: PolicyFold;
}

export const INITIAL_RUN: RunFold = Object.freeze({
  ...INITIAL_STATE_FOLD,
  policy: null,
  steps: 0,
  stopped: false,
  pastStop: false,
  book: EMPTY_BOOK,
  effects: EMPTY_EFFECTS,
  invariants: EMPTY_POLICY_FOLD,
});

export type Verdict =
  | { kind: "other" }
  | {
      kind: "tool.call";
      tool: string;
      call: string;
      write: boolean;
      /** policy.requireApproval names the tool. */
      required: boolean;
      approval: CallApproval;
      /** The approval status is ok: the runtime may make this call. */
      allowed: boolean;
      firstPastStop: boolean;
      /** For a `write` call: effect.no-idempotency, the call it retries, duplicates found here. */
      effect: CallEffect | null;
      /** The args against the tool's contract (`tool.args-invalid`), null when they conform or none is declared. */
      args: ArgsVerdict | null;
      /** The policy's invariants this call breaks (`policy.<kind>`), decided by the events before it. */
      policy: readonly PolicyVerdict[];
    }
  | { kind: "tool.result"; call: string; effect: ResultEffect }
  | { kind: "reconcile"; call: string; /** seq of the write call whose outcome it clears (null: none). */ of: number | null }
  | { kind: "step.start"; ordinal: number; maxSteps: number | null; firstOverLimit: boolean; firstPastStop: boolean }
  | { kind: "model.request"; firstPastStop: boolean }
  | { kind: "decision"; stops: boolean; condition: JsonValue; evaluated: boolean | null; recordedMet: boolean | null }
  | StateVerdict
  | { kind: "approval.request"; approval: string; call: string; stateHash: string | null; rebuilt: string }
  | {
      kind: "approval.decision";
      approval: string;
      stateHash: string | null;
      /** The hash in force at the decision (StateFold.hashInForce). */
      hashInForce: string;
      /** Hash of the rebuilt state at the decision. */
      rebuilt: string;
      /**
       * `stale`: stateHash differs from the hash in force (approval.stale-state); `follows`:
       * it matches the hash in force but not the rebuilt state, which a pending mismatch
       * (at `causedBy`) explains.
       */
      problem: "stale" | "follows" | null;
      causedBy: number | null;
    };

export interface RunStep {
  next: RunFold;
  verdict: Verdict;
}

const OTHER: Verdict = Object.freeze({ kind: "other" as const });
const MODEL_REQUEST: Verdict = Object.freeze({ kind: "model.request" as const, firstPastStop: false });
const MODEL_PAST_STOP: Verdict = Object.freeze({ kind: "model.request" as const, firstPastStop: true });

/** The policy in force: the recorded one with a fork's fields laid over it. */
export function effectivePolicy(policy: RunPolicy | null, override: RunPolicy | null): RunPolicy | null {
  if (override === null) return policy;
  return { ...(policy ?? {}), ...override };
}

/**
 * A fold with some fields changed, built as one literal of a fixed shape: on the ingest hot
 * path most events change the fold, and an object spread of its eleven fields costs several
 * times what this does.
 */
function withRun(
  f: RunFold,
  c: {
    stateFold?: StateFold;
    policy?: RunPolicy | null;
    steps?: number;
    stopped?: boolean;
    pastStop?: boolean;
    book?: ApprovalBook;
    effects?: EffectFold;
    invariants?: PolicyFold;
  },
): RunFold {
  const s = c.stateFold ?? f;
  return {
    state: s.state,
    stateHash: s.stateHash,
    hashInForce: s.hashInForce,
    mismatchAt: s.mismatchAt,
    redacted: s.redacted,
    policy: c.policy === undefined ? f.policy : c.policy,
    steps: c.steps ?? f.steps,
    stopped: c.stopped ?? f.stopped,
    pastStop: c.pastStop ?? f.pastStop,
    book: c.book ?? f.book,
    effects: c.effects ?? f.effects,
    invariants: c.invariants ?? f.invariants,
  };
}

/**
 * What one accepted event means. `override`: a fork's policy fields (null for the run as
 * recorded); `redacted`: the event is stored with a secret replaced (its state is not the recorder's).
 */
export function stepRun(f: RunFold, event: JournalEvent, override: RunPolicy | null = null, redacted = false): RunStep {
  const data = event.data;
  switch (event.type) {
    case "run.start":
      return { next: f.policy === null ? withRun(f, { policy: readPolicy(data.policy) }) : f, verdict: OTHER };
    case "step.start": {
      const ordinal = f.steps + 1;
      const maxSteps = effectivePolicy(f.policy, override)?.maxSteps ?? null;
      const firstPastStop = f.stopped && !f.pastStop;
      return {
        next: withRun(f, { steps: ordinal, pastStop: f.pastStop || f.stopped }),
        verdict: { kind: "step.start", ordinal, maxSteps, firstOverLimit: maxSteps !== null && ordinal === maxSteps + 1, firstPastStop },
      };
    }
    case "model.request": {
      const firstPastStop = f.stopped && !f.pastStop;
      return { next: firstPastStop ? withRun(f, { pastStop: true }) : f, verdict: firstPastStop ? MODEL_PAST_STOP : MODEL_REQUEST };
    }
    case "tool.call": {
      const tool = str(data.tool) ?? "";
      const call = str(data.call) ?? "";
      const policy = effectivePolicy(f.policy, override);
      const required = policy?.requireApproval?.includes(tool) ?? false;
      const contract = contractOf(policy, tool);
      const { book, verdict: approval } = callApproval(f.book, call, required, event.seq);
      const firstPastStop = f.stopped && !f.pastStop;
      const { fx: effects, effect } = effectCall(f.effects, event, contract);
      const { pf: invariants, verdicts } = policyCall(f.invariants, policy, event);
      const next =
        book === f.book && !firstPastStop && effects === f.effects && invariants === f.invariants
          ? f
          : withRun(f, { book, effects, invariants, pastStop: f.pastStop || firstPastStop });
      return {
        next,
        verdict: {
          kind: "tool.call",
          tool,
          call,
          write: contractEffect(data, contract) === "write",
          required,
          approval,
          allowed: approval.status === "ok",
          firstPastStop,
          effect,
          args: argsVerdict(contract, data.args),
          policy: verdicts,
        },
      };
    }
    case "tool.result": {
      const { fx: effects, effect } = effectResult(f.effects, event);
      const invariants = policyResult(f.invariants, effectivePolicy(f.policy, override), event);
      return {
        next: effects === f.effects && invariants === f.invariants ? f : withRun(f, { effects, invariants }),
        verdict: { kind: "tool.result", call: str(data.call) ?? "", effect },
      };
    }
    case "reconcile": {
      const { fx: effects, of } = effectReconcile(f.effects, event);
      return { next: effects === f.effects ? f : withRun(f, { effects }), verdict: { kind: "reconcile", call: str(data.call) ?? "", of } };
    }
    case "approval.request": {
      const call = str(data.call);
      const approval = str(data.approval);
      const book = call !== undefined && approval !== undefined ? requestApproval(f.book, call, approval) : f.book;
      return {
        next: book === f.book ? f : withRun(f, { book }),
        verdict: {
          kind: "approval.request",
          approval: approval ?? "",
          call: call ?? "",
          stateHash: str(data.stateHash) ?? null,
          rebuilt: f.stateHash,
        },
      };
    }
    case "approval.decision": {
      const approval = str(data.approval);
      const decision = str(data.decision);
      const stateHash = str(data.stateHash) ?? null;
      let problem: "stale" | "follows" | null = null;
      if (stateHash !== null && f.hashInForce !== UNKNOWN_HASH) {
        if (stateHash !== f.hashInForce) problem = "stale";
        else if (f.mismatchAt !== null && !f.redacted && stateHash !== f.stateHash) problem = "follows";
      }
      const book = approval !== undefined && decision !== undefined ? decideApproval(f.book, approval, decision, event.seq) : f.book;
      return {
        next: book === f.book ? f : withRun(f, { book }),
        verdict: {
          kind: "approval.decision",
          approval: approval ?? "",
          stateHash,
          hashInForce: f.hashInForce,
          rebuilt: f.stateHash,
          problem,
          causedBy: problem === "follows" ? f.mismatchAt : null,
        },
      };
    }
    case "decision": {
      const stop = obj(data.stop);
      const recordedMet = typeof stop?.met === "boolean" ? stop.met : null;
      const stops = data.action === "stop" || recordedMet === true;
      const condition = stop?.condition ?? null;
      const evaluated = stop ? evaluateCondition(condition, f.state) : null;
      return {
        next: stops && !f.stopped ? withRun(f, { stopped: true }) : f,
        verdict: { kind: "decision", stops, condition, evaluated, recordedMet },
      };
    }
    case "state":
    case "checkpoint": {
      const { next, verdict } = stepState(f, event, redacted);
      return { next: withRun(f, { stateFold: next }), verdict };
    }
    case "input": {
      const invariants = policyInput(f.invariants, effectivePolicy(f.policy, override), event);
      return { next: invariants === f.invariants ? f : withRun(f, { invariants }), verdict: OTHER };
    }
    default:
      return { next: f, verdict: OTHER };
  }
}
