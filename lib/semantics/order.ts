/**
 * The order the rules read a journal in (docs/journal-format.md, "Order" and "Gaps"): a
 * run's events by seq, the first of duplicate seqs kept, each run on its own.
 */
import type { JournalEvent } from "../journal/types";

/** Stable sort by seq, first of duplicate seqs kept (the reading the rules require). */
export function orderEvents(events: readonly JournalEvent[]): JournalEvent[] {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const out: JournalEvent[] = [];
  for (const e of sorted) if (out.length === 0 || out[out.length - 1].seq !== e.seq) out.push(e);
  return out;
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
