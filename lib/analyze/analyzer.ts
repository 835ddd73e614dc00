/**
 * The 15 analysis rules of journal format v1 as one incremental fold over a run's events.
 *
 * Every rule is decided by what came before the event (in seq order), so the fold keeps
 * only the little each rule needs: the previous hash, the rebuilt state, open approvals,
 * and the write calls that a later call could retry or duplicate. The whole of that
 * state can be written out (`snapshot`) and picked up in another process, so a live run
 * is analysed as it streams in without re-reading what was already seen.
 */
import { canonicalJson, hashOf, sha256Hex } from "../canonical";
import type { Finding, JournalEvent, JsonObject, JsonValue, RuleId, RunPolicy, Seq } from "../journal/types";
import { findSecrets, hasSecret, type SecretHit } from "../redact/patterns";
import { EMPTY_STATE, EMPTY_STATE_HASH, nextState, replacesState, type RunState } from "../state";
import { verifyEvent, type ChainVerdict } from "../journal/chain";
import { quote, RULE_SEVERITY, safePath, secretName } from "./describe";
import { readPolicy } from "./policy";
import { epochNanos, secondsToNanos } from "./time";

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

type ToolStatus = "ok" | "error" | "timeout" | "unknown";

/** A `write` tool.call, kept for the retry and duplicate rules. */
export interface WriteCallRecord {
  seq: number;
  call: string;
  tool: string;
  /** tool + SHA-256 of the canonical args: calls in one group are "the same call" for the effect rules. */
  group: string;
  /** The idempotency key, "" when missing. */
  key: string;
  /** Status of the latest tool.result for this call, null before any. */
  status: ToolStatus | null;
  /** A reconcile naming this call came after its latest result. */
  reconciled: boolean;
  /** Some tool.result for this call had status ok. */
  ok: boolean;
  /** externalId of the first ok result, null when it had none. */
  externalId: string | null;
}

/** A tool.result that arrived before any tool.call with its call id. */
export interface EarlyResult {
  status: ToolStatus;
  externalId: string | null;
}

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
  /** Recorded hash of the last state or checkpoint event (approval.stale-state compares to it). */
  recordedStateHash: string;
  mismatchPending: boolean;
  stepStarts: number;
  stopSeen: boolean;
  pastStopReported: boolean;
  /** call id → approval ids of the approval.requests naming it. */
  requests: Array<[string, string[]]>;
  /** approval id → its last decision. */
  decisions: Array<[string, string]>;
  writeCalls: WriteCallRecord[];
  /** call id → seq of the latest tool.call with that id. */
  callIds: Array<[string, number]>;
  /** Results that arrived before any tool.call with their call id. */
  earlyResults: Array<[string, EarlyResult]>;
  findings: Finding[];
}

/** Seq, then rule id in code-unit order (locale-independent, so every process sorts alike). */
export function compareFindings(a: Finding, b: Finding): number {
  return a.seq - b.seq || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

/** recordedStateHash when the state's hash cannot be known (see AnalyzerSnapshot.stateRedacted). */
const UNKNOWN_STATE_HASH = "";

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function obj(v: JsonValue | undefined): JsonObject | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

function isToolStatus(v: JsonValue | undefined): v is ToolStatus {
  return v === "ok" || v === "error" || v === "timeout" || v === "unknown";
}

function safeCanonical(v: JsonValue | undefined): string {
  try {
    return canonicalJson(v ?? null);
  } catch {
    // No canonical form (lone surrogate): such args can only equal themselves textually.
    return "\u0000" + JSON.stringify(v ?? null, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));
  }
}

/**
 * "Same tool, canonically equal args", as a short key: the SHA-256 of the canonical args
 * rather than the args themselves, so a live run's snapshot does not carry every payload.
 */
function groupOf(tool: string, args: JsonValue | undefined): string {
  return `${tool}\u0000${sha256Hex(safeCanonical(args))}`;
}

function safeHash(state: RunState): string | null {
  try {
    return hashOf(state);
  } catch {
    return null;
  }
}

class RunAnalyzer implements Analyzer {
  private run: string | null = null;
  private lastSeq = -1;
  private lastHash: string | null = null;
  private policy: RunPolicy | null = null;
  private state: RunState = EMPTY_STATE;
  /** Hash of `state`, computed when first needed (null: not yet). */
  private stateHashCache: string | null = EMPTY_STATE_HASH;
  /** See AnalyzerSnapshot.stateRedacted. */
  private stateRedacted = false;
  private recordedStateHash = EMPTY_STATE_HASH;
  private mismatchPending = false;
  private stepStarts = 0;
  private stopSeen = false;
  private pastStopReported = false;
  private requests = new Map<string, string[]>();
  private decisions = new Map<string, string>();
  private writeCalls = new Map<number, WriteCallRecord>();
  private groups = new Map<string, WriteCallRecord[]>();
  private callIds = new Map<string, number>();
  private earlyResults = new Map<string, EarlyResult>();
  private found = new Map<string, Finding>();

  constructor(snapshot: AnalyzerSnapshot | undefined) {
    if (snapshot) this.restore(snapshot);
  }

  push(event: JournalEvent, hints?: PushHints): void {
    if (this.run === null) this.run = event.run;
    else if (event.run !== this.run) return; // one analyzer per run; analyzeJournal groups
    const seq = event.seq;
    // The caller sorts; a seq at or below the last one is a duplicate (or too late to fold).
    if (seq <= this.lastSeq) return;

    if (seq > this.lastSeq + 1) {
      const missing = seq - this.lastSeq - 1;
      this.report(
        "journal.gap",
        seq,
        this.lastSeq < 0
          ? `the run starts at seq ${seq}: seq 0–${seq - 1} are missing`
          : `${missing} event${missing === 1 ? "" : "s"} missing before this one (seq ${this.lastSeq + 1}${missing > 1 ? `–${seq - 1}` : ""})`,
      );
    }
    const prevHash = this.lastSeq === seq - 1 && this.lastHash !== null ? this.lastHash : undefined;
    const chain = hints?.chain ?? verifyChainLink(prevHash, event);
    if (chain === "fail") this.chainFailed(seq);
    this.lastSeq = seq;
    this.lastHash = typeof event.hash === "string" ? event.hash : null;

    this.checkSecrets(event, hints?.secrets);
    const data = event.data;
    switch (event.type) {
      case "run.start":
        if (this.policy === null) this.policy = readPolicy(data.policy);
        break;
      case "step.start":
        this.stepStarts++;
        this.checkPastStop(event);
        if (this.policy?.maxSteps !== undefined && this.stepStarts === this.policy.maxSteps + 1) {
          this.report("loop.max-steps", seq, `step.start number ${this.stepStarts} exceeds policy.maxSteps = ${this.policy.maxSteps}`);
        }
        break;
      case "model.request":
        this.checkPastStop(event);
        if (data.context === undefined && data.messages === undefined) {
          this.report(
            "context.missing",
            seq,
            `model.request ${quote(data.call)} has neither a context reference nor messages: what the model saw is not recorded`,
          );
        }
        break;
      case "context":
        this.checkInstructions(event);
        break;
      case "retrieval":
        this.checkRetrieval(event);
        break;
      case "tool.call":
        this.checkPastStop(event);
        this.onToolCall(event);
        break;
      case "tool.result":
        this.onToolResult(event);
        break;
      case "reconcile": {
        const rec = this.recordFor(str(data.call));
        if (rec && rec.status !== null) rec.reconciled = true;
        break;
      }
      case "approval.request": {
        const call = str(data.call);
        const approval = str(data.approval);
        if (call !== undefined && approval !== undefined) {
          const ids = this.requests.get(call) ?? [];
          if (!ids.includes(approval)) ids.push(approval);
          this.requests.set(call, ids);
        }
        break;
      }
      case "approval.decision": {
        const stateHash = str(data.stateHash);
        if (stateHash !== undefined && this.recordedStateHash !== UNKNOWN_STATE_HASH && stateHash !== this.recordedStateHash) {
          this.report(
            "approval.stale-state",
            seq,
            `approval ${quote(data.approval)} was decided on state ${stateHash.slice(0, 19)}…, but the run state at this point is ${this.recordedStateHash.slice(0, 19)}…`,
          );
        }
        const approval = str(data.approval);
        const decision = str(data.decision);
        if (approval !== undefined && decision !== undefined) this.decisions.set(approval, decision);
        break;
      }
      case "state":
      case "checkpoint":
        this.onState(event, hints?.redacted === true);
        break;
      case "decision": {
        if (data.action === "stop" || obj(data.stop)?.met === true) this.stopSeen = true;
        break;
      }
      default:
        break;
    }
  }

  findings(): Finding[] {
    return [...this.found.values()].sort(compareFindings);
  }

  snapshot(): AnalyzerSnapshot {
    return {
      version: 2,
      run: this.run,
      lastSeq: this.lastSeq,
      lastHash: this.lastHash,
      policy: this.policy === null ? null : { ...this.policy },
      state: this.state,
      ...(this.stateRedacted ? { stateRedacted: true } : {}),
      recordedStateHash: this.recordedStateHash,
      mismatchPending: this.mismatchPending,
      stepStarts: this.stepStarts,
      stopSeen: this.stopSeen,
      pastStopReported: this.pastStopReported,
      requests: [...this.requests].map(([k, v]) => [k, [...v]]),
      decisions: [...this.decisions],
      writeCalls: [...this.writeCalls.values()].map((r) => ({ ...r })),
      callIds: [...this.callIds],
      earlyResults: [...this.earlyResults].map(([k, v]) => [k, { ...v }]),
      findings: this.findings().map((f) => ({ ...f })),
    };
  }

  private restore(s: AnalyzerSnapshot): void {
    if (s.version !== 1 && s.version !== 2) throw new Error(`unsupported analyzer snapshot version ${String(s.version)}`);
    this.run = s.run;
    this.lastSeq = s.lastSeq;
    this.lastHash = s.lastHash;
    this.policy = s.policy === null ? null : { ...s.policy };
    this.state = s.state;
    this.stateHashCache = null;
    this.stateRedacted = s.stateRedacted === true;
    this.recordedStateHash = s.recordedStateHash;
    this.mismatchPending = s.mismatchPending;
    this.stepStarts = s.stepStarts;
    this.stopSeen = s.stopSeen;
    this.pastStopReported = s.pastStopReported;
    this.requests = new Map(s.requests.map(([k, v]) => [k, [...v]]));
    this.decisions = new Map(s.decisions);
    for (const r of s.writeCalls) {
      // Version 1 keyed groups by the canonical args themselves; version 2 by their hash.
      const group = s.version === 1 ? `${r.tool}\u0000${sha256Hex(r.group.slice(r.group.indexOf("\u0000") + 1))}` : r.group;
      this.addWriteCall({ ...r, group });
    }
    this.callIds = new Map(s.callIds);
    this.earlyResults = new Map(s.earlyResults.map(([k, v]) => [k, { ...v }]));
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

  private checkPastStop(event: JournalEvent): void {
    if (!this.stopSeen || this.pastStopReported) return;
    this.pastStopReported = true;
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
    const now = epochNanos(event.ts);
    const docs = event.data.documents;
    if (now === null || !Array.isArray(docs)) return;
    const limit = now - secondsToNanos(maxAge);
    const stale: string[] = [];
    for (const doc of docs) {
      const indexedAt = str(obj(doc)?.indexedAt);
      if (indexedAt === undefined) continue;
      const at = epochNanos(indexedAt);
      if (at !== null && at < limit) stale.push(quote(obj(doc)?.id ?? "?"));
    }
    if (stale.length > 0) {
      this.report(
        "retrieval.stale",
        event.seq,
        `document${stale.length === 1 ? "" : "s"} ${stale.join(", ")} indexed more than ${maxAge} s (policy.retrievalMaxAgeSeconds) before the retrieval`,
      );
    }
  }

  private isApproved(call: string): boolean {
    for (const id of this.requests.get(call) ?? []) if (this.decisions.get(id) === "approved") return true;
    return false;
  }

  private recordFor(call: string | undefined): WriteCallRecord | undefined {
    if (call === undefined) return undefined;
    const seq = this.callIds.get(call);
    return seq === undefined ? undefined : this.writeCalls.get(seq);
  }

  private addWriteCall(rec: WriteCallRecord): void {
    this.writeCalls.set(rec.seq, rec);
    const group = this.groups.get(rec.group);
    if (group) group.push(rec);
    else this.groups.set(rec.group, [rec]);
  }

  private onToolCall(event: JournalEvent): void {
    const data = event.data;
    const seq = event.seq;
    const call = str(data.call) ?? "";
    const tool = str(data.tool) ?? "";
    this.callIds.set(call, seq);
    if (this.policy?.requireApproval?.includes(tool) && !this.isApproved(call)) {
      const asked = (this.requests.get(call) ?? []).length > 0;
      this.report(
        "approval.missing",
        seq,
        `${quote(tool)} requires approval (policy.requireApproval) and call ${quote(call)} ${asked ? "had no approved decision before it" : "was never submitted for approval"}`,
      );
    }
    if (data.effect !== "write") return;
    const key = str(data.idempotencyKey) ?? "";
    if (key === "")
      this.report(
        "effect.no-idempotency",
        seq,
        `write call ${quote(call)} to ${quote(tool)} has no idempotency key: a retry could repeat the effect`,
      );
    const rec: WriteCallRecord = {
      seq,
      call,
      tool,
      group: groupOf(tool, data.args),
      key,
      status: null,
      reconciled: false,
      ok: false,
      externalId: null,
    };
    for (const earlier of this.groups.get(rec.group) ?? []) {
      if ((earlier.status === "unknown" || earlier.status === "timeout") && !earlier.reconciled && (key === "" || key !== earlier.key)) {
        this.report(
          "effect.retry-after-unknown",
          seq,
          `retries write call ${quote(earlier.call)} (seq ${earlier.seq}, outcome ${earlier.status}, never reconciled) with ${key === "" ? "no idempotency key" : "a different idempotency key"}: the effect may now have happened twice`,
        );
        break;
      }
    }
    this.addWriteCall(rec);
    const early = this.earlyResults.get(call);
    if (early) {
      this.earlyResults.delete(call);
      this.applyResult(rec, early.status, early.externalId);
    }
  }

  private onToolResult(event: JournalEvent): void {
    const data = event.data;
    if (data.partial === true)
      this.report("tool.partial", event.seq, `the result of call ${quote(data.call)} is partial: later steps worked on incomplete data`);
    const call = str(data.call);
    if (call === undefined || !isToolStatus(data.status)) return;
    const externalId = str(data.externalId) ?? null;
    if (!this.callIds.has(call)) {
      if (!this.earlyResults.has(call)) this.earlyResults.set(call, { status: data.status, externalId });
      return;
    }
    const rec = this.recordFor(call);
    if (rec) this.applyResult(rec, data.status, externalId);
  }

  private applyResult(rec: WriteCallRecord, status: ToolStatus, externalId: string | null): void {
    rec.status = status;
    rec.reconciled = false;
    if (status !== "ok" || rec.ok) return;
    rec.ok = true;
    rec.externalId = externalId;
    for (const other of this.groups.get(rec.group) ?? []) {
      if (other === rec || !other.ok) continue;
      const sameOperation = rec.key !== "" && rec.key === other.key && rec.externalId !== null && rec.externalId === other.externalId;
      if (sameOperation) continue;
      const [first, later] = other.seq < rec.seq ? [other, rec] : [rec, other];
      this.report(
        "effect.duplicate",
        later.seq,
        `repeats write call ${quote(first.call)} (seq ${first.seq}) to ${quote(rec.tool)} with the same arguments, and both succeeded: the effect happened twice`,
      );
    }
  }

  private rebuiltHash(): string | null {
    if (this.stateHashCache === null) this.stateHashCache = safeHash(this.state);
    return this.stateHashCache;
  }

  private onState(event: JournalEvent, redacted: boolean): void {
    const data = event.data;
    const recorded = str(data.hash);
    if (redacted) this.stateRedacted = true;
    if (this.stateRedacted) {
      const replaced = !redacted && replacesState(event);
      if (!replaced) {
        // Continued from a redacted snapshot: the state is not the recorder's, so neither its
        // hash nor (without a recorded one) the hash approvals are compared with is known.
        this.state = nextState(this.state, event).state;
        this.stateHashCache = null;
        this.recordedStateHash = recorded ?? UNKNOWN_STATE_HASH;
        return;
      }
      // replaced whole: the recorder's state again, checked from here on; the state a
      // checkpoint was taken from is the one not known, so its own check is skipped
      this.stateRedacted = false;
      if (event.type === "checkpoint") this.mismatchPending = true;
    }
    if (event.type === "checkpoint") {
      if (this.mismatchPending) {
        this.mismatchPending = false;
      } else if (recorded !== undefined && this.rebuiltHash() !== recorded) {
        this.report(
          "state.hash-mismatch",
          event.seq,
          `the state rebuilt from the events before this checkpoint does not have its recorded hash`,
        );
      }
    }
    const step = nextState(this.state, event);
    if (step.state !== this.state) {
      this.state = step.state;
      this.stateHashCache = null;
    }
    if (event.type === "state" && !this.mismatchPending) {
      if (!step.ok) {
        this.mismatchPending = true;
        this.report(
          "state.hash-mismatch",
          event.seq,
          `the state change cannot be applied to the rebuilt state (${step.error.slice(0, 120)})`,
        );
      } else if (recorded !== undefined && this.rebuiltHash() !== recorded) {
        this.mismatchPending = true;
        this.report("state.hash-mismatch", event.seq, `the state rebuilt from the events does not have the recorded hash`);
      }
    }
    this.recordedStateHash = recorded ?? this.rebuiltHash() ?? this.recordedStateHash;
  }
}

/** The chain verdict of one event; an event with no canonical form cannot verify. */
function verifyChainLink(prevHash: string | undefined, event: JournalEvent): ChainVerdict {
  try {
    return verifyEvent(prevHash, event);
  } catch {
    return typeof event.hash === "string" && (event.seq === 0 || prevHash !== undefined) ? "fail" : "none";
  }
}

/** A fold over one run's events. Restore a saved fold by passing its snapshot. */
export function createAnalyzer(snapshot?: AnalyzerSnapshot): Analyzer {
  return new RunAnalyzer(snapshot);
}

/** Stable sort by seq, first of duplicate seqs kept (the reading the rules require). */
export function orderEvents(events: readonly JournalEvent[]): JournalEvent[] {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const out: JournalEvent[] = [];
  for (const e of sorted) if (out.length === 0 || out[out.length - 1].seq !== e.seq) out.push(e);
  return out;
}

/** Whole-run convenience: stable-sorts by seq, keeps the first of duplicate seqs, folds. */
export function analyzeEvents(events: JournalEvent[]): Finding[] {
  const analyzer = createAnalyzer();
  for (const e of orderEvents(events)) analyzer.push(e);
  return analyzer.findings();
}

/** Events grouped by run, runs in order of first appearance. */
export function groupByRun(events: readonly JournalEvent[]): Map<string, JournalEvent[]> {
  const runs = new Map<string, JournalEvent[]>();
  for (const e of events) {
    const list = runs.get(e.run);
    if (list) list.push(e);
    else runs.set(e.run, [e]);
  }
  return runs;
}

/** Several runs in one file: groups by run, analyses each on its own. */
export function analyzeJournal(events: JournalEvent[]): Array<Finding & { run: string }> {
  const out: Array<Finding & { run: string }> = [];
  for (const [run, list] of groupByRun(events)) {
    for (const f of analyzeEvents(list)) out.push({ run, ...f });
  }
  return out;
}
