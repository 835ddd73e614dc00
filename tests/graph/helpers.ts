import fs from "node:fs";
import path from "node:path";
import { buildRunIndex, decodeSummary, encodeSummary, summaryRowsFromEvents, type RunIndex } from "@/lib/graph";
import type { JournalEvent } from "@/lib/journal/types";

export function readExample(name: string): JournalEvent[] {
  const text = fs.readFileSync(path.resolve("tests/fixtures/examples", name), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalEvent);
}

export function indexOf(events: JournalEvent[]): RunIndex {
  const rows = summaryRowsFromEvents(events);
  return buildRunIndex(decodeSummary(encodeSummary(String(events[0]?.run ?? "r"), rows)));
}
