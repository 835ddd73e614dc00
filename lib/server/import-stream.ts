import "server-only";
/**
 * The trace-export half of `importStream` (service.ts), loaded on first use: a stream whose
 * format was detected as a trace export becomes batches of reader items for ingest. OTLP
 * JSON, Tempo and Jaeger are read as a byte stream (`convertTraceStream`), their spans parked
 * in a private temporary file until each trace's run is derived; the other formats are
 * single documents, read whole (up to the body limit). Each run's events become reader items
 * as ingest asks for them (`eventBatches`), never NDJSON text, so neither the file, its
 * parsed tree nor the whole journal is ever in memory.
 */
import fs from "node:fs";
import path from "node:path";
import {
  convertTraceStream,
  ImportError,
  LAZY_FORMATS,
  LINE_FORMATS,
  STREAMABLE_FORMATS,
  type NormalizedSpan,
  type SourceFormat,
  type SpanSpill,
} from "../importers";
import { eventBatches } from "../journal/event-items";
import type { ReaderItem } from "../journal/reader";
import { limitBytes } from "./body-limits";
import type { IngestLimits } from "./config";
import type { Redactor } from "../redact";
import { makeTempDir, removeTempDir } from "./temp-files";

/**
 * Spans parked in a temporary file between reading and deriving their trace's run: memory
 * keeps only each trace's list of (offset, length), so a 50 MB export needs no more memory
 * than its largest trace. Spans are redacted before they are written (a killed import
 * leaves no secret on disk), as the OTLP receiver redacts spans on arrival; the runs are
 * then derived from redacted spans and ingest counts their placeholders
 * (IngestOptions.redactedBefore). The folder is private (temp-files.ts: 0700, swept at the
 * next start when its process died), the file 0600, both removed on close.
 */
class FileSpill implements SpanSpill {
  readonly dir = makeTempDir("spans");
  private readonly file = path.join(this.dir, "spans.ndjson");
  private readonly fd: number;
  private size = 0;
  private readonly where = new Map<string, number[]>();

  constructor(private readonly redactor: Redactor) {
    this.fd = fs.openSync(this.file, "w+", 0o600);
  }

  put(spans: NormalizedSpan[]): void {
    for (const span of spans) {
      const bytes = Buffer.from(JSON.stringify(this.redactor.redact(span).value) + "\n");
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
    removeTempDir(this.dir);
  }
}

interface OpenedTrace {
  /** The converted runs' events, run after run, as reader items (lines numbered as in their NDJSON). */
  items: AsyncIterable<ReaderItem[]>;
  /** What the conversion noticed; complete once `items` has been consumed. */
  warnings: string[];
  /** Removes the temporary file; call once ingest is done (or failed). */
  close: () => void;
  /** The events come from spans redacted in the spill file: ingest counts their placeholders. */
  redacted: boolean;
}

/**
 * Reads a trace export of a known format from `stream` (the rest of the body after the
 * detection peek). Answers `{unreadable}` when the file is not valid in that format.
 */
export async function openTrace(
  format: SourceFormat,
  stream: AsyncIterable<Uint8Array>,
  opts: { fileName?: string; limits: IngestLimits; redactor: Redactor },
): Promise<OpenedTrace | { unreadable: string }> {
  const streamed = STREAMABLE_FORMATS.has(format);
  // only the streamed formats spill; a single document is read whole, within the document limit
  const spill = new FileSpill(opts.redactor);
  try {
    // span formats spill, lazy formats convert a line at a time: both under the body limit only
    const source =
      streamed || LAZY_FORMATS.has(format)
        ? stream
        : LINE_FORMATS.has(format)
          ? limitBytes(stream, opts.limits.maxSessionBytes, "RETRACE_MAX_SESSION_BYTES")
          : limitBytes(stream, opts.limits.maxDocumentBytes, "RETRACE_MAX_DOCUMENT_BYTES");
    const converted = await convertTraceStream(format, source, {
      fileName: opts.fileName,
      spill,
      maxMemberBytes: opts.limits.maxDocumentBytes,
    });
    return {
      items: eventBatches(converted.runs(), opts.limits),
      warnings: converted.warnings,
      close: () => spill.close(),
      redacted: streamed,
    };
  } catch (e) {
    spill.close();
    if (e instanceof ImportError) return { unreadable: e.message };
    throw e;
  }
}
