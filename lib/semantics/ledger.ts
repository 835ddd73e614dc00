/**
 * The call ledger (docs/journal-format.md, "Calls and their outcomes"): every `tool.call`
 * of a run with its latest result and reconcile, in the journal and on branch runs, and the
 * two tests every reader asks of a call: *open* (nobody knows whether it acted) and
 * *confirmed* (it is known to have acted). The analyzer's effect fold (effects.ts) decides
 * a retry with `unknownOutcome`, the live actions, the resume plan, the inspector's
 * Reconcile button and the inspect answer read `callLedger`, so no reader lets a call
 * through that another holds back.
 */
import type { JsonObject, JsonValue, RunPolicy } from "../journal/types";
import { obj, str } from "../journal/values";
import { contractEffect, effectOf } from "./call-effect";
import { contractOf, readPolicy } from "./policy";

/** What of an event the ledger reads: a journal event, or the browser's stored one. */
export interface CallEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A reconcile made by a live action on a branch run (LiveBranch), for a call of the original. */
export interface BranchReconcile {
  run: string;
  call: string;
  outcome: "succeeded" | "failed";
  externalId: string | null;
}

/** One recorded tool.call with what is known of its outcome. */
export interface RecordedCall {
  seq: number;
  call: string;
  tool: string;
  /** `data.effect` as recorded ("" when absent), or the contract's declared effect where it overrides an inferred one; `effectOf` says how it is read */
  effect: string;
  key: string;
  /** false for a call a live branch recorded as not sent (`live.pending`): it did not act */
  sent: boolean;
  /** the latest tool.result's status, null before any */
  status: string | null;
  resultSeq: number | null;
  externalId: string | null;
  /** a reconcile of this call after its latest result (or after the call, with none): in the journal, or on a branch run */
  reconciled: { outcome: string; externalId: string | null; where: "journal" | string; seq: number | null } | null;
}

/** ReconcilePreview.status and the plan's words for a call with no result. */
export const NO_RESULT = "no result";

/**
 * Nothing says the call did not act, and nothing says it did: its latest result is
 * `unknown` or `timeout`, or a write was sent and no result came. A read with no result
 * read nothing that needs settling; a call never sent did not act.
 */
export function unknownOutcome(c: { readonly sent: boolean; readonly effect: string; readonly status: string | null }): boolean {
  return outcomeUnknown(c.sent, effectOf(c.effect), c.status);
}

/** `unknownOutcome` on its fields (the effect fold's hot path asks it without building an object). */
export function outcomeUnknown(sent: boolean, effect: "read" | "write", status: string | null): boolean {
  if (!sent) return false;
  if (status === null) return effect === "write";
  return status === "unknown" || status === "timeout";
}

/** Open: an unknown outcome that no reconcile answered. */
export function isOpen(c: RecordedCall): boolean {
  return c.reconciled === null && unknownOutcome(c);
}

/** Confirmed: an ok result, or reconciled as succeeded. */
export function isConfirmed(c: RecordedCall): boolean {
  return c.reconciled === null ? c.status === "ok" : c.reconciled.outcome === "succeeded";
}

/** A `live.pending` tool.call: written by a live branch, never sent. */
export function isUnsent(data: Readonly<Record<string, unknown>>): boolean {
  return obj(data.live)?.pending === true;
}

/** The call's effect as the ledger keeps it: the contract's declared one where it overrides (contracts.ts), else as recorded. */
function effectRead(d: Readonly<Record<string, unknown>>, policy: RunPolicy | null): string {
  const recorded = str(d.effect) ?? "";
  const contract = contractOf(policy, str(d.tool) ?? "");
  if (contract?.effect === undefined) return recorded;
  return contractEffect(d as JsonObject, contract);
}

/**
 * Every tool.call of the run (events in seq order) with its latest result and reconcile. A
 * result or reconcile belongs to the latest tool.call with its call id; a result that came
 * before any call with its id is the first such call's (as in the effect fold). A branch
 * reconcile answers a call that is still open.
 */
export function callLedger(events: readonly CallEvent[], branchReconciles: readonly BranchReconcile[] = []): RecordedCall[] {
  const out: RecordedCall[] = [];
  const byCall = new Map<string, RecordedCall>();
  const early = new Map<string, { status: string; seq: number; externalId: string | null }>();
  // the run's policy: a contract's declared effect overrides an inferred one, as in the fold
  let policy: RunPolicy | null = null;
  for (const e of events) {
    const d = e.data;
    if (e.type === "run.start" && policy === null) policy = readPolicy(d.policy as JsonValue | undefined);
    else if (e.type === "tool.call") {
      const id = str(d.call) ?? "";
      const rec: RecordedCall = {
        seq: e.seq,
        call: id,
        tool: str(d.tool) ?? "",
        effect: effectRead(d, policy),
        key: str(d.idempotencyKey) ?? "",
        sent: !isUnsent(d),
        status: null,
        resultSeq: null,
        externalId: null,
        reconciled: null,
      };
      const first = early.get(id);
      if (first) {
        rec.status = first.status;
        rec.resultSeq = first.seq;
        rec.externalId = first.externalId;
        early.delete(id);
      }
      out.push(rec);
      byCall.set(id, rec);
    } else if (e.type === "tool.result") {
      const id = str(d.call);
      const status = str(d.status);
      if (id === undefined || status === undefined) continue;
      const rec = byCall.get(id);
      if (!rec) {
        if (!early.has(id)) early.set(id, { status, seq: e.seq, externalId: str(d.externalId) ?? null });
        continue;
      }
      rec.status = status;
      rec.resultSeq = e.seq;
      rec.externalId = str(d.externalId) ?? rec.externalId;
      rec.reconciled = null;
    } else if (e.type === "reconcile") {
      const rec = byCall.get(str(d.call) ?? "\u0000");
      if (!rec) continue;
      const ev = obj(d.evidence);
      const ext = ev ? (str(ev.externalId) ?? str(ev.paymentId)) : undefined;
      rec.reconciled = { outcome: str(d.outcome) ?? "", externalId: ext ?? null, where: "journal", seq: e.seq };
    }
  }
  for (const b of branchReconciles) {
    const rec = byCall.get(b.call);
    if (!rec || !isOpen(rec)) continue;
    rec.reconciled = { outcome: b.outcome, externalId: b.externalId, where: b.run, seq: null };
  }
  return out;
}
