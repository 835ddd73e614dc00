/**
 * The deterministic part of an agent run, re-evaluated one event at a time: the state a
 * runtime would hold, and the policy decisions it would make (approval required, stop
 * condition, max steps). Pure: `evaluate` never changes its input and shares whatever did
 * not change, so any fold state can be kept as a snapshot without copying.
 */
import { hashOf } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue, RunPolicy } from "../journal/types";
import { readPolicy } from "../analyze/policy";
import { EMPTY_STATE, EMPTY_STATE_HASH, nextState, replacesState, type RunState } from "../state";
import { evaluateCondition } from "./condition";

export const UNHASHABLE = "(unhashable)";
/**
 * The hash of a state that is not the recorder's (it was rebuilt from events whose
 * secrets were redacted at ingest) when the journal recorded none: nothing compares with it.
 */
export const UNKNOWN_HASH = "(unknown: redacted state)";

export interface EvalState {
  /** The policy of the run's run.start (null before one is seen). */
  readonly policy: RunPolicy | null;
  readonly state: RunState;
  readonly stateHash: string;
  /** seq of a state mismatch not yet reset by a checkpoint (reconstruct only). */
  readonly mismatchAt: number | null;
  /**
   * The state was rebuilt from an event stored redacted (a secret replaced by a
   * placeholder): it is not the recorder's, so its hash is the recorded one (or
   * UNKNOWN_HASH) and is not checked, until a `set` or checkpoint replaces it whole.
   */
  readonly stateRedacted: boolean;
  readonly steps: number;
  /** A decision to stop has been seen. */
  readonly stopped: boolean;
  /** An action after the stop has been seen. */
  readonly pastStop: boolean;
  /** call id → approval ids of the requests naming it, until that call is made. */
  readonly requests: ReadonlyMap<string, readonly string[]>;
  /** approval id → its last decision (dropped with the request once the call is made). */
  readonly decisions: ReadonlyMap<string, string>;
}

export const INITIAL_EVAL: EvalState = Object.freeze({
  policy: null,
  state: EMPTY_STATE,
  stateHash: EMPTY_STATE_HASH,
  mismatchAt: null,
  stateRedacted: false,
  steps: 0,
  stopped: false,
  pastStop: false,
  requests: new Map<string, readonly string[]>(),
  decisions: new Map<string, string>(),
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
      /** An approval.request names the call. */
      gated: boolean;
      /** The last decision of a request naming the call is `approved`. */
      approved: boolean;
      /** A denied decision is the last for every request naming the call. */
      denied: boolean;
      allowed: boolean;
      firstPastStop: boolean;
    }
  | { kind: "step.start"; ordinal: number; maxSteps: number | null; firstOverLimit: boolean; firstPastStop: boolean }
  | { kind: "model.request"; firstPastStop: boolean }
  | { kind: "decision"; stops: boolean; condition: JsonValue; evaluated: boolean | null; recordedMet: boolean | null }
  | { kind: "state"; ok: boolean; error: string | null; before: string; after: string; recorded: string | null }
  | { kind: "checkpoint"; before: string; after: string; recorded: string | null; snapshotHash: string }
  | { kind: "approval"; approval: string; stateHash: string | null; rebuilt: string };

export interface EvalStep {
  next: EvalState;
  verdict: Verdict;
}

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function obj(v: JsonValue | undefined): JsonObject | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

export function safeHash(state: RunState): string {
  try {
    return hashOf(state);
  } catch {
    return UNHASHABLE;
  }
}

/** The policy in force: the recorded one with the fork's fields laid over it. */
export function effectivePolicy(policy: RunPolicy | null, override: RunPolicy | null): RunPolicy | null {
  if (override === null) return policy;
  return { ...(policy ?? {}), ...override };
}

/** Evaluates one event. `override` is a fork's policy (null for the recorded run). */
export function evaluate(ev: EvalState, event: JournalEvent, override: RunPolicy | null = null, redacted = false): EvalStep {
  const data = event.data;
  if ((event.type === "state" || event.type === "checkpoint") && (redacted || (ev.stateRedacted && !replacesState(event)))) {
    // Not the recorder's state (see EvalState.stateRedacted): applied, its hash taken from
    // the journal, nothing checked.
    const recorded = str(data.hash) ?? null;
    const stateHash = recorded ?? UNKNOWN_HASH;
    const next: EvalState = {
      ...ev,
      state: nextState(ev.state, event).state,
      stateHash,
      stateRedacted: true,
      mismatchAt: event.type === "checkpoint" ? null : ev.mismatchAt,
    };
    const verdict: Verdict =
      event.type === "state"
        ? { kind: "state", ok: true, error: null, before: ev.stateHash, after: stateHash, recorded: null }
        : { kind: "checkpoint", before: ev.stateHash, after: stateHash, recorded: null, snapshotHash: stateHash };
    return { next, verdict };
  }
  const policy = effectivePolicy(ev.policy, override);
  switch (event.type) {
    case "run.start":
      return { next: ev.policy === null ? { ...ev, policy: readPolicy(data.policy) } : ev, verdict: { kind: "other" } };
    case "step.start": {
      const ordinal = ev.steps + 1;
      const maxSteps = policy?.maxSteps ?? null;
      const firstPastStop = ev.stopped && !ev.pastStop;
      return {
        next: { ...ev, steps: ordinal, pastStop: ev.pastStop || ev.stopped },
        verdict: { kind: "step.start", ordinal, maxSteps, firstOverLimit: maxSteps !== null && ordinal === maxSteps + 1, firstPastStop },
      };
    }
    case "model.request": {
      const firstPastStop = ev.stopped && !ev.pastStop;
      return { next: firstPastStop ? { ...ev, pastStop: true } : ev, verdict: { kind: "model.request", firstPastStop } };
    }
    case "tool.call": {
      const tool = str(data.tool) ?? "";
      const call = str(data.call) ?? "";
      const ids = ev.requests.get(call) ?? [];
      const last = ids.map((id) => ev.decisions.get(id));
      const approved = last.includes("approved");
      const gated = ids.length > 0;
      const denied = gated && last.every((d) => d === "denied");
      const required = policy?.requireApproval?.includes(tool) ?? false;
      // A call somebody asked approval for waits for it, whatever the policy says.
      const allowed = approved || (!required && !gated);
      const firstPastStop = ev.stopped && !ev.pastStop;
      let next = firstPastStop ? { ...ev, pastStop: true } : ev;
      if (gated) {
        // The approval is spent on this call. Dropping it keeps the maps as small as the
        // approvals in flight, which matters because every change copies them.
        const requests = new Map(ev.requests);
        requests.delete(call);
        const decisions = new Map(ev.decisions);
        for (const id of ids) decisions.delete(id);
        next = { ...next, requests, decisions };
      }
      return {
        next,
        verdict: {
          kind: "tool.call",
          tool,
          call,
          write: data.effect === "write",
          required,
          gated,
          approved,
          denied,
          allowed,
          firstPastStop,
        },
      };
    }
    case "approval.request": {
      const call = str(data.call);
      const approval = str(data.approval);
      let next = ev;
      if (call !== undefined && approval !== undefined && !(ev.requests.get(call) ?? []).includes(approval)) {
        const requests = new Map(ev.requests);
        requests.set(call, [...(ev.requests.get(call) ?? []), approval]);
        next = { ...ev, requests };
      }
      return {
        next,
        verdict: { kind: "approval", approval: approval ?? "", stateHash: str(data.stateHash) ?? null, rebuilt: ev.stateHash },
      };
    }
    case "approval.decision": {
      const approval = str(data.approval);
      const decision = str(data.decision);
      let next = ev;
      if (approval !== undefined && decision !== undefined && ev.decisions.get(approval) !== decision) {
        const decisions = new Map(ev.decisions);
        decisions.set(approval, decision);
        next = { ...ev, decisions };
      }
      return {
        next,
        verdict: { kind: "approval", approval: approval ?? "", stateHash: str(data.stateHash) ?? null, rebuilt: ev.stateHash },
      };
    }
    case "decision": {
      const stop = obj(data.stop);
      const recordedMet = typeof stop?.met === "boolean" ? stop.met : null;
      const stops = data.action === "stop" || recordedMet === true;
      const condition = stop?.condition ?? null;
      const evaluated = stop ? evaluateCondition(condition, ev.state) : null;
      return {
        next: stops && !ev.stopped ? { ...ev, stopped: true } : ev,
        verdict: { kind: "decision", stops, condition, evaluated, recordedMet },
      };
    }
    case "state": {
      const step = nextState(ev.state, event);
      const after = step.ok ? safeHash(step.state) : ev.stateHash;
      const recorded = str(data.hash) ?? null;
      const mismatch = !step.ok || (recorded !== null && recorded !== after);
      return {
        next: {
          ...ev,
          state: step.state,
          stateHash: after,
          mismatchAt: ev.mismatchAt ?? (mismatch ? event.seq : null),
          stateRedacted: false,
        },
        verdict: { kind: "state", ok: step.ok, error: step.ok ? null : step.error, before: ev.stateHash, after, recorded },
      };
    }
    case "checkpoint": {
      const step = nextState(ev.state, event);
      const snapshotHash = safeHash(step.state);
      return {
        next: { ...ev, state: step.state, stateHash: snapshotHash, mismatchAt: null, stateRedacted: false },
        verdict: { kind: "checkpoint", before: ev.stateHash, after: snapshotHash, recorded: str(data.hash) ?? null, snapshotHash },
      };
    }
    default:
      return { next: ev, verdict: { kind: "other" } };
  }
}

/** The evaluation with its run state replaced (a fork's state override). */
export function withState(ev: EvalState, state: RunState): EvalState {
  return { ...ev, state, stateHash: safeHash(state), stateRedacted: false };
}
