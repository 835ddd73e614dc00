/** NDJSON input of the line formats (Claude Code, Codex, Gemini CLI, Qwen Code, OpenHands evaluation output). */
import { contentId, isRecord, type UnknownRecord } from "./json-utils";

/**
 * Parses lines one at a time, as `text.split("\n")` gives them: each non-blank line that is a
 * JSON object is kept; any other is skipped and counted. The whole-text and the streaming
 * readers both go through it, so they keep and count the same lines.
 */
export class JsonLineReader {
  readonly records: UnknownRecord[] = [];
  private n = 0;
  private bad = 0;
  private firstBad = 0;

  line(raw: string): void {
    const record = this.next(raw);
    if (record) this.records.push(record);
  }

  /** The next line parsed, without keeping it (undefined when blank or not an object; counted). */
  next(raw: string): UnknownRecord | undefined {
    this.n++;
    const line = raw.trim();
    if (!line) return undefined;
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v)) return v;
    } catch {
      /* counted below */
    }
    // a file cut mid-line (a session still being written) loses only that line
    if (this.bad++ === 0) this.firstBad = this.n;
    return undefined;
  }

  /** The lines kept; says in `warnings` how many were skipped and where the first was. */
  finish(warnings: string[]): UnknownRecord[] {
    if (this.bad > 0) warnings.push(`${this.bad} line(s) are not JSON objects and were skipped (the first is line ${this.firstBad})`);
    return this.records;
  }
}

/** Each non-blank line parsed; a line that is not a JSON object is skipped and counted in `warnings`. */
export function jsonLines(text: string, warnings: string[]): UnknownRecord[] {
  const reader = new JsonLineReader();
  for (const raw of text.split("\n")) reader.line(raw);
  return reader.finish(warnings);
}

/**
 * A line-format file as its importer reads it: the parsed lines and the id of the whole
 * content (for a file without a session id). Built from the whole text (`linesOfText`) or
 * from a byte stream line by line (`stream/json-lines.ts`), which never holds the text.
 */
export interface JsonLinesFile {
  records: UnknownRecord[];
  /** `contentId` of the text (BOM dropped). */
  contentId(): string;
}

export function linesOfText(text: string, warnings: string[]): JsonLinesFile {
  return { records: jsonLines(text, warnings), contentId: () => contentId(text) };
}
