/**
 * What a recorded call answers when it is asked again: its result as the tool gave it, or
 * `ok` for a call reconciled as succeeded (the reconcile says it acted; its error is not
 * repeated).
 */
import type { JsonValue } from "../journal/types";
import type { RecordedTool } from "./recording";

/** A tool's answer (the executor protocol's shape, docs/live-actions.md). */
export interface ToolAnswer {
  status: "ok" | "error" | "timeout" | "unknown";
  result?: JsonValue;
  error?: JsonValue;
  externalId?: string;
}

const STATUSES = ["ok", "error", "timeout", "unknown"] as const;

/** The recorded call's answer. */
export function recordedAnswer(r: RecordedTool): ToolAnswer {
  const d = r.result ?? {};
  const status = STATUSES.find((s) => s === d.status) ?? "unknown";
  return {
    status: r.reconciled === "succeeded" && status !== "ok" ? "ok" : status,
    ...(d.result !== undefined ? { result: d.result } : {}),
    ...(d.error !== undefined && r.reconciled !== "succeeded" ? { error: d.error } : {}),
    ...(typeof d.externalId === "string" ? { externalId: d.externalId } : {}),
  };
}
