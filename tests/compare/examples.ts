/** The example journals as compare reads them, and the edits the compare tests make to them. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CompareEvent } from "../../lib/compare";

export const EXAMPLES = path.resolve(__dirname, "../fixtures/examples");

export const load = (file: string): CompareEvent[] =>
  readFileSync(path.join(EXAMPLES, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CompareEvent);

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The events renumbered 0, 1, 2…: an edit that inserts or drops one keeps seqs dense. */
export const resequence = (events: CompareEvent[]) => events.map((e, i) => ({ ...e, seq: i }));
