/**
 * Effects and outcomes (docs/journal-format.md, `effect.*` rules, "Retries" and
 * "Duplicates"): the `write` calls of a run grouped as "the same call" (tool + canonical
 * args), the latest outcome of each, a `reconcile` clearing an unknown or timed-out one,
 * and results that arrive before their call. Pure and structure-sharing like the rest of
 * the fold: a step returns a new fold and shares every map it did not touch.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent, JsonValue, ToolContract } from "../journal/types";
import { str } from "../journal/values";
import { contractEffect } from "./call-effect";
import { needsIdempotencyKey } from "./contracts";
import { isUnsent, outcomeUnknown } from "./ledger";
import { PMap } from "./pmap";

export type ToolStatus = "ok" | "error" | "timeout" | "unknown";

/** A `write` tool.call and what is known of its outcome so far. */
export interface WriteCall {
  readonly seq: number;
  readonly call: string;
  readonly tool: string;
  /** tool + SHA-256 of the canonical args: calls in one group are "the same call". */
  readonly group: string;
  /** The idempotency key, "" when missing or empty (effect.no-idempotency). */
  readonly key: string;
  /** Status of the latest tool.result for this call, null before any. */
  readonly status: ToolStatus | null;
  /** A reconcile naming this call came after its latest result (or after the call, with none). */
  readonly reconciled: boolean;
  /** false for a call a live branch recorded as not sent (`live.pending`): it did not act. */
  readonly sent: boolean;
  /** Some tool.result for this call had status ok. */
  readonly ok: boolean;
  /** externalId of the first ok result, null when it had none. */
  readonly externalId: string | null;
  /** seq of the earlier call this one retries after an unknown outcome (effect.retry-after-unknown). */
  readonly retryOf: number | null;
  /** seq of the earlier call this one duplicates (effect.duplicate); may be learnt at a later result. */
  readonly duplicateOf: number | null;
}

/** A tool.result that arrived before any tool.call with its call id. */
export interface EarlyResult {
  readonly status: ToolStatus;
  readonly externalId: string | null;
}

export interface EffectFold {
  /** String(seq) → the write call at that seq. */
  readonly calls: PMap<WriteCall>;
  /** group → seqs of its write calls, in seq order. */
  readonly groups: PMap<readonly number[]>;
  /** call id → seq of the latest tool.call with that id (any effect). */
  readonly callIds: PMap<number>;
  /** call id → the first result that came before any call with that id. */
  readonly early: PMap<EarlyResult>;
}

export const EMPTY_EFFECTS: EffectFold = Object.freeze({
  calls: PMap.empty<WriteCall>(),
  groups: PMap.empty<readonly number[]>(),
  callIds: PMap.empty<number>(),
  early: PMap.empty<EarlyResult>(),
});

/** A later call found to duplicate an earlier one (both got ok). */
export interface Duplicate {
  /** The later call, where effect.duplicate is reported. */
  readonly later: WriteCall;
  readonly first: WriteCall;
}

/** What a tool.call means for effects; null for a call that is not a `write`. */
export interface CallEffect {
  readonly noIdempotencyKey: boolean;
  /** The earlier call this one retries (its outcome unknown, timeout or never reported, not reconciled), or null. */
  readonly retryOf: WriteCall | null;
  /** Duplicates found at this call (a result that came before it was ok). */
  readonly duplicates: readonly Duplicate[];
}

export interface ResultEffect {
  /** seq of the write call the result belongs to, null when none (early, not a write, no status). */
  readonly of: number | null;
  readonly duplicates: readonly Duplicate[];
}

const NONE: readonly never[] = Object.freeze([]);
const NO_RESULT: ResultEffect = Object.freeze({ of: null, duplicates: NONE });

export function isToolStatus(v: JsonValue | undefined): v is ToolStatus {
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
export function groupOf(tool: string, args: JsonValue | undefined): string {
  return `${tool}\u0000${sha256Hex(safeCanonical(args))}`;
}

/** The write call at a seq (its verdicts: retryOf, duplicateOf, key ""), if that seq is one. */
export function writeCallAt(fx: EffectFold, seq: number): WriteCall | undefined {
  return fx.calls.get(String(seq));
}

/** The write call a call id names now (the latest tool.call with that id, if a write). */
function writeCallOf(fx: EffectFold, call: string): WriteCall | undefined {
  const seq = fx.callIds.get(call);
  return seq === undefined ? undefined : fx.calls.get(String(seq));
}

/** The fold with a result applied to `rec`, and the duplicates its first ok reveals. */
function applyResult(
  fx: EffectFold,
  rec: WriteCall,
  status: ToolStatus,
  externalId: string | null,
): { fx: EffectFold; duplicates: readonly Duplicate[] } {
  if (status !== "ok" || rec.ok) {
    const next = rec.status === status && !rec.reconciled ? rec : { ...rec, status, reconciled: false };
    return { fx: next === rec ? fx : { ...fx, calls: fx.calls.set(String(rec.seq), next) }, duplicates: NONE };
  }
  let self: WriteCall = { ...rec, status, reconciled: false, ok: true, externalId };
  let calls = fx.calls;
  let duplicates: Duplicate[] | null = null;
  for (const seq of fx.groups.get(rec.group) ?? NONE) {
    if (seq === rec.seq) continue;
    const other = calls.get(String(seq));
    if (other === undefined || !other.ok) continue;
    const sameOperation = self.key !== "" && self.key === other.key && self.externalId !== null && self.externalId === other.externalId;
    if (sameOperation) continue;
    let first: WriteCall, later: WriteCall;
    if (other.seq < self.seq) {
      first = other;
      if (self.duplicateOf === null) self = { ...self, duplicateOf: other.seq };
      later = self;
    } else {
      first = self;
      later = other.duplicateOf === null ? { ...other, duplicateOf: self.seq } : other;
      if (later !== other) calls = calls.set(String(other.seq), later);
    }
    (duplicates ??= []).push({ later, first });
  }
  calls = calls.set(String(self.seq), self);
  return { fx: { ...fx, calls }, duplicates: duplicates ?? NONE };
}

/** A tool.call: records the call id, and for a write call its group, key and retry. */
export function effectCall(fx: EffectFold, event: JournalEvent, contract?: ToolContract): { fx: EffectFold; effect: CallEffect | null } {
  const data = event.data;
  const seq = event.seq;
  const call = str(data.call) ?? "";
  const callIds = fx.callIds.get(call) === seq ? fx.callIds : fx.callIds.set(call, seq);
  if (contractEffect(data, contract) !== "write") return { fx: callIds === fx.callIds ? fx : { ...fx, callIds }, effect: null };
  const tool = str(data.tool) ?? "";
  const key = str(data.idempotencyKey) ?? "";
  const group = groupOf(tool, data.args);
  const seqs = fx.groups.get(group) ?? NONE;
  let retryOf: WriteCall | null = null;
  for (const s of seqs) {
    const earlier = fx.calls.get(String(s));
    if (earlier === undefined) continue;
    if (!earlier.reconciled && outcomeUnknown(earlier.sent, "write", earlier.status) && (key === "" || key !== earlier.key)) {
      retryOf = earlier;
      break;
    }
  }
  const rec: WriteCall = {
    seq,
    call,
    tool,
    group,
    key,
    status: null,
    reconciled: false,
    sent: !isUnsent(data),
    ok: false,
    externalId: null,
    retryOf: retryOf?.seq ?? null,
    duplicateOf: null,
  };
  let next: EffectFold = {
    calls: fx.calls.set(String(seq), rec),
    groups: fx.groups.set(group, [...seqs, seq]),
    callIds,
    early: fx.early,
  };
  let duplicates: readonly Duplicate[] = NONE;
  const early = next.early.get(call);
  if (early !== undefined) {
    next = { ...next, early: next.early.delete(call) };
    ({ fx: next, duplicates } = applyResult(next, rec, early.status, early.externalId));
  }
  return { fx: next, effect: { noIdempotencyKey: key === "" && needsIdempotencyKey(contract), retryOf, duplicates } };
}

/** A tool.result: the latest outcome of its call, or an early result kept for the call to come. */
export function effectResult(fx: EffectFold, event: JournalEvent): { fx: EffectFold; effect: ResultEffect } {
  const data = event.data;
  const call = str(data.call);
  const status = data.status;
  if (call === undefined || !isToolStatus(status)) return { fx, effect: NO_RESULT };
  const externalId = str(data.externalId) ?? null;
  if (!fx.callIds.has(call)) {
    const early = fx.early.has(call) ? fx.early : fx.early.set(call, { status, externalId });
    return { fx: early === fx.early ? fx : { ...fx, early }, effect: NO_RESULT };
  }
  const rec = writeCallOf(fx, call);
  if (rec === undefined) return { fx, effect: NO_RESULT };
  const out = applyResult(fx, rec, status, externalId);
  return {
    fx: out.fx,
    effect: out.duplicates.length === 0 ? { of: rec.seq, duplicates: NONE } : { of: rec.seq, duplicates: out.duplicates },
  };
}

/** A reconcile: clears the open outcome of the write call it names (a result or none yet); `of` is that call's seq. */
export function effectReconcile(fx: EffectFold, event: JournalEvent): { fx: EffectFold; of: number | null } {
  const call = str(event.data.call);
  const rec = call === undefined ? undefined : writeCallOf(fx, call);
  if (rec === undefined) return { fx, of: null };
  if (rec.reconciled) return { fx, of: rec.seq };
  return { fx: { ...fx, calls: fx.calls.set(String(rec.seq), { ...rec, reconciled: true }) }, of: rec.seq };
}
