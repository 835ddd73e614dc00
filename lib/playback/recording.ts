/**
 * A recorded run as playback reads it: every tool call of the call ledger (lib/semantics)
 * with its arguments, its canonical arguments key, its latest result and reconcile, by
 * tool name. Built once per recording; matching a call against it is `playToolCall`.
 */
import type { JournalEvent, JsonObject, JsonValue } from "../journal/types";
import { callLedger, effectOf, groupOf, isConfirmed, type BranchReconcile } from "../semantics";

/** One recorded tool call, ready to answer a call asked again. */
export interface RecordedTool {
  seq: number;
  call: string;
  tool: string;
  /** how its `effect` is read (lib/semantics `effectOf`: a missing one is a write) */
  effect: "read" | "write";
  args: JsonValue;
  /** tool + SHA-256 of the canonical args (lib/semantics `groupOf`): equal keys are the same call */
  argsKey: string;
  /** the latest tool.result's data, null when none came */
  result: JsonObject | null;
  reconciled: "succeeded" | "failed" | null;
  /** the recorded idempotency key, null when none */
  key: string | null;
  /** the call ledger's `confirmed`: an ok result, or reconciled as succeeded */
  confirmed: boolean;
}

export interface Recording {
  /** tool name → its recorded calls, in seq order */
  readonly byTool: ReadonlyMap<string, readonly RecordedTool[]>;
}

/** The recording of `events` (any order), with reconciles made on branch runs counted as the journal's own. */
export function indexRecording(events: readonly JournalEvent[], branchReconciles: readonly BranchReconcile[] = []): Recording {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const bySeq = new Map<number, JournalEvent>();
  for (const e of sorted) if (e.type === "tool.call" || e.type === "tool.result") bySeq.set(e.seq, e);
  const byTool = new Map<string, RecordedTool[]>();
  for (const c of callLedger(sorted, branchReconciles)) {
    const call = bySeq.get(c.seq);
    if (typeof call?.data.tool !== "string") continue;
    const outcome = c.reconciled?.outcome;
    const args = call.data.args ?? null;
    const list = byTool.get(c.tool) ?? [];
    list.push({
      seq: c.seq,
      call: c.call,
      tool: c.tool,
      effect: effectOf(c.effect),
      args,
      argsKey: groupOf(c.tool, args),
      result: c.resultSeq === null ? null : (bySeq.get(c.resultSeq)?.data ?? null),
      reconciled: outcome === "succeeded" || outcome === "failed" ? outcome : null,
      key: c.key === "" ? null : c.key,
      confirmed: isConfirmed(c),
    });
    byTool.set(c.tool, list);
  }
  return { byTool };
}
