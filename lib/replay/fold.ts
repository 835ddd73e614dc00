/**
 * Replay as a fold: `replayStep(fold, event, ctx)` is a pure function from the fold state
 * before a recorded event to the state after it, plus the frames, divergences and fork
 * changes that event produces. Stepping N times from `INITIAL_FOLD` and folding from
 * scratch are the same computation, which is what makes seeking from a kept snapshot exact.
 *
 * Two evaluations run side by side: `base` re-evaluates the run as recorded (its
 * disagreements with the journal are divergences); `fork`, from the fork seq on,
 * evaluates the what-if (its disagreements with `base` are changes).
 */
import type { ChainVerdict } from "../journal/chain";
import { effectOf, judgedBy, policyFoldToJson, stepOrder } from "../semantics";
import { quote } from "../analyze";
import type { JournalEvent, JsonValue, RunPolicy, Seq } from "../journal/types";
import { applyPatch, type RunState } from "../state";
import { evaluate, INITIAL_EVAL, withState, type EvalState, type Verdict } from "./evaluate";
import type { ForkPlan } from "./plan";
import type { ChangeKind, Divergence, DivergenceKind, ForkChange, Provenance, ReplayFrame } from "./types";

export interface ReplayContext {
  plan: ForkPlan | null;
  /**
   * false when re-stepping for a seek: the chain's verdicts are already known and the fold
   * state does not depend on them, so the (costly) hashing is skipped. Default true.
   */
  verifyChain?: boolean;
  /** Chain verdicts already known (ingest stores one per event); undefined → computed here. */
  chainVerdict?: (seq: number) => ChainVerdict | undefined;
  /** Whether the event at a seq is stored redacted (ReplayOptions.redacted). */
  redacted?: (seq: number) => boolean;
  /** The policy attached to the run (ReplayOptions.attachedPolicy), read in place of run.start's. */
  attached?: JsonValue;
}

export interface FoldState {
  /** Recorded events consumed. */
  readonly events: number;
  /** Frames emitted. */
  readonly frames: number;
  readonly lastSeq: number;
  readonly lastHash: string | null;
  /** seq of a gap not yet followed by a checkpoint (it may explain state divergences). */
  readonly gapAt: number | null;
  readonly base: EvalState;
  /** The what-if's evaluation; null before the fork seq (it equals `base` until then). */
  readonly fork: EvalState | null;
  /** seq of the fork's first behavioural change: later frames are stale. */
  readonly divergedAt: number | null;
  /** seq at which the fork's run stops: nothing after it happens in the fork. */
  readonly stoppedAt: number | null;
}

export const INITIAL_FOLD: FoldState = Object.freeze({
  events: 0,
  frames: 0,
  lastSeq: -1,
  lastHash: null,
  gapAt: null,
  base: INITIAL_EVAL,
  fork: null,
  divergedAt: null,
  stoppedAt: null,
});

export interface FrameOut {
  frame: ReplayFrame;
  /** The replay's run state after the frame (not kept in the frame: states can be large). */
  state: RunState;
}

interface StepOutput {
  fold: FoldState;
  readonly frames: readonly FrameOut[];
  readonly divergences: readonly Divergence[];
  readonly changes: readonly ForkChange[];
}

const asSeq = (n: number) => n as Seq;

function divergence(
  seq: number,
  kind: DivergenceKind,
  reason: string,
  expected: JsonValue,
  actual: JsonValue,
  causedBy: number | null = null,
): Divergence {
  return {
    seq: asSeq(seq),
    kind,
    reason,
    expected,
    actual,
    meaningful: causedBy === null,
    causedBy: causedBy === null ? null : asSeq(causedBy),
  };
}

function short(hash: string): string {
  return hash.startsWith("sha256:") ? hash.slice(0, 19) + "…" : hash;
}

const APPROVAL_WHY: Record<"missing" | "undecided" | "denied", (tool: string) => string> = {
  missing: (tool) => `${quote(tool)} requires approval (policy.requireApproval) and it was not approved before the call`,
  undecided: () => "its approval was not yet decided",
  denied: () => "its approval was denied",
};

/**
 * What the recorded run's evaluation disagrees with in the journal. Each kind with an
 * analysis rule is meaningful exactly where that rule reports (lib/semantics decides
 * both); one that follows from a pending state mismatch carries it as `causedBy`.
 */
function baseDivergences(event: JournalEvent, v: Verdict, before: EvalState, gapAt: number | null): Divergence[] {
  const seq = event.seq;
  const out: Divergence[] = [];
  switch (v.kind) {
    case "state":
      if (v.problem === "patch")
        out.push(
          divergence(
            seq,
            "state-patch",
            `the patch cannot be applied to the rebuilt state (${(v.error ?? "").slice(0, 120)})`,
            v.after,
            v.recorded,
            v.causedBy,
          ),
        );
      else if (v.problem === "hash")
        out.push(divergence(seq, "state-hash", "the rebuilt state does not have the recorded hash", v.after, v.recorded, v.causedBy));
      break;
    case "checkpoint":
      if (v.problem === "checkpoint")
        out.push(
          divergence(
            seq,
            "state-hash",
            "the state rebuilt before this checkpoint does not have the checkpoint's recorded hash",
            v.before,
            v.recorded,
            v.causedBy,
          ),
        );
      break;
    case "approval.decision":
      if (v.problem !== null && v.stateHash !== null) {
        const against = v.problem === "stale" ? v.hashInForce : v.rebuilt;
        out.push(
          divergence(
            seq,
            "approval-state",
            v.problem === "stale"
              ? `approval ${quote(v.approval)} names state ${short(v.stateHash)}, but the run's state at this point is ${short(against)}`
              : `approval ${quote(v.approval)} names the recorded state ${short(v.stateHash)}, but the rebuilt state is ${short(against)}`,
            against,
            v.stateHash,
            v.causedBy,
          ),
        );
      }
      break;
    case "tool.call": {
      const status = v.approval.status;
      if (status === "reused")
        out.push(
          divergence(
            seq,
            "approval",
            `the run made call ${quote(v.call)} again on the approval its call at seq ${v.approval.usedBy ?? "?"} already used`,
            "not allowed",
            "called",
          ),
        );
      else if (status !== "ok") {
        const why = v.approval.denied ? APPROVAL_WHY.denied(v.tool) : APPROVAL_WHY[status](v.tool);
        out.push(divergence(seq, "approval", `the run made call ${quote(v.call)} although ${why}`, "not allowed", "called"));
      }
      // the call ledger's open call, retried: the replay would reconcile first (effect.retry-after-unknown)
      const retried = v.effect?.retryOf;
      if (retried)
        out.push(
          divergence(
            seq,
            "retry-after-unknown",
            `the run retried write call ${quote(retried.call)} (seq ${retried.seq}, outcome ${retried.status ?? "never reported"}) before anyone reconciled it`,
            `reconcile #${retried.seq} first`,
            "retried",
          ),
        );
      if (v.args !== null)
        out.push(
          divergence(
            seq,
            "args-invalid",
            v.args.kind === "invalid"
              ? `the args of call ${quote(v.call)} break the contract of ${quote(v.tool)}: keyword ${v.args.error.keyword} at ${quote(v.args.error.path || "/")}`
              : `the contract of ${quote(v.tool)} has a schema that is refused`,
            "args the contract accepts",
            "called",
          ),
        );
      for (const p of v.policy)
        out.push(
          divergence(
            seq,
            "invariant",
            `the run made call ${quote(v.call)} although it breaks invariant ${quote(p.id)} (policy.${p.kind}${p.evidence === null ? "" : `, evidence seq ${p.evidence}`})`,
            "not allowed",
            "called",
          ),
        );
      if (v.firstPastStop) out.push(divergence(seq, "past-stop", "the run kept acting after a decision to stop", "stopped", event.type));
      break;
    }
    case "step.start":
      if (v.firstOverLimit)
        out.push(
          divergence(seq, "max-steps", `step ${v.ordinal} starts although policy.maxSteps = ${v.maxSteps}`, "stop", `step ${v.ordinal}`),
        );
      if (v.firstPastStop) out.push(divergence(seq, "past-stop", "the run kept acting after a decision to stop", "stopped", event.type));
      break;
    case "model.request":
      if (v.firstPastStop) out.push(divergence(seq, "past-stop", "the run kept acting after a decision to stop", "stopped", event.type));
      break;
    case "decision":
      // No analysis rule: a gap before it may explain a state it was evaluated on.
      if (v.evaluated !== null && v.recordedMet !== null && v.evaluated !== v.recordedMet) {
        out.push(
          divergence(
            seq,
            "stop-condition",
            `the stop condition ${quote(v.condition)} is ${v.evaluated} on the rebuilt state, but the run recorded met = ${v.recordedMet}`,
            v.evaluated,
            v.recordedMet,
            before.mismatchAt ?? gapAt,
          ),
        );
      }
      break;
    default:
      break;
  }
  return out;
}

interface ForkOutcome {
  changes: Array<Omit<ForkChange, "hypothetical">>;
  /** The fork behaves differently here (later frames are stale). */
  diverges: boolean;
  /** The fork's run stops before this event (max steps). */
  stopsBefore: boolean;
  /** The fork's run stops after this event (a stop condition now met). */
  stopsAfter: boolean;
  /** The fork does not allow this call. */
  disallowed: string | null;
  /** The fork's version of the decision event when its stop condition comes out differently. */
  decision: JournalEvent | null;
}

function change(seq: number, kind: ChangeKind, reason: string, recorded: JsonValue, forked: JsonValue): Omit<ForkChange, "hypothetical"> {
  return { seq: asSeq(seq), kind, reason, recorded, forked };
}

/** Where the fork's evaluation of an event differs from the recorded run's. */
function compare(event: JournalEvent, vb: Verdict, vf: Verdict): ForkOutcome {
  const out: ForkOutcome = { changes: [], diverges: false, stopsBefore: false, stopsAfter: false, disallowed: null, decision: null };
  const seq = event.seq;
  if (vb.kind === "tool.call" && vf.kind === "tool.call") {
    if (vb.allowed && !vf.allowed) {
      const status = vf.approval.status;
      const why =
        status === "denied" || vf.approval.denied
          ? "its approval is denied in the fork"
          : status === "undecided"
            ? "its approval is not decided in the fork"
            : status === "reused"
              ? "its approval was already used by an earlier call"
              : `the fork's policy requires approval for ${quote(vf.tool)} and none was given`;
      out.disallowed = `not allowed in the fork: ${why}`;
      out.diverges = true;
      out.changes.push(change(seq, "approval", `call ${quote(vf.call)} would not be made: ${why}`, "allowed", "not allowed"));
    } else if (!vb.allowed && vf.allowed) {
      out.changes.push(change(seq, "approval", `call ${quote(vf.call)} is allowed in the fork`, "not allowed", "allowed"));
    }
  } else if (vb.kind === "step.start" && vf.kind === "step.start") {
    const overB = vb.maxSteps !== null && vb.ordinal > vb.maxSteps;
    const overF = vf.maxSteps !== null && vf.ordinal > vf.maxSteps;
    if (overF && !overB) {
      out.stopsBefore = true;
      out.diverges = true;
      out.changes.push(
        change(seq, "stop", `the fork's maxSteps = ${vf.maxSteps} stops the run before step ${vf.ordinal}`, "continue", "stop"),
      );
    } else if (!overF && vb.firstOverLimit) {
      out.changes.push(
        change(
          seq,
          "stop",
          `the fork's maxSteps = ${vf.maxSteps ?? "none"} no longer stops the run before step ${vf.ordinal}`,
          "stop",
          "continue",
        ),
      );
    }
  } else if (vb.kind === "decision" && vf.kind === "decision") {
    if (vf.evaluated !== null && vf.evaluated !== vb.evaluated) {
      out.changes.push(
        change(
          seq,
          "stop-condition",
          `the stop condition ${quote(vf.condition)} is ${vf.evaluated} on the fork's state`,
          vb.evaluated,
          vf.evaluated,
        ),
      );
      if (vf.evaluated !== vb.stops) {
        out.diverges = true;
        out.stopsAfter = vf.evaluated;
        const stop = {
          ...(typeof event.data.stop === "object" && event.data.stop !== null && !Array.isArray(event.data.stop) ? event.data.stop : {}),
          met: vf.evaluated,
        };
        out.decision = { ...event, data: { ...event.data, action: vf.evaluated ? "stop" : "continue", stop } };
        out.changes.push(
          change(
            seq,
            "stop",
            vf.evaluated ? "the run would stop here" : "the run would not stop here",
            vb.stops ? "stop" : "continue",
            vf.evaluated ? "stop" : "continue",
          ),
        );
      }
    }
  } else if (vb.kind === "state" && vf.kind === "state") {
    if (vb.ok && !vf.ok)
      out.changes.push(
        change(
          seq,
          "state-patch",
          `the recorded patch does not apply to the fork's state (${(vf.error ?? "").slice(0, 120)})`,
          vb.after,
          vf.after,
        ),
      );
    else if (vf.after !== vb.after)
      out.changes.push(change(seq, "state", "the state after this event differs from the recorded run's", vb.after, vf.after));
  } else if (vb.kind === "checkpoint" && vf.kind === "checkpoint") {
    if (vf.after !== vb.after) out.changes.push(change(seq, "state", "the fork checkpoints a different state", vb.after, vf.after));
  } else if ((vb.kind === "approval.decision" || vb.kind === "approval.request") && vf.kind === vb.kind && vf.stateHash !== null) {
    const okB = vb.stateHash === vb.rebuilt;
    const okF = vf.stateHash === vf.rebuilt;
    if (okB !== okF) {
      out.changes.push(
        change(
          seq,
          "approval-state",
          okF ? "the approver looked at the fork's state" : "the approver looked at a state the fork does not have",
          vb.rebuilt,
          vf.rebuilt,
        ),
      );
    }
  }
  return out;
}

interface Tag {
  provenance: Provenance;
  substituted: boolean;
  note: string | null;
}
const WRITE_BLOCKED: Tag = {
  provenance: "blocked",
  substituted: false,
  note: "write effect not performed: a replay never calls a tool; the recorded result is substituted",
};
const RESULT_SUBSTITUTED: Tag = { provenance: "recorded", substituted: true, note: "recorded result substituted: no tool was called" };
const RECORDED: Tag = { provenance: "recorded", substituted: false, note: null };

function baseTag(event: JournalEvent): Tag {
  if (event.type === "tool.call" && effectOf(event.data.effect) === "write") return WRITE_BLOCKED;
  if (event.type === "tool.result") return RESULT_SUBSTITUTED;
  return RECORDED;
}

const isWriteCall = (event: JournalEvent) => event.type === "tool.call" && effectOf(event.data.effect) === "write";

// Frames and folds are built by these two so every one has the same shape (the hot path
// makes 100,000s of them).
function makeFrame(
  index: number,
  eventIndex: number,
  seq: Seq,
  provenance: Provenance,
  stale: boolean,
  event: JournalEvent,
  recorded: JournalEvent | null,
  substituted: boolean,
  note: string | null,
  stateHash: string,
): ReplayFrame {
  return { index, eventIndex, seq, provenance, stale, event, recorded, substituted, note, stateHash };
}

function makeFold(
  events: number,
  frames: number,
  lastSeq: number,
  lastHash: string | null,
  gapAt: number | null,
  base: EvalState,
  fork: EvalState | null,
  divergedAt: number | null,
  stoppedAt: number | null,
): FoldState {
  return { events, frames, lastSeq, lastHash, gapAt, base, fork, divergedAt, stoppedAt };
}

const NONE: readonly never[] = Object.freeze([]);

/** One recorded event through the replay. Pure: `fold` is not changed. */
export function replayStep(fold: FoldState, event: JournalEvent, ctx: ReplayContext): StepOutput {
  const seq = event.seq;
  if (seq <= fold.lastSeq) return { fold, frames: [], divergences: [], changes: [] };
  const eventIndex = fold.events;
  const divergences: Divergence[] = [];

  // Integrity: gaps and the chain (decided by the semantics' order fold).
  const hint = ctx.verifyChain === false ? null : typeof event.hash === "string" ? ctx.chainVerdict?.(seq) : undefined;
  const { verdict: ov } = stepOrder({ run: null, lastSeq: fold.lastSeq, lastHash: fold.lastHash }, event, hint);
  let gapAt = fold.gapAt;
  if (ov.gap !== null) {
    gapAt = seq;
    divergences.push(
      divergence(
        seq,
        "gap",
        `seq ${ov.gap.from}${ov.gap.to > ov.gap.from ? `–${ov.gap.to}` : ""} missing: the replay cannot know what happened there`,
        ov.gap.from,
        seq,
      ),
    );
  }
  if (ov.chain === "fail") {
    divergences.push(
      divergence(
        seq,
        "chain",
        hint === "fail"
          ? "the recorded hash does not verify: this event, or the hash of the one before, was changed (verdict from ingest)"
          : "the recorded hash does not verify: this event, or the hash of the one before, was changed",
        null,
        event.hash ?? null,
      ),
    );
  }

  // The run as recorded.
  const redacted = ctx.redacted?.(seq) === true;
  // what the run means is read with the attached policy, if any; the chain above was checked on the event as stored
  const judged = judgedBy(event, ctx.attached);
  const { next: base, verdict: vb } = evaluate(fold.base, judged, null, redacted);
  const more = baseDivergences(event, vb, fold.base, gapAt);
  for (const d of more) divergences.push(d);
  if (event.type === "checkpoint") gapAt = null;

  const lastHash = typeof event.hash === "string" ? event.hash : null;
  const plan = ctx.plan;
  const frames: FrameOut[] = [];
  let nextIndex = fold.frames;
  const add = (tag: Tag, stale: boolean, shown: JournalEvent, recorded: JournalEvent | null, state: RunState, stateHash: string) => {
    frames.push({
      frame: makeFrame(nextIndex++, eventIndex, seq, tag.provenance, stale, shown, recorded, tag.substituted, tag.note, stateHash),
      state,
    });
  };

  if (plan === null || seq < plan.seq) {
    add(baseTag(event), false, event, event, base.state, base.stateHash);
    return {
      fold: makeFold(eventIndex + 1, nextIndex, seq, lastHash, gapAt, base, null, null, null),
      frames,
      divergences: divergences.length > 0 ? divergences : NONE,
      changes: NONE,
    };
  }

  // The what-if, from the fork seq on.
  const before = fold.fork ?? fold.base;
  const wasDiverged = fold.divergedAt !== null;
  if (fold.stoppedAt !== null) {
    const tag: Tag = {
      provenance: isWriteCall(event) ? "blocked" : "stale",
      substituted: event.type === "tool.result",
      note: `the fork's run stopped at seq ${fold.stoppedAt}`,
    };
    add(tag, true, event, event, before.state, before.stateHash);
    return {
      fold: makeFold(eventIndex + 1, nextIndex, seq, lastHash, gapAt, base, before, fold.divergedAt, fold.stoppedAt),
      frames,
      divergences,
      changes: NONE,
    };
  }

  const replacement = plan.replacements.get(seq);
  let forkEvent = replacement?.event ?? judged;
  let simulatedNote = replacement?.note ?? null;
  if (event.type === "checkpoint" && before.stateHash !== fold.base.stateHash) {
    // The fork's runtime would checkpoint its own state, not the recorded one.
    forkEvent = { ...event, data: { ...event.data, state: before.state, hash: before.stateHash } };
    simulatedNote = "checkpoint of the fork's state";
  }
  const policy: RunPolicy | null = seq >= plan.policyFrom ? plan.policy : null;
  const evaluated = evaluate(before, forkEvent, policy, redacted && forkEvent === judged);
  let fork = evaluated.next;
  const vf = evaluated.verdict;
  const outcome = compare(event, vb, vf);
  const rawChanges: Array<Omit<ForkChange, "hypothetical">> = [];
  if (replacement) {
    const recorded: { [k: string]: JsonValue } = {};
    const forked: { [k: string]: JsonValue } = {};
    for (const k of replacement.fields) {
      recorded[k] = event.data[k] ?? null;
      forked[k] = replacement.event.data[k] ?? null;
    }
    rawChanges.push(change(seq, "overridden", replacement.note, recorded, forked));
  }
  rawChanges.push(...outcome.changes);
  if (outcome.decision) {
    forkEvent = outcome.decision;
    simulatedNote = outcome.stopsAfter
      ? "the stop condition is met on the fork's state"
      : "the stop condition is not met on the fork's state";
    fork = evaluate(before, forkEvent, policy, redacted && forkEvent === judged).next;
  }

  let divergedAt = fold.divergedAt;
  let stoppedAt: number | null = null;
  // An override the agent observes (a tool result, a model output) changes what it does
  // next; an approval decision only changes what the runtime allows, seen at the call.
  if ((replacement?.observed ?? false) || outcome.diverges) divergedAt ??= seq;

  if (outcome.stopsBefore) {
    stoppedAt = seq;
    const stop: JournalEvent = {
      run: event.run,
      seq,
      ts: event.ts,
      type: "decision",
      ...(event.step !== undefined ? { step: event.step } : {}),
      data: { action: "stop", reason: "policy.maxSteps reached (what-if fork)", stop: { condition: "maxSteps", met: true } },
    };
    add(
      { provenance: "simulated", substituted: false, note: "the fork's policy stops the run here" },
      false,
      stop,
      null,
      before.state,
      before.stateHash,
    );
    add(
      { provenance: "stale", substituted: false, note: "not reached: the fork's run stopped before it" },
      true,
      event,
      event,
      before.state,
      before.stateHash,
    );
    fork = before;
  } else {
    let tag: Tag;
    if (outcome.disallowed !== null) tag = { provenance: "blocked", substituted: false, note: outcome.disallowed };
    else if (forkEvent !== event) tag = { provenance: "simulated", substituted: false, note: simulatedNote };
    else if (wasDiverged) {
      tag = {
        provenance: isWriteCall(event) ? "blocked" : "stale",
        substituted: event.type === "tool.result",
        note: `downstream of the fork's change at seq ${fold.divergedAt}: not what would have happened`,
      };
    } else tag = baseTag(event);
    add(tag, wasDiverged, forkEvent, event, fork.state, fork.stateHash);
    if (outcome.stopsAfter) stoppedAt = seq;
  }

  // A state override lands right after the event it is attached to.
  if (plan.stateAfter !== null && plan.stateAfter.seq === seq && stoppedAt === null) {
    const current = fork;
    let next: EvalState | null = null;
    let data: { [k: string]: JsonValue } | null = null;
    if (plan.stateAfter.state !== undefined) {
      next = withState(current, plan.stateAfter.state);
      data = { set: plan.stateAfter.state };
    } else {
      const applied = applyPatch(current.state, plan.stateAfter.patch);
      if (applied.ok) {
        next = withState(current, applied.state);
        data = { patch: plan.stateAfter.patch ?? [] };
      } else {
        rawChanges.push(
          change(
            seq,
            "state-patch",
            `the fork's state patch cannot be applied (${applied.error.slice(0, 120)})`,
            current.stateHash,
            current.stateHash,
          ),
        );
      }
    }
    if (next !== null && data !== null && next.stateHash !== current.stateHash) {
      const stateEvent: JournalEvent = { run: event.run, seq, ts: event.ts, type: "state", data: { ...data, hash: next.stateHash } };
      add(
        { provenance: "simulated", substituted: false, note: "state replaced by the fork" },
        wasDiverged,
        stateEvent,
        null,
        next.state,
        next.stateHash,
      );
      rawChanges.push(change(seq, "overridden", "state replaced by the fork", current.stateHash, next.stateHash));
      fork = next;
      divergedAt ??= seq;
    }
  }

  const changes = rawChanges.map((c) => ({ ...c, hypothetical: wasDiverged }));
  return {
    fold: makeFold(eventIndex + 1, nextIndex, seq, lastHash, gapAt, base, fork, divergedAt, stoppedAt),
    frames,
    divergences,
    changes,
  };
}

/** The fold after the first `count` events, computed from scratch. */
export function foldEvents(
  events: readonly JournalEvent[],
  ctx: ReplayContext,
  count = events.length,
  from: FoldState = INITIAL_FOLD,
): FoldState {
  let fold = from;
  for (let i = fold.events; i < count; i++) fold = replayStep(fold, events[i], ctx).fold;
  return fold;
}

function evalToJson(ev: EvalState): JsonValue {
  return {
    policy: ev.policy === null ? null : (structuredClone(ev.policy) as JsonValue),
    invariants: policyFoldToJson(ev.invariants) as unknown as JsonValue,
    state: ev.state,
    stateHash: ev.stateHash,
    mismatchAt: ev.mismatchAt,
    steps: ev.steps,
    stopped: ev.stopped,
    pastStop: ev.pastStop,
    hashInForce: ev.hashInForce,
    redacted: ev.redacted,
    requests: [...ev.book.requests.entries()].map(([k, v]) => [k, [...v]]),
    decisions: [...ev.book.decisions.entries()].map(([k, v]) => [k, [v.decision, v.seq]]),
    used: [...ev.book.used.entries()].map(([k, v]) => [k, [v.decision, v.call]]),
    writeCalls: [...ev.effects.calls.entries()].map(([, c]) => [
      c.seq,
      c.group,
      c.key,
      c.status,
      c.reconciled,
      c.ok,
      c.externalId,
      c.retryOf,
      c.duplicateOf,
    ]),
    callIds: [...ev.effects.callIds.entries()],
    earlyResults: [...ev.effects.early.entries()].map(([k, v]) => [k, v.status, v.externalId]),
  };
}

/** A fold state as plain JSON (for comparing folds and for debugging). */
export function foldToJson(fold: FoldState): JsonValue {
  return {
    events: fold.events,
    frames: fold.frames,
    lastSeq: fold.lastSeq,
    lastHash: fold.lastHash,
    gapAt: fold.gapAt,
    base: evalToJson(fold.base),
    fork: fold.fork === null ? null : evalToJson(fold.fork),
    divergedAt: fold.divergedAt,
    stoppedAt: fold.stoppedAt,
  };
}
