/**
 * What is known of whether each recorded tool call acted: the one reading of a run's calls
 * that every live action (re-execute, reconcile, continue, resume) and the inspector's
 * "Reconcile" use, so none of them lets a call through that another would hold back.
 *
 * A call is *open* (nobody knows whether it acted) when its latest result is `unknown` or
 * `timeout`, or when a call that may write has no result at all (the agent stopped, or is
 * still waiting, after sending it), and no reconcile came after it. A call a live branch
 * recorded as not sent (`live.pending`) did not act. A reconcile, in the journal or on a
 * branch run, is the latest word on the call it names.
 */
import { obj, str } from "../journal/values";
import type { BranchReconcile, RecordedCall } from "./types";

/** What of an event this reads: a journal event, or the browser's stored one. */
export interface CallEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Every tool.call of the run with its latest result and reconcile (journal and branch runs). */
export function recordedCalls(events: readonly CallEvent[], branchReconciles: readonly BranchReconcile[] = []): RecordedCall[] {
  const out: RecordedCall[] = [];
  const byCall = new Map<string, RecordedCall>();
  for (const e of events) {
    const d = e.data;
    if (e.type === "tool.call") {
      const rec: RecordedCall = {
        seq: e.seq,
        call: str(d.call) ?? "",
        tool: str(d.tool) ?? "",
        effect: str(d.effect) ?? "",
        key: str(d.idempotencyKey) ?? "",
        sent: obj(d.live)?.pending !== true,
        status: null,
        resultSeq: null,
        externalId: null,
        reconciled: null,
      };
      out.push(rec);
      byCall.set(rec.call, rec);
    } else if (e.type === "tool.result") {
      const rec = byCall.get(str(d.call) ?? "\u0000");
      if (!rec) continue;
      rec.status = str(d.status) ?? null;
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

/** ReconcilePreview.status of a call with no result. */
export const NO_RESULT = "no result";

/** The latest result says the call may have acted, or nothing says whether it did. */
export function unknownOutcome(c: RecordedCall): boolean {
  if (!c.sent) return false;
  if (c.status === null) return c.effect !== "read"; // an effect not recorded counts as a write
  return c.status === "unknown" || c.status === "timeout";
}

/** Nobody knows whether the call acted: an unknown outcome that no reconcile answered. */
export function isOpen(c: RecordedCall): boolean {
  return c.reconciled === null && unknownOutcome(c);
}

/** The call is known to have acted: an ok result, or reconciled as succeeded. */
export function isConfirmed(c: RecordedCall): boolean {
  return c.reconciled === null ? c.status === "ok" : c.reconciled.outcome === "succeeded";
}
