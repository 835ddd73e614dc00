/** NDJSON input of the line formats (Claude Code, Codex, OpenHands evaluation output). */
import { isRecord, type UnknownRecord } from "./json-utils";

/** Each non-blank line parsed; a line that is not a JSON object is skipped and counted in `warnings`. */
export function jsonLines(text: string, warnings: string[]): UnknownRecord[] {
  const out: UnknownRecord[] = [];
  let bad = 0;
  let firstBad = 0;
  let n = 0;
  for (const raw of text.split("\n")) {
    n++;
    const line = raw.trim();
    if (!line) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v)) {
        out.push(v);
        continue;
      }
    } catch {
      /* counted below */
    }
    if (bad++ === 0) firstBad = n;
    // a file cut mid-line (a session still being written) loses only that line
  }
  if (bad > 0) warnings.push(`${bad} line(s) are not JSON objects and were skipped (the first is line ${firstBad})`);
  return out;
}
