/**
 * A journal file (NDJSON, one event a line) read for a replay. Light on purpose: the
 * recorder package bundles no schema validator, so a line is checked for the fields a
 * replay reads (`run`, `seq`, `type`, `data`) and nothing more; Retrace's import is the
 * full check. A line that fails is an error naming the file and its line number, and
 * nothing is returned.
 */
import { readFile } from "node:fs/promises";
import type { JournalEvent } from "../journal/types";

const SHOWN_ERRORS = 5;

function checked(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const e = value as Record<string, unknown>;
  if (typeof e.run !== "string" || e.run === "") return "no run id (`run`)";
  if (typeof e.seq !== "number" || !Number.isInteger(e.seq) || e.seq < 0) return "`seq` is not a non-negative integer";
  if (typeof e.type !== "string" || e.type === "") return "no event type (`type`)";
  if (e.data === null || typeof e.data !== "object" || Array.isArray(e.data)) return "`data` is not an object";
  return null;
}

/** The events of a journal's text; throws naming `where` and each bad line's number. */
export function parseJournalText(text: string, where: string): JournalEvent[] {
  const events: JournalEvent[] = [];
  const errors: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      errors.push(`${where}:${i + 1}: not JSON (${(e as Error).message})`);
      return;
    }
    const problem = checked(value);
    if (problem) errors.push(`${where}:${i + 1}: ${problem}`);
    else events.push(value as JournalEvent);
  });
  if (errors.length > 0)
    throw new Error(
      `${where} is not a readable journal (${errors.length} bad line${errors.length === 1 ? "" : "s"}):\n${errors.slice(0, SHOWN_ERRORS).join("\n")}`,
    );
  return events;
}

/** The events of a journal file (see the file comment). */
export async function readJournalEvents(file: string): Promise<JournalEvent[]> {
  return parseJournalText(await readFile(file, "utf8"), file);
}
