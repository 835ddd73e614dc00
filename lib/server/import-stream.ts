import "server-only";
/**
 * `importBytes` for files too big to hold twice: the OpenTelemetry-family JSON formats (OTLP,
 * Tempo, Jaeger) are read as a byte stream by `importTraceStream`, and the runs go to the
 * ingest as NDJSON produced run by run, so neither the file text, its parsed tree nor the
 * whole journal is ever in memory. Journals stream as they always did; the other trace
 * formats are small single documents and go through `importBytes` unchanged.
 */
import fs from "node:fs";
import { canonicalJson } from "../canonical";
import {
  detectFormat,
  DETECT_HEAD_BYTES,
  FORMAT_LABELS,
  ImportError,
  importTraceStream,
  peekBytes,
  STREAM_HEAD_BYTES,
  STREAMABLE_FORMATS,
  type ImportedRun,
  type StreamedImport,
} from "../importers";
import type { ByteSource } from "../journal/reader";
import type { Db } from "./db";
import { importBytes, type ImportBytesResult } from "./imports";
import { ingestBytes } from "./service";

export interface ImportFileOptions {
  /** Bytes read so far (progress bars). */
  onBytes?: (total: number) => void;
  /** Events stored so far. */
  onProgress?: (events: number) => void;
}

// Lines are grouped into chunks of about this size: large enough to keep per-chunk overhead
// low, small enough that one huge run never becomes one huge string.
const NDJSON_CHUNK_CHARS = 1 << 20;

/** The runs as NDJSON, one chunk at a time; each run is derived only when the ingest asks. */
export async function* ndjsonOfRuns(runs: Iterable<ImportedRun>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let lines: string[] = [];
  let size = 0;
  let any = false;
  for (const run of runs) {
    for (const event of run.events) {
      const line = canonicalJson(event);
      lines.push(line);
      size += line.length + 1;
      if (size >= NDJSON_CHUNK_CHARS) {
        yield encoder.encode(lines.join("\n") + "\n");
        any = true;
        lines = [];
        size = 0;
      }
    }
  }
  // An import without events sends what importBytes sends: one empty line.
  if (lines.length > 0 || !any) yield encoder.encode(lines.join("\n") + "\n");
}

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
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function* counted(source: AsyncIterable<Uint8Array>, onBytes: (total: number) => void): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    onBytes(total);
    yield chunk;
  }
}

async function readAll(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    parts.push(chunk);
    size += chunk.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Imports one file (a path, or its bytes as a stream) of any supported format, with the
 * result `importBytes` gives. OTLP JSON, Tempo and Jaeger exports stream; the import is still
 * atomic per run, and a file that turns out invalid midway stores nothing.
 */
export async function importFileStreaming(db: Db, source: string | ByteSource, fileName?: string, opts: ImportFileOptions = {}): Promise<ImportBytesResult> {
  let bytes: AsyncIterable<Uint8Array> = typeof source === "string" ? fs.createReadStream(source, { highWaterMark: 1 << 20 }) : iterate(source);
  if (opts.onBytes) bytes = counted(bytes, opts.onBytes);
  const { head, stream } = await peekBytes(bytes, STREAM_HEAD_BYTES);

  // The same routing as importBytes, from the same head.
  const isGzip = head[0] === 0x1f && head[1] === 0x8b;
  const detected = isGzip
    ? { format: "retrace-journal" as const, label: FORMAT_LABELS["retrace-journal"] }
    : detectFormat(new TextDecoder().decode(head.subarray(0, DETECT_HEAD_BYTES)), fileName);
  if (detected.format === "retrace-journal" || detected.format === "unknown") {
    const r = await ingestBytes(db, stream, { mode: "upload", source: "import", onProgress: opts.onProgress });
    return { ...r, detected };
  }
  if (!STREAMABLE_FORMATS.has(detected.format)) return importBytes(db, await readAll(stream), fileName);

  let converted: StreamedImport;
  try {
    converted = await importTraceStream(stream, { fileName });
  } catch (e) {
    if (e instanceof ImportError) return { runs: [], errors: [], warnings: [], committed: false, unreadable: e.message, detected };
    throw e;
  }
  const r = await ingestBytes(db, ndjsonOfRuns(converted.runs()), { mode: "upload", source: "import", fidelity: "trace", onProgress: opts.onProgress });
  // Read after the ingest: deriving the runs added its warnings.
  return { ...r, detected, importWarnings: converted.warnings };
}
