/**
 * Summary rows from journal events, computed the way ingest computes the stored columns
 * (lib/journal/summary `eventColumns`). For tests, benches and journals opened without a
 * server; the viewer itself reads the columns the server stored.
 */
import { eventColumns } from "../journal/summary";
import type { JournalEvent } from "../journal/types";
import type { SummaryRow } from "./summary";

export function summaryRowsFromEvents(events: readonly JournalEvent[]): SummaryRow[] {
  const toolOfCall = new Map<string, string>();
  const rows: SummaryRow[] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    if (e.type === "tool.call" && typeof e.data.call === "string" && typeof e.data.tool === "string")
      toolOfCall.set(e.data.call, e.data.tool);
    const c = eventColumns(e, (call) => toolOfCall.get(call));
    rows.push({
      seq: e.seq,
      tsMs: Date.parse(e.ts),
      type: e.type,
      step: e.step ?? null,
      parent: e.parent ?? null,
      call: c.call,
      name: c.name,
      status: c.status,
      latencyMs: c.latencyMs,
      tokens: c.tokens,
      chain: e.hash ? "ok" : "none",
      redactions: 0,
    });
  }
  return rows;
}
