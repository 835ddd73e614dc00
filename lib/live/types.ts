/**
 * Live actions' shapes, shared by the server (lib/server/live), the server actions and the
 * inspector. Pure: no I/O here.
 */
import type { JsonValue } from "../journal/types";

export const EXECUTOR_KINDS = ["tool", "model"] as const;
export type ExecutorKind = (typeof EXECUTOR_KINDS)[number];

/** An executor as anyone but the live action itself sees it: never its credential. */
export interface ExecutorInfo {
  id: string;
  project: string;
  kind: ExecutorKind;
  name: string;
  environment: string;
  url: string;
  hasCredential: boolean;
  createdMs: number;
  createdBy: string;
}

export type LiveKind = "reconcile" | "re-execute" | "continue";

/** A branch run's reconcile and a recorded call with its outcome: the call ledger's (lib/semantics). */
export type { BranchReconcile, RecordedCall } from "../semantics";
import type { RecordedCall } from "../semantics";

export interface ExecutorChoice {
  id: string;
  environment: string;
  name: string;
  url: string;
}

/** What re-executing a recorded tool call would send, and what it may repeat. */
export interface ReexecutePreview {
  run: string;
  seq: number;
  call: string;
  tool: string;
  effect: string;
  args: JsonValue;
  idempotencyKey: string;
  keySource: "recorded" | "new";
  /** every recorded call of the same operation, this one included, in seq order */
  same: RecordedCall[];
  /** of those: unknown or timeout outcomes nobody reconciled (the action refuses while there is one) */
  unknown: RecordedCall[];
  /** of those: writes confirmed by an ok result or a reconcile as succeeded */
  confirmed: RecordedCall[];
  executor: ExecutorChoice;
  /** the exact request the executor gets (the credential not shown: it is added on sending) */
  request: { method: "POST"; url: string; headers: Record<string, string>; body: JsonValue };
  /** why the action is refused now, or null */
  refusal: string | null;
  /** the operator must type the tool's name: production, or a repeat of a confirmed write */
  needsOperationName: boolean;
  /** ties the confirmation to this preview: what was shown is what is sent */
  digest: string;
}

export interface ReconcilePreview {
  run: string;
  call: string;
  tool: string;
  /** seq the branch forks after: the unknown/timeout result, or the call when it has no result */
  resultSeq: number;
  /** the latest result's status, "no result" when it has none */
  status: string;
  key: string;
  executor: ExecutorChoice;
  refusal: string | null;
}
