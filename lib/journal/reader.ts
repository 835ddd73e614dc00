/**
 * Streaming NDJSON journal reader. Works on bytes: gzip is recognised by its magic
 * number, lines are split on LF (a CR before it is dropped), a UTF-8 BOM on the first
 * line is skipped, each line is decoded strictly (invalid UTF-8 is an error for that
 * line), and a line longer than the limit is reported and skipped without buffering it.
 * Only one line is held at a time, so input size is bounded by nothing but the caller.
 */
import { DEFAULT_PARSE_LIMITS, parseLine, type ParseLimits } from "./parse-line";
import type { JournalEvent } from "./types";
import { lineMayMatchPattern } from "../redact/patterns";

export interface ReaderLimits extends ParseLimits {
  maxLineBytes: number;
}
export const DEFAULT_READER_LIMITS: ReaderLimits = { ...DEFAULT_PARSE_LIMITS, maxLineBytes: 8 * 1024 * 1024 };

export type ReaderItem =
  | {
      kind: "event";
      line: number;
      event: JournalEvent;
      bytes: number;
      /** false when the line's text cannot hold a secret (no pattern literal, key or escape). */
      mayHoldSecret: boolean;
      /** The event's keys are in canonical order (canonicalJsonOfSorted applies). */
      keysSorted: boolean;
      /**
       * The line's JSON text, when JSON.parse of it gives the event exactly (no integer
       * beyond 2^53): ingest on SQLite lets the writer thread derive the stored form from it.
       */
      text: string | null;
    }
  | { kind: "error"; line: number; message: string; run?: string; seq?: number };

export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** The chunks of a byte source, whether an async iterable or a web ReadableStream. */
export async function* byteChunks(source: ByteSource): AsyncGenerator<Uint8Array> {
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

// Compressed bytes fed to the inflater at a time.
const GUNZIP_PIECE = 4096;

/**
 * The first non-empty chunk of `source`, the rest after it, and whether the bytes start with
 * the gzip magic number; null for a source with no bytes. Both inflaters (maybeGunzip here,
 * lib/server/gunzip.ts) open a body with it.
 */
export async function gzipHead(source: ByteSource): Promise<{ head: Uint8Array; rest: AsyncIterable<Uint8Array>; gzip: boolean } | null> {
  const it = byteChunks(source)[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return null;
  const head = first.value;
  return { head, rest: { [Symbol.asyncIterator]: () => it }, gzip: head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b };
}

/**
 * Yields the bytes, gunzipped when they start with the gzip magic number (a local file:
 * the CLI). Bodies from the network are inflated by lib/server/gunzip.ts instead, with a
 * ratio cap, on node:zlib. An error of the source comes out as it is.
 */
export async function* maybeGunzip(source: ByteSource): AsyncGenerator<Uint8Array> {
  const opened = await gzipHead(source);
  if (opened === null) return;
  const { head, rest } = opened;
  if (!opened.gzip) {
    yield head;
    yield* rest;
    return;
  }
  const ds = new DecompressionStream("gzip");
  const writer = ds.writable.getWriter();
  const reader = (ds.readable as ReadableStream<Uint8Array>).getReader();
  let sourceError: unknown = null;
  let stopped = false;
  const feed = async (chunk: Uint8Array) => {
    for (let at = 0; at < chunk.length && !stopped; at += GUNZIP_PIECE) {
      const piece = chunk.subarray(at, at + GUNZIP_PIECE);
      await writer.write(piece as Uint8Array<ArrayBuffer>);
    }
  };
  const pump = (async () => {
    try {
      await feed(head);
      for await (const chunk of rest) {
        if (stopped) return;
        await feed(chunk);
      }
      await writer.close();
    } catch (e) {
      if (!stopped) sourceError = e;
      await writer.abort(e).catch(() => undefined);
    }
  })();
  let finished = false;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch {
        if (sourceError !== null) throw sourceError;
        throw new JournalReadError("the gzip stream is corrupt or truncated");
      }
      if (r.done) break;
      yield r.value;
    }
    finished = true;
  } finally {
    if (finished) await pump;
    else {
      // stopped early (a limit, or the consumer left): the pump may wait on the network,
      // so it is told to stop and not waited for
      stopped = true;
      void reader.cancel().catch(() => undefined);
      void pump;
    }
  }
}

export class JournalReadError extends Error {}

interface RawLine {
  line: number;
  /** The line's bytes (null: over the limit, skipped); unused when `text` is set. */
  bytes: Uint8Array | null;
  length: number;
  /** The line already decoded (lines that end inside one chunk). */
  text?: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Splits bytes into lines, synchronously per chunk (an async step per line costs more
 * than parsing the line). A line over the limit is reported with its length and skipped
 * without being held.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private partsLen = 0;
  private skipping = false;
  private skippedLen = 0;
  private line = 0;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Uint8Array, out: RawLine[] = []): RawLine[] {
    let start = 0;
    // The line begun in an earlier chunk, byte by byte; then every line that ends in this
    // chunk decoded at once (one decoder call a chunk, not a call and a view a line); then
    // what begins a line that ends in a later chunk.
    if (this.partsLen > 0 || this.skipping) {
      const nl = chunk.indexOf(0x0a);
      start = this.splitBytes(nl < 0 ? chunk : chunk.subarray(0, nl + 1), out);
      if (nl < 0) return out;
    }
    const last = chunk.lastIndexOf(0x0a);
    if (last >= start) {
      this.splitDecoded(chunk.subarray(start, last + 1), out);
      start = last + 1;
    }
    if (start < chunk.length) this.splitBytes(chunk.subarray(start), out);
    return out;
  }

  /** Lines of a region that ends with a newline, decoded as one string when it is valid UTF-8. */
  private splitDecoded(region: Uint8Array, out: RawLine[]): void {
    let text: string;
    try {
      text = decoder.decode(region);
    } catch {
      this.splitBytes(region, out); // each line decoded alone: only the bad one is an error
      return;
    }
    // A newline is one byte and one UTF-16 unit, and nothing else encodes as 0x0a: the
    // n-th newline of the bytes is the n-th of the text, which gives each line's byte length.
    let b = 0;
    let t = 0;
    while (b < region.length) {
      const bnl = region.indexOf(0x0a, b);
      const tnl = text.indexOf("\n", t);
      const length = bnl - b;
      this.line++;
      if (length > this.maxLineBytes) out.push({ line: this.line, bytes: null, length });
      else out.push({ line: this.line, bytes: null, length, text: text.slice(t, tnl) });
      b = bnl + 1;
      t = tnl + 1;
    }
  }

  /** Splits bytes into lines, carrying a line that does not end here to the next chunk. */
  private splitBytes(chunk: Uint8Array, out: RawLine[]): number {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.skipping) {
        this.skippedLen += piece.length;
      } else if (this.partsLen + piece.length > this.maxLineBytes) {
        this.skipping = true;
        this.skippedLen = this.partsLen + piece.length;
        this.parts = [];
        this.partsLen = 0;
      } else if (piece.length > 0) {
        // a view into the chunk is enough while the line ends inside it; copy only what
        // must outlive the chunk
        this.parts.push(nl < 0 ? piece.slice() : piece);
        this.partsLen += piece.length;
      }
      if (nl < 0) break;
      this.line++;
      if (this.skipping) {
        out.push({ line: this.line, bytes: null, length: this.skippedLen });
        this.skipping = false;
        this.skippedLen = 0;
      } else {
        out.push({ line: this.line, bytes: concat(this.parts, this.partsLen), length: this.partsLen });
      }
      this.parts = [];
      this.partsLen = 0;
      start = nl + 1;
    }
    return start;
  }

  end(out: RawLine[] = []): RawLine[] {
    if (this.skipping) out.push({ line: this.line + 1, bytes: null, length: this.skippedLen });
    else if (this.partsLen > 0) out.push({ line: this.line + 1, bytes: concat(this.parts, this.partsLen), length: this.partsLen });
    this.parts = [];
    this.partsLen = 0;
    this.skipping = false;
    return out;
  }
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

function readLine(raw: RawLine, limits: ReaderLimits): ReaderItem | null {
  const { line, bytes, length } = raw;
  let text: string;
  if (raw.text !== undefined) text = raw.text;
  else if (bytes === null) return { kind: "error", line, message: `line is ${length} bytes, over the ${limits.maxLineBytes}-byte limit` };
  else
    try {
      text = decoder.decode(bytes);
    } catch {
      // Name the run when the line still shows it, so only that run is rejected.
      const run = /"run"\s*:\s*"([A-Za-z0-9._:-]{1,128})"/.exec(lossy.decode(bytes))?.[1];
      return { kind: "error", line, message: "line is not valid UTF-8", run };
    }
  if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.trim() === "") return null;
  const r = parseLine(text, limits);
  if (r.ok)
    return {
      kind: "event",
      line,
      event: r.event,
      bytes: length,
      mayHoldSecret: r.secretKey || lineMayMatchPattern(text),
      keysSorted: r.keysSorted,
      text: r.plainJson ? text : null,
    };
  return { kind: "error", line, message: r.message, run: r.run, seq: r.seq };
}

/**
 * Reads a journal in batches (one per input chunk): every event, and every bad line with
 * its 1-based number. `gunzip: false` when the caller already opened a gzip body (with its
 * limits): a gzip inside it is then not inflated again, unbounded.
 */
export async function* readJournalBatches(
  source: ByteSource,
  limits: ReaderLimits = DEFAULT_READER_LIMITS,
  opts: { gunzip?: boolean } = {},
): AsyncGenerator<ReaderItem[]> {
  const splitter = new LineSplitter(limits.maxLineBytes);
  const toItems = (lines: RawLine[]) => {
    const items: ReaderItem[] = [];
    for (const l of lines) {
      const item = readLine(l, limits);
      if (item) items.push(item);
    }
    return items;
  };
  for await (const chunk of opts.gunzip === false ? byteChunks(source) : maybeGunzip(source)) {
    const items = toItems(splitter.push(chunk));
    if (items.length > 0) yield items;
  }
  const last = toItems(splitter.end());
  if (last.length > 0) yield last;
}

/** Reads a journal item by item (see readJournalBatches). */
export async function* readJournal(source: ByteSource, limits: ReaderLimits = DEFAULT_READER_LIMITS): AsyncGenerator<ReaderItem> {
  for await (const batch of readJournalBatches(source, limits)) yield* batch;
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
