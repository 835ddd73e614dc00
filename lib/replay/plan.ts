/**
 * A what-if fork, resolved against the run before the fold starts: which recorded events
 * the override replaces, and from which seq the fork's policy applies. Resolving up front
 * keeps the step function pure (it only looks things up) and lets a bad override fail
 * with a clear message before anything is replayed.
 */
import { canonicalJson } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue, RunPolicy } from "../journal/types";
import { ReplayError } from "./errors";
import { parseForkOverride } from "./fork-override";
import type { ForkSpec } from "./types";

export { ReplayError };

interface Replacement {
  event: JournalEvent;
  note: string;
  /** The data fields the override changed. */
  fields: string[];
  /** The agent sees the change (a result, an output), so what it does next is unknown. */
  observed: boolean;
}

export interface ForkPlan {
  /** First seq the fork evaluates (the earliest event it can change). */
  seq: number;
  /** Policy fields laid over the run's policy for events at or after `policyFrom`. */
  policy: RunPolicy | null;
  policyFrom: number;
  /** seq → the fork's version of that recorded event. */
  replacements: ReadonlyMap<number, Replacement>;
  /** A state override applied right after the event at `seq`. */
  stateAfter: { seq: number; state?: JsonValue; patch?: JsonValue } | null;
}

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

function describe(e: JournalEvent): string {
  return `seq ${e.seq} is a ${e.type}`;
}

/** What a tool result says happened; a toolResult override replaces these, it is not merged with them. */
const OUTCOME_FIELDS = ["status", "result", "error", "partial", "externalId"];

/**
 * The tool result a toolResult override makes: the recorded outcome (status, result, error,
 * partial, externalId) gives way to the override's, so an edit to `status: ok` does not keep
 * the recorded `error`; the recorded status stays only when the override gives none. The
 * call id and what is not the outcome (latencyMs, …) are kept.
 */
function replacedResult(recorded: JsonObject, override: JsonObject): JsonObject {
  const kept = Object.fromEntries(Object.entries(recorded).filter(([k]) => !OUTCOME_FIELDS.includes(k)));
  return {
    ...kept,
    ...(override.status === undefined && recorded.status !== undefined ? { status: recorded.status } : {}),
    ...override,
    call: recorded.call ?? null,
  };
}

/** Resolves a fork against the run's events (sorted by seq, one event per seq). */
export function buildForkPlan(events: readonly JournalEvent[], spec: ForkSpec): ForkPlan {
  const override = parseForkOverride(spec.override);
  if (!Number.isSafeInteger(spec.seq) || spec.seq < 0) throw new ReplayError("the fork seq must be a non-negative integer");
  const index = events.findIndex((e) => e.seq === spec.seq);
  const at = index >= 0 ? events[index] : undefined;
  const needsEvent =
    override.toolResult || override.modelOutput || override.approval || override.state !== undefined || override.statePatch;
  if (needsEvent && !at) throw new ReplayError(`the run has no event with seq ${spec.seq}`);
  const after = (pred: (e: JournalEvent) => boolean) => events.slice(index + 1).find(pred);
  const replacements = new Map<number, Replacement>();
  const replace = (target: JournalEvent, data: JsonObject, note: string, observed: boolean) => {
    if (replacements.has(target.seq)) throw new ReplayError(`two overrides change seq ${target.seq}`);
    const keys = new Set([...Object.keys(target.data), ...Object.keys(data)]);
    const fields = [...keys].filter((k) => !sameJson(data[k], target.data[k]));
    if (fields.length === 0) return; // the override says what the run already did
    replacements.set(target.seq, { event: { ...target, data }, note, fields, observed });
  };

  if (override.toolResult && at) {
    const call = str(at.data.call);
    const target =
      at.type === "tool.result" ? at : at.type === "tool.call" ? after((e) => e.type === "tool.result" && e.data.call === call) : undefined;
    if (!target)
      throw new ReplayError(
        `a toolResult override needs a tool.result (or a tool.call that has one) at the fork seq; ${describe(at)}${at.type === "tool.call" ? " without a result" : ""}`,
      );
    replace(target, replacedResult(target.data, override.toolResult as JsonObject), "tool result replaced by the fork", true);
  }
  if (override.modelOutput && at) {
    const call = str(at.data.call);
    const target =
      at.type === "model.response"
        ? at
        : at.type === "model.request"
          ? after((e) => e.type === "model.response" && e.data.call === call)
          : undefined;
    if (!target)
      throw new ReplayError(
        `a modelOutput override needs a model.response (or a model.request that has one) at the fork seq; ${describe(at)}`,
      );
    replace(target, { ...target.data, output: override.modelOutput }, "model output replaced by the fork", true);
  }
  if (override.approval && at) {
    let target: JournalEvent | undefined;
    if (at.type === "approval.decision") target = at;
    else if (at.type === "approval.request") target = after((e) => e.type === "approval.decision" && e.data.approval === at.data.approval);
    else if (at.type === "tool.call") {
      const ids = new Set(
        events
          .slice(0, index)
          .filter((e) => e.type === "approval.request" && e.data.call === at.data.call)
          .map((e) => e.data.approval),
      );
      target = events
        .slice(0, index)
        .filter((e) => e.type === "approval.decision" && ids.has(e.data.approval))
        .pop();
    }
    if (!target)
      throw new ReplayError(
        `an approval override needs an approval.decision, its approval.request, or a tool.call with a decided approval at the fork seq; ${describe(at)}`,
      );
    replace(
      target,
      { ...target.data, decision: override.approval },
      `approval ${override.approval} by the fork`,
      // A denial shows at the gated call (the runtime refuses it); an approval where the
      // run was refused lets the agent go on differently from the next event.
      override.approval === "approved",
    );
  }

  const targets = [...replacements.keys()];
  const stateAfter =
    override.state !== undefined
      ? { seq: spec.seq, state: override.state }
      : override.statePatch !== undefined
        ? { seq: spec.seq, patch: override.statePatch }
        : null;
  return {
    seq: Math.min(spec.seq, ...targets),
    policy: override.policy ?? null,
    policyFrom: spec.seq,
    replacements,
    stateAfter,
  };
}

/** What `buildForkPlan` reads beside the event at the fork seq (`forkPlanReads`). */
interface ForkPlanReads {
  /** Events before the fork seq it reads: every one that matches. */
  before: Array<(e: JournalEvent) => boolean>;
  /** Events after the fork seq it reads: the first that matches each. */
  after: Array<(e: JournalEvent) => boolean>;
  /** Whether `buildForkPlan` reads this event. */
  keep(e: JournalEvent): boolean;
}

/**
 * The events `buildForkPlan` reads, for a caller that cannot hold the run (the replay
 * page's worker streams it): given the event at the fork seq (undefined when there is
 * none), those before it that match `before` and the first after it that matches each of
 * `after`. `buildForkPlan` over `at` and those events equals `buildForkPlan` over the
 * whole run (tests/replay/paged.test.ts). Throws as `buildForkPlan` does on a bad override.
 */
export function forkPlanReads(spec: ForkSpec, at: JournalEvent | undefined): ForkPlanReads {
  const override = parseForkOverride(spec.override);
  const before: ForkPlanReads["before"] = [];
  const after: ForkPlanReads["after"] = [];
  if (at) {
    const call = str(at.data.call);
    // the same predicates as buildForkPlan's, for each override it resolves
    if (override.toolResult && at.type === "tool.call") after.push((e) => e.type === "tool.result" && e.data.call === call);
    if (override.modelOutput && at.type === "model.request") after.push((e) => e.type === "model.response" && e.data.call === call);
    if (override.approval && at.type === "approval.request")
      after.push((e) => e.type === "approval.decision" && e.data.approval === at.data.approval);
    if (override.approval && at.type === "tool.call")
      before.push((e) => (e.type === "approval.request" && e.data.call === at.data.call) || e.type === "approval.decision");
  }
  return {
    before,
    after,
    keep: (e) =>
      e.seq === spec.seq ||
      (at !== undefined && e.seq < at.seq && before.some((p) => p(e))) ||
      (at !== undefined && e.seq > at.seq && after.some((p) => p(e))),
  };
}
