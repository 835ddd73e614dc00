import "server-only";
/**
 * `importBytes` for files too big to hold twice: the OpenTelemetry-family JSON formats (OTLP,
 * Tempo, Jaeger) are read as a byte stream by `importTraceStream`, and the runs go to the
 * ingest as NDJSON produced run by run, so neither the file text, its parsed tree nor the
 * whole journal is ever in memory. Journals stream as they always did; the other trace
 * formats are small single documents and go through `importBytes` unchanged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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
  type NormalizedSpan,
  type SpanSpill,
  type StreamedImport,
} from "../importers";
import { byteChunks, type ByteSource } from "../journal/reader";
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
 * Spans parked in a temporary file between reading and deriving their trace's run: memory
 * keeps only each trace's list of (offset, length), so a 50 MB export needs no more memory
 * than its largest trace.
 */
class FileSpill implements SpanSpill {
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-spans-"));
  private readonly file = path.join(this.dir, "spans.ndjson");
  private readonly fd = fs.openSync(this.file, "w+");
  private size = 0;
  private readonly where = new Map<string, number[]>();

  put(spans: NormalizedSpan[]): void {
    for (const span of spans) {
      const bytes = Buffer.from(JSON.stringify(span) + "\n");
      fs.writeSync(this.fd, bytes, 0, bytes.length, this.size);
      let list = this.where.get(span.traceId);
      if (!list) this.where.set(span.traceId, (list = []));
      list.push(this.size, bytes.length);
      this.size += bytes.length;
    }
  }

  take(traceId: string): NormalizedSpan[] {
    const list = this.where.get(traceId) ?? [];
    this.where.delete(traceId);
    const out: NormalizedSpan[] = [];
    for (let i = 0; i < list.length; i += 2) {
      const buf = Buffer.alloc(list[i + 1]);
      fs.readSync(this.fd, buf, 0, buf.length, list[i]);
      out.push(JSON.parse(buf.toString("utf8")) as NormalizedSpan);
    }
    return out;
  }

  close(): void {
    fs.closeSync(this.fd);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Imports one file (a path, or its bytes as a stream) of any supported format, with the
 * result `importBytes` gives. OTLP JSON, Tempo and Jaeger exports stream; the import is still
 * atomic per run, and a file that turns out invalid midway stores nothing.
 */
export async function importFileStreaming(
  db: Db,
  source: string | ByteSource,
  fileName?: string,
  opts: ImportFileOptions = {},
): Promise<ImportBytesResult> {
  let bytes: AsyncIterable<Uint8Array> =
    typeof source === "string" ? fs.createReadStream(source, { highWaterMark: 1 << 20 }) : byteChunks(source);
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

  const spill = new FileSpill();
  try {
    let converted: StreamedImport;
    try {
      converted = await importTraceStream(stream, { fileName, spill });
    } catch (e) {
      if (e instanceof ImportError) return { runs: [], errors: [], warnings: [], committed: false, unreadable: e.message, detected };
      throw e;
    }
    const r = await ingestBytes(db, ndjsonOfRuns(converted.runs()), {
      mode: "upload",
      source: "import",
      fidelity: "trace",
      onProgress: opts.onProgress,
      contiguousRuns: true,
    });
    // Read after the ingest: deriving the runs added its warnings.
    return { ...r, detected, importWarnings: converted.warnings };
  } finally {
    spill.close();
  }
}
