/**
 * A Retrace journal (NDJSON) read through the same line parser the server uses; events are
 * grouped by run and ordered by seq. Bad lines are reported, not fatal.
 */
import { parseLine } from "../journal/parse-line";
import type { JournalEvent } from "../journal/types";
import type { ImportResult } from "./types";

export function importJournal(text: string): ImportResult {
  const warnings: string[] = [];
  const byRun = new Map<string, JournalEvent[]>();
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (i === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() === "") return;
    const r = parseLine(line);
    if (!r.ok) {
      warnings.push(`line ${i + 1}: ${r.message}`);
      return;
    }
    const list = byRun.get(r.event.run) ?? [];
    list.push(r.event);
    byRun.set(r.event.run, list);
  });
  const runs = [...byRun.entries()].map(([runId, events]) => ({ runId, events: [...events].sort((a, b) => a.seq - b.seq) }));
  return { format: "retrace-journal", runs, warnings };
}
