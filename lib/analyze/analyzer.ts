/**
 * The analysis rules of journal format v1, reported over the run semantics' verdicts.
 *
 * What events mean (order, chain links, state and its hashes, approvals, steps, stops,
 * effects and outcomes) is decided once, by the fold in lib/semantics; this file turns its
 * verdicts into findings and adds the rules that need nothing but the event and the policy
 * (context, retrieval, partial results, secrets). The whole state can be written out
 * (`snapshot`) and picked up in another process, so a live run is analysed as it streams
 * in without re-reading what was already seen.
 */
import { sha256Hex } from "../canonical";
import type { ChainVerdict } from "../journal/chain";
import type { Finding, JournalEvent, JsonValue, RuleId, RunPolicy, Seq } from "../journal/types";
import { findSecrets, hasSecret, type SecretHit } from "../redact/patterns";
import {
  compareFindings,
  groupByRun,
  INITIAL_ORDER,
  INITIAL_RUN,
  orderEvents,
  PMap,
  retrievalVerdict,
  safeHash,
  stepOrder,
  stepRun,
  UNKNOWN_HASH,
  type DecisionRecord,
  type Duplicate,
  type EarlyResult,
  type EffectFold,
  type OrderFold,
  type RunFold,
  type StateVerdict,
  type ToolStatus,
  type UseRecord,
  type WriteCall,
  type ArgsVerdict,
  type PolicyVerdict,
  type PolicyFoldSnapshot,
  policyFoldFromJson,
  policyFoldToJson,
} from "../semantics";
import { invariantText, quote, RULE_SEVERITY, safePath, secretName } from "./describe";

export interface PushHints {
  /** The chain verdict for this event when the caller has already computed it. */
  chain?: ChainVerdict;
  /** The secrets in this event when the caller has already looked (ingest's redaction does), so the event is not scanned twice. */
  secrets?: readonly SecretHit[];
  /**
   * The event is a stored (redacted) form, secrets replaced by placeholders: a state it
   * sets or patches is not the one the recorder hashed (see AnalyzerSnapshot.stateRedacted).
   */
  redacted?: boolean;
}

export interface Analyzer {
  /** Push events in seq order (the caller sorts); a repeated seq is ignored by the rules. */
  push(event: JournalEvent, hints?: PushHints): void;
  /** All findings so far, sorted by seq then rule. */
  findings(): Finding[];
  /** JSON-serialisable state (may contain bigint) so analysis can continue in another process. */
  snapshot(): AnalyzerSnapshot;
  /**
   * Reports a chain failure found after the event was pushed (ingest on SQLite verifies
   * on the writer thread and pushes with `chain: "none"`).
   */
  chainFailed(seq: number): void;
}

/** A `write` tool.call in a snapshot (lib/semantics/effects WriteCall, the verdicts optional). */
export interface WriteCallRecord {
  seq: number;
  call: string;
  tool: string;
  /** tool + SHA-256 of the canonical args (version 1: tool + the canonical args themselves). */
  group: string;
  /** The idempotency key, "" when missing. */
  key: string;
  /** Status of the latest tool.result for this call, null before any. */
  status: ToolStatus | null;
  /** A reconcile naming this call came after its latest result. */
  reconciled: boolean;
  /** A live branch recorded this call as not sent (`live.pending`); absent: it was sent. */
  unsent?: true;
  /** Some tool.result for this call had status ok. */
  ok: boolean;
  /** externalId of the first ok result, null when it had none. */
  externalId: string | null;
  /** seq of the call it retries (absent: none, or a snapshot older than the field). */
  retryOf?: number;
  /** seq of the call it duplicates (absent: none, or a snapshot older than the field). */
  duplicateOf?: number;
}

export type { EarlyResult };

/** Everything the fold knows, as plain JSON (arrays of entries instead of Maps). */
export interface AnalyzerSnapshot {
  /** 2; a version 1 snapshot (write-call groups holding the canonical args) is still read. */
  version: 1 | 2;
  run: string | null;
  /** Highest seq folded so far, −1 before the first event. */
  lastSeq: number;
  /** Recorded hash of the event at lastSeq, null when it had none. */
  lastHash: string | null;
  /** The run.start policy; null until a run.start is seen (then no policy rules apply). */
  policy: RunPolicy | null;
  /** State rebuilt from state and checkpoint events. */
  state: JsonValue;
  /**
   * The stored snapshot's state had secrets replaced by placeholders (ingest redacts it
   * before storing): a fold continued from it cannot know the state's true hash, so it
   * checks none until a checkpoint or a `set` replaces the state whole. Absent: false.
   */
  stateRedacted?: boolean;
  /** The hash in force (approval.stale-state compares to it); "" when it cannot be known. */
  recordedStateHash: string;
  mismatchPending: boolean;
  /** seq of the pending mismatch (absent in older snapshots: lastSeq stands in). */
  mismatchAt?: number;
  stepStarts: number;
  stopSeen: boolean;
  pastStopReported: boolean;
  /** call id → approval ids of the approval.requests naming it. */
  requests: Array<[string, string[]]>;
  /** approval id → its last decision. */
  decisions: Array<[string, string]>;
  /** approval id → seq of its last decision (absent in older snapshots). */
  decisionSeqs?: Array<[string, number]>;
  /** approval id → the call that used its last decision (absent in older snapshots: derived from callIds). */
  used?: Array<[string, UseRecord]>;
  writeCalls: WriteCallRecord[];
  /** call id → seq of the latest tool.call with that id. */
  callIds: Array<[string, number]>;
  /** Results that arrived before any tool.call with their call id. */
  earlyResults: Array<[string, EarlyResult]>;
  /** What the policy's invariants read of the past (absent: nothing yet, or an older snapshot). */
  invariants?: PolicyFoldSnapshot;
  findings: Finding[];
}

export { compareFindings };

/** recordedStateHash in a snapshot when the state's hash cannot be known (see AnalyzerSnapshot.stateRedacted). */
const UNKNOWN_STATE_HASH = "";

class RunAnalyzer implements Analyzer {
  private order: OrderFold = INITIAL_ORDER;
  private fold: RunFold = INITIAL_RUN;
  private found = new Map<string, Finding>();

  constructor(snapshot: AnalyzerSnapshot | undefined) {
    if (snapshot) this.restore(snapshot);
  }

  private get policy(): RunPolicy | null {
    return this.fold.policy;
  }

  push(event: JournalEvent, hints?: PushHints): void {
    const { next: order, verdict: ov } = stepOrder(this.order, event, hints?.chain);
    if (!ov.accepted) return; // another run's event (analyzeJournal groups), a duplicate or a late seq
    const seq = event.seq;
    if (ov.gap !== null) {
      const { from, to } = ov.gap;
      const missing = to - from + 1;
      this.report(
        "journal.gap",
        seq,
        from === 0
          ? `the run starts at seq ${seq}: seq 0–${seq - 1} are missing`
          : `${missing} event${missing === 1 ? "" : "s"} missing before this one (seq ${from}${missing > 1 ? `–${to}` : ""})`,
      );
    }
    if (ov.chain === "fail") this.chainFailed(seq);
    this.order = order;
    this.checkSecrets(event, hints?.secrets);

    const { next, verdict: v } = stepRun(this.fold, event, null, hints?.redacted === true);
    this.fold = next;
    const data = event.data;
    switch (v.kind) {
      case "step.start":
        if (v.firstPastStop) this.pastStop(event);
        if (v.firstOverLimit) this.report("loop.max-steps", seq, `step.start number ${v.ordinal} exceeds policy.maxSteps = ${v.maxSteps}`);
        break;
      case "model.request":
        if (v.firstPastStop) this.pastStop(event);
        if (data.context === undefined && data.messages === undefined) {
          this.report(
            "context.missing",
            seq,
            `model.request ${quote(data.call)} has neither a context reference nor messages: what the model saw is not recorded`,
          );
        }
        break;
      case "tool.call": {
        if (v.firstPastStop) this.pastStop(event);
        const a = v.approval;
        if (a.status === "missing")
          this.report(
            "approval.missing",
            seq,
            `${quote(v.tool)} requires approval (policy.requireApproval) and call ${quote(v.call)} ${a.requested ? "had no approved decision before it" : "was never submitted for approval"}`,
          );
        else if (a.status === "undecided")
          this.report("approval.undecided", seq, `call ${quote(v.call)} was made while an approval requested for it had no decision`);
        else if (a.status === "denied")
          this.report("approval.denied", seq, `call ${quote(v.call)} was made although its approval was denied`);
        else if (a.status === "reused")
          this.report(
            "approval.reused",
            seq,
            `call ${quote(v.call)} is made again on the approval its call at seq ${a.usedBy ?? "?"} already used: one approval covers two calls`,
          );
        const fx = v.effect;
        if (fx !== null) {
          if (fx.noIdempotencyKey)
            this.report(
              "effect.no-idempotency",
              seq,
              `write call ${quote(v.call)} to ${quote(v.tool)} has no idempotency key: a retry could repeat the effect`,
            );
          const earlier = fx.retryOf;
          if (earlier !== null)
            this.report(
              "effect.retry-after-unknown",
              seq,
              `retries write call ${quote(earlier.call)} (seq ${earlier.seq}, outcome ${earlier.status ?? "?"}, never reconciled) with ${fx.noIdempotencyKey ? "no idempotency key" : "a different idempotency key"}: the effect may now have happened twice`,
            );
          this.duplicates(fx.duplicates);
        }
        if (v.args !== null) this.argsInvalid(seq, v.tool, v.args);
        if (v.policy.length > 0) this.invariantsBroken(seq, v.tool, v.policy);
        break;
      }
      case "tool.result":
        if (data.partial === true)
          this.report("tool.partial", seq, `the result of call ${quote(data.call)} is partial: later steps worked on incomplete data`);
        this.duplicates(v.effect.duplicates);
        break;
      case "approval.decision":
        if (v.problem === "stale" && v.stateHash !== null) {
          this.report(
            "approval.stale-state",
            seq,
            `approval ${quote(data.approval)} was decided on state ${v.stateHash.slice(0, 19)}…, but the run state at this point is ${v.hashInForce.slice(0, 19)}…`,
          );
        }
        break;
      case "state":
      case "checkpoint":
        this.onStateVerdict(seq, v);
        break;
      default:
        break;
    }
    switch (event.type) {
      case "context":
        this.checkInstructions(event);
        break;
      case "retrieval":
        this.checkRetrieval(event);
        break;
      default:
        break;
    }
  }

  findings(): Finding[] {
    return [...this.found.values()].sort(compareFindings);
  }

  snapshot(): AnalyzerSnapshot {
    const f = this.fold;
    const decisions: Array<[string, string]> = [];
    const decisionSeqs: Array<[string, number]> = [];
    for (const [id, d] of f.book.decisions.entries()) {
      decisions.push([id, d.decision]);
      decisionSeqs.push([id, d.seq]);
    }
    return {
      version: 2,
      run: this.order.run,
      lastSeq: this.order.lastSeq,
      lastHash: this.order.lastHash,
      policy: f.policy === null ? null : { ...f.policy },
      state: f.state,
      ...(f.redacted ? { stateRedacted: true } : {}),
      recordedStateHash: f.hashInForce === UNKNOWN_HASH ? UNKNOWN_STATE_HASH : f.hashInForce,
      mismatchPending: f.mismatchAt !== null,
      ...(f.mismatchAt !== null ? { mismatchAt: f.mismatchAt } : {}),
      stepStarts: f.steps,
      stopSeen: f.stopped,
      pastStopReported: f.pastStop,
      requests: [...f.book.requests.entries()].map(([k, v]) => [k, [...v]]),
      decisions,
      decisionSeqs,
      used: [...f.book.used.entries()].map(([k, v]) => [k, { ...v }]),
      ...effectsToSnapshot(f.effects),
      ...(f.invariants === INITIAL_RUN.invariants ? {} : { invariants: policyFoldToJson(f.invariants) }),
      findings: this.findings().map((f) => ({ ...f })),
    };
  }

  private restore(s: AnalyzerSnapshot): void {
    if (s.version !== 1 && s.version !== 2) throw new Error(`unsupported analyzer snapshot version ${String(s.version)}`);
    this.order = { run: s.run, lastSeq: s.lastSeq, lastHash: s.lastHash };
    const redacted = s.stateRedacted === true;
    const hashInForce = s.recordedStateHash === UNKNOWN_STATE_HASH ? UNKNOWN_HASH : s.recordedStateHash;
    const seqs = new Map(s.decisionSeqs ?? []);
    const decisions = PMap.from<DecisionRecord>(s.decisions.map(([id, d]) => [id, { decision: d, seq: seqs.get(id) ?? -1 }]));
    const requests = PMap.from<readonly string[]>(s.requests.map(([k, v]) => [k, [...v]]));
    let used: PMap<UseRecord>;
    if (s.used) used = PMap.from(s.used.map(([k, v]) => [k, { ...v }]));
    else {
      // Older snapshots did not say: an approved request whose call was already made was used by it.
      used = PMap.empty();
      const callIds = new Map(s.callIds);
      for (const [call, ids] of s.requests) {
        const at = callIds.get(call);
        if (at === undefined) continue;
        for (const id of ids) {
          const d = decisions.get(id);
          if (d?.decision === "approved") used = used.set(id, { decision: d.seq, call: at });
        }
      }
    }
    this.fold = {
      policy: s.policy === null ? null : { ...s.policy },
      state: s.state,
      stateHash: redacted ? hashInForce : safeHash(s.state),
      hashInForce,
      mismatchAt: s.mismatchPending ? (s.mismatchAt ?? s.lastSeq) : null,
      redacted,
      steps: s.stepStarts,
      stopped: s.stopSeen,
      pastStop: s.pastStopReported,
      book: { requests, decisions, used },
      effects: effectsFromSnapshot(s),
      invariants: policyFoldFromJson(s.invariants),
    };
    for (const f of s.findings) this.found.set(`${f.seq}\u0000${f.rule}`, { ...f });
  }

  chainFailed(seq: number): void {
    this.report(
      "journal.chain",
      seq,
      "the recorded hash does not match the hash of this event chained to the previous one: the event or its predecessor's hash was changed",
    );
  }

  private report(rule: RuleId, seq: number, message: string): void {
    const key = `${seq}\u0000${rule}`;
    if (!this.found.has(key)) this.found.set(key, { rule, seq: seq as Seq, severity: RULE_SEVERITY[rule], message });
  }

  private checkSecrets(event: JournalEvent, known?: readonly SecretHit[]): void {
    // hasSecret is the cheap test; paths are only worth building for the rare hit.
    const hits = known ?? (hasSecret(event) ? findSecrets(event) : []);
    if (hits.length === 0) return;
    const parts: string[] = [];
    for (const hit of hits) {
      const part = `${secretName(hit.kind)} in ${safePath(hit.path)}`;
      if (!parts.includes(part)) parts.push(part);
    }
    const shown = parts.slice(0, 3).join("; ") + (parts.length > 3 ? `; and ${parts.length - 3} more` : "");
    this.report("secret.exposed", event.seq, `${shown}`);
  }

  private pastStop(event: JournalEvent): void {
    this.report("loop.past-stop", event.seq, `${event.type} after a decision to stop: the run kept going`);
  }

  private checkInstructions(event: JournalEvent): void {
    const required = this.policy?.requiredInstructions;
    if (!required || required.length === 0) return;
    const given = event.data.instructions;
    const present = new Set(Array.isArray(given) ? given.filter((x): x is string => typeof x === "string") : []);
    const missing = required.filter((id) => !present.has(id));
    if (missing.length > 0) {
      this.report(
        "context.instruction-omitted",
        event.seq,
        `the context lacks required instruction${missing.length === 1 ? "" : "s"} ${missing.map((m) => quote(m)).join(", ")}`,
      );
    }
  }

  private checkRetrieval(event: JournalEvent): void {
    const maxAge = this.policy?.retrievalMaxAgeSeconds;
    if (maxAge === undefined) return;
    const v = retrievalVerdict(event, maxAge);
    if (!v.stale) return;
    const stale = v.documents.filter((d) => d.stale === true).map((d) => quote(d.id ?? "?"));
    this.report(
      "retrieval.stale",
      event.seq,
      `document${stale.length === 1 ? "" : "s"} ${stale.join(", ")} indexed more than ${maxAge} s (policy.retrievalMaxAgeSeconds) before the retrieval`,
    );
  }

  private argsInvalid(seq: number, tool: string, v: ArgsVerdict): void {
    this.report(
      "tool.args-invalid",
      seq,
      v.kind === "invalid"
        ? `the args of this call to ${quote(tool)} break its contract: keyword ${v.error.keyword} at ${quote(v.error.path === "" ? "/" : v.error.path)} (${v.error.message})`
        : `the contract's args schema for ${quote(tool)} is refused, so no call to it can be checked: ${v.error.slice(0, 200)}`,
    );
  }

  /** One finding per kind at a call; it names every invariant of that kind the call breaks. */
  private invariantsBroken(seq: number, tool: string, verdicts: readonly PolicyVerdict[]): void {
    const byKind = new Map<string, string[]>();
    for (const p of verdicts) {
      const inv = this.policy?.invariants?.find((i) => i.id === p.id);
      if (!inv) continue;
      const parts = byKind.get(p.kind) ?? [];
      parts.push(`invariant ${quote(p.id)}: ${invariantText(inv, p)}${p.evidence === null ? "" : ` (evidence seq ${p.evidence})`}`);
      byKind.set(p.kind, parts);
    }
    for (const [kind, parts] of byKind) this.report(`policy.${kind}` as RuleId, seq, `call to ${quote(tool)} breaks ${parts.join("; ")}`);
  }

  private duplicates(found: readonly Duplicate[]): void {
    for (const { later, first } of found)
      this.report(
        "effect.duplicate",
        later.seq,
        `repeats write call ${quote(first.call)} (seq ${first.seq}) to ${quote(later.tool)} with the same arguments, and both succeeded: the effect happened twice`,
      );
  }

  private onStateVerdict(seq: number, v: StateVerdict): void {
    if (v.problem === null || v.causedBy !== null) return; // nothing wrong, or it follows from a pending mismatch
    const message =
      v.problem === "patch"
        ? `the state change cannot be applied to the rebuilt state (${(v.error ?? "").slice(0, 120)})`
        : v.problem === "hash"
          ? "the state rebuilt from the events does not have the recorded hash"
          : "the state rebuilt from the events before this checkpoint does not have its recorded hash";
    this.report("state.hash-mismatch", seq, message);
  }
}

function effectsToSnapshot(fx: EffectFold): Pick<AnalyzerSnapshot, "writeCalls" | "callIds" | "earlyResults"> {
  const writeCalls: WriteCallRecord[] = [];
  for (const [, c] of fx.calls.entries()) {
    const { retryOf, duplicateOf, sent, ...rest } = c;
    writeCalls.push({
      ...rest,
      ...(sent ? {} : { unsent: true as const }),
      ...(retryOf !== null ? { retryOf } : {}),
      ...(duplicateOf !== null ? { duplicateOf } : {}),
    });
  }
  // Seq order: the order the calls were made, which is the order of their groups.
  writeCalls.sort((a, b) => a.seq - b.seq);
  return {
    writeCalls,
    callIds: [...fx.callIds.entries()],
    earlyResults: [...fx.early.entries()].map(([k, v]) => [k, { ...v }]),
  };
}

function effectsFromSnapshot(s: AnalyzerSnapshot): EffectFold {
  const calls: Array<[string, WriteCall]> = [];
  const groups = new Map<string, number[]>();
  for (const r of [...s.writeCalls].sort((a, b) => a.seq - b.seq)) {
    // Version 1 keyed groups by the canonical args themselves; version 2 by their hash.
    const group = s.version === 1 ? `${r.tool}\u0000${sha256Hex(r.group.slice(r.group.indexOf("\u0000") + 1))}` : r.group;
    const { unsent, ...rec } = r;
    calls.push([String(r.seq), { ...rec, group, sent: unsent !== true, retryOf: r.retryOf ?? null, duplicateOf: r.duplicateOf ?? null }]);
    const list = groups.get(group);
    if (list) list.push(r.seq);
    else groups.set(group, [r.seq]);
  }
  return {
    calls: PMap.from(calls),
    groups: PMap.from(groups),
    callIds: PMap.from(s.callIds),
    early: PMap.from(s.earlyResults.map(([k, v]) => [k, { ...v }])),
  };
}

/** A fold over one run's events. Restore a saved fold by passing its snapshot. */
export function createAnalyzer(snapshot?: AnalyzerSnapshot): Analyzer {
  return new RunAnalyzer(snapshot);
}

/** Whole-run convenience: stable-sorts by seq, keeps the first of duplicate seqs, folds. */
export function analyzeEvents(events: JournalEvent[]): Finding[] {
  const analyzer = createAnalyzer();
  for (const e of orderEvents(events)) analyzer.push(e);
  return analyzer.findings();
}

/** Several runs in one file: groups by run, analyses each on its own. */
export function analyzeJournal(events: JournalEvent[]): Array<Finding & { run: string }> {
  const out: Array<Finding & { run: string }> = [];
  for (const [run, list] of groupByRun(events)) {
    for (const f of analyzeEvents(list)) out.push({ run, ...f });
  }
  return out;
}
