/**
 * Streaming NDJSON journal reader. Works on bytes: gzip is recognised by its magic
 * number, lines are split on LF (a CR before it is dropped), a UTF-8 BOM on the first
 * line is skipped, each line is decoded strictly (invalid UTF-8 is an error for that
 * line), and a line longer than the limit is reported and skipped without buffering it.
 * Only one line is held at a time, so input size is bounded by nothing but the caller.
 */
import { DEFAULT_PARSE_LIMITS, parseLine, type ParseLimits } from "./parse-line";
import type { JournalEvent } from "./types";

export interface ReaderLimits extends ParseLimits {
  maxLineBytes: number;
}
export const DEFAULT_READER_LIMITS: ReaderLimits = { ...DEFAULT_PARSE_LIMITS, maxLineBytes: 8 * 1024 * 1024 };

export type ReaderItem =
  | { kind: "event"; line: number; event: JournalEvent; bytes: number }
  | { kind: "error"; line: number; message: string; run?: string; seq?: number };

export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

async function* iterate(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (source as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Yields the bytes, gunzipped when they start with the gzip magic number. */
export async function* maybeGunzip(source: ByteSource): AsyncGenerator<Uint8Array> {
  const it = iterate(source)[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return;
  const head = first.value;
  const rest: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => it,
  };
  if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
    yield head;
    yield* rest;
    return;
  }
  const ds = new DecompressionStream("gzip");
  const writer = ds.writable.getWriter();
  const pump = (async () => {
    try {
      await writer.write(head as Uint8Array<ArrayBuffer>);
      for await (const chunk of rest) await writer.write(chunk as Uint8Array<ArrayBuffer>);
      await writer.close();
    } catch (e) {
      await writer.abort(e).catch(() => undefined);
    }
  })();
  try {
    for await (const chunk of iterate(ds.readable as ReadableStream<Uint8Array>)) yield chunk;
  } catch {
    throw new JournalReadError("the gzip stream is corrupt or truncated");
  } finally {
    await pump;
  }
}

export class JournalReadError extends Error {}

/** Splits bytes into lines. Yields {line, bytes} or {line, tooLong}. */
export async function* splitLines(
  source: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
): AsyncGenerator<{ line: number; bytes: Uint8Array | null; length: number }> {
  let parts: Uint8Array[] = [];
  let partsLen = 0;
  let skipping = false;
  let skippedLen = 0;
  let line = 0;
  for await (const chunk of source) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (skipping) {
        skippedLen += piece.length;
      } else if (partsLen + piece.length > maxLineBytes) {
        skipping = true;
        skippedLen = partsLen + piece.length;
        parts = [];
        partsLen = 0;
      } else if (piece.length > 0) {
        parts.push(piece);
        partsLen += piece.length;
      }
      if (nl < 0) break;
      line++;
      if (skipping) {
        yield { line, bytes: null, length: skippedLen };
        skipping = false;
        skippedLen = 0;
      } else {
        yield { line, bytes: concat(parts, partsLen), length: partsLen };
      }
      parts = [];
      partsLen = 0;
      start = nl + 1;
    }
  }
  if (skipping) yield { line: line + 1, bytes: null, length: skippedLen };
  else if (partsLen > 0) yield { line: line + 1, bytes: concat(parts, partsLen), length: partsLen };
}

function concat(parts: Uint8Array[], len: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Reads a journal: every event, and every bad line with its 1-based line number. */
export async function* readJournal(source: ByteSource, limits: ReaderLimits = DEFAULT_READER_LIMITS): AsyncGenerator<ReaderItem> {
  for await (const { line, bytes, length } of splitLines(maybeGunzip(source), limits.maxLineBytes)) {
    if (bytes === null) {
      yield { kind: "error", line, message: `line is ${length} bytes, over the ${limits.maxLineBytes}-byte limit` };
      continue;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      // Name the run when the line still shows it, so only that run is rejected.
      const run = /"run"\s*:\s*"([A-Za-z0-9._:-]{1,128})"/.exec(lossy.decode(bytes))?.[1];
      yield { kind: "error", line, message: "line is not valid UTF-8", run };
      continue;
    }
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") continue;
    const r = parseLine(text, limits);
    if (r.ok) yield { kind: "event", line, event: r.event, bytes: length };
    else yield { kind: "error", line, message: r.message, run: r.run, seq: r.seq };
  }
}

/** Reads a whole journal from a string (tests, the CLI's small files, the browser). */
export async function readJournalText(text: string, limits?: ReaderLimits) {
  const bytes = new TextEncoder().encode(text);
  const events: JournalEvent[] = [];
  const errors: Array<Extract<ReaderItem, { kind: "error" }>> = [];
  for await (const item of readJournal(
    (async function* () {
      yield bytes;
    })(),
    limits,
  )) {
    if (item.kind === "event") events.push(item.event);
    else errors.push(item);
  }
  return { events, errors };
}
