/**
 * Reads a line-format file (Claude Code, Codex, Gemini CLI `.jsonl`, Qwen Code) from its
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
  const decoder = new TextDecoder();
  const hash = sha256Hasher();
  const reader = new JsonLineReader();
  // the text so far, kept until a second non-blank line shows the file is a log of lines
  let kept: string[] | null = [];
  let nonBlank = 0;
  let document = false;
  let partial: string[] = [];
  let atStart = true;

  const line = (raw: string) => {
    if (kept && raw.trim()) {
      nonBlank++;
      if (nonBlank === 1 && !isObjectLine(raw.trim())) document = true;
      else if (nonBlank === 2) kept = null;
    }
    if (!document) reader.line(raw);
  };
  const write = (text: string) => {
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length === 0) return;
    hash.update(text);
    if (kept) kept.push(text);
    if (document) return;
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0 && !document; nl = text.indexOf("\n", from)) {
      const piece = text.slice(from, nl);
      const raw = partial.length > 0 ? partial.join("") + piece : piece;
      partial = [];
      from = nl + 1;
      line(raw);
    }
    if (document) partial = [];
    else if (from < text.length) partial.push(text.slice(from));
  };

  for await (const chunk of source) write(decoder.decode(chunk, { stream: true }));
  write(decoder.decode());
  if (!document) line(partial.join(""));
  if (kept) return { text: kept.join("") };
  const warnings: string[] = [];
  const records = reader.finish(warnings);
  const id = hash.hex().slice(0, 16);
  return { lines: { records, contentId: () => id }, warnings };
}
