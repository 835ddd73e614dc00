/**
 * Reads a line-format file (Claude Code, Codex, Gemini CLI `.jsonl`, Qwen Code, Copilot CLI) from its
 * bytes line by line: each line is parsed as it arrives and its text dropped, so memory
 * holds the parsed lines but never the file's text or an array of its lines. The id of the
 * whole content is hashed on the way (SHA-256 of the text, BOM dropped, as `contentId`).
 *
 * A file that is not a log of lines (its first non-blank line is not a JSON object, or it has
 * one line only: a pretty-printed or one-line JSON document, as Gemini CLI's legacy `.json`)
 * is kept as text instead, and the caller reads it as the whole-document path does, so the
 * two paths give the same runs whatever the file.
 */
import { sha256Hasher } from "../../canonical";
import { isRecord } from "../json-utils";
import { JsonLineReader, type JsonLinesFile } from "../lines";
import { textLines } from "./text-lines";

export type ReadLines = { lines: JsonLinesFile; warnings: string[] } | { text: string };

/** Parses the first line to tell a log of lines from a document; JSON.parse as the reader does. */
function isObjectLine(raw: string): boolean {
  try {
    return isRecord(JSON.parse(raw));
  } catch {
    return false;
  }
}

export async function readJsonLines(source: AsyncIterable<Uint8Array>): Promise<ReadLines> {
  const hash = sha256Hasher();
  const reader = new JsonLineReader();
  // the text so far, kept until a second non-blank line shows the file is a log of lines
  let kept: string[] | null = [];
  let nonBlank = 0;
  let document = false;
  const onText = (text: string) => {
    hash.update(text);
    if (kept) kept.push(text);
  };
  for await (const raw of textLines(source, onText)) {
    if (document) continue; // read to the end, kept whole
    if (kept && raw.trim()) {
      nonBlank++;
      if (nonBlank === 1 && !isObjectLine(raw.trim())) {
        document = true;
        continue;
      }
      if (nonBlank === 2) kept = null;
    }
    reader.line(raw);
  }
  if (kept) return { text: kept.join("") };
  const warnings: string[] = [];
  const records = reader.finish(warnings);
  const id = hash.hex().slice(0, 16);
  return { lines: { records, contentId: () => id }, warnings };
}
