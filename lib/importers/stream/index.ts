/**
 * Streaming import of the OpenTelemetry-family JSON formats (OTLP JSON and arrays of export
 * requests, Tempo `batches`, Jaeger). The file is read as a byte stream; each span object is
 * built alone, normalised at once and dropped, so memory holds the normalised spans (ids,
 * times, attribute values) instead of the file text plus its parsed tree. Runs are derived
 * per trace only when asked for, so at most one run's events exist at a time.
 *
 * Output is identical to `importTrace` on the same bytes (tests/importers/streaming.test.ts).
 * Other formats are single documents without a span stream (Langfuse, SWE-agent, OpenHands,
 * Inspect, tau-bench, SDK span dumps): they are read whole and handed to `convertDocument`.
 */
import { convertDocument, ImportError } from "../convert";
import { importInspectEval } from "../inspect-eval";
import { importSessionZip } from "../folder";
import { peekAndDetect } from "./peek-detect";
import { spansToRuns, type SpansToRunsOptions } from "../otlp";
import type { NormalizedSpan } from "../span";
import { FORMAT_LABELS, type ImportedRun, type ImportOptions, type ImportResult, type SourceFormat } from "../types";
import { jaegerDocument } from "./jaeger-stream";
import { JsonSyntaxError, JsonWalker, type ValueVisitor } from "./json-walker";
import { appendAll, otlpDocument } from "./otlp-stream";
import { readJsonLines } from "./json-lines";
import { textLines } from "./text-lines";
import { OpenHandsEvalReader } from "../openhands-eval";
import { importClaudeCodeLines } from "../claude-code";
import { importCodexLines } from "../codex";
import { importGeminiCliLines } from "../gemini-cli";
import { importQwenCodeLines } from "../qwen-code";
import { importCopilotEvents } from "../copilot-cli";
import type { JsonLinesFile } from "../lines";

export { peekBytes } from "./peek-bytes";
export { JsonSyntaxError, JsonWalker, exactNumber, type ContainerVisitor, type StreamJson, type ValueVisitor } from "./json-walker";

/** Formats whose spans are read one by one; the others are read whole. */
export const STREAMABLE_FORMATS: ReadonlySet<SourceFormat> = new Set<SourceFormat>([
  "otlp-json",
  "otlp-json-array",
  "tempo-otlp",
  "jaeger",
]);

/**
 * Line formats read line by line (`json-lines.ts`): the file's text is never held, only its
 * parsed lines, which the importer needs all of (a session is one tree of lines).
 */
const LINE_IMPORTERS: Partial<Record<SourceFormat, (file: JsonLinesFile, opts: ImportOptions, warnings: string[]) => ImportResult>> = {
  "claude-code": importClaudeCodeLines,
  codex: importCodexLines,
  "gemini-cli": importGeminiCliLines,
  "qwen-code": importQwenCodeLines,
  // events.jsonl; the legacy session JSON is a document, which readJsonLines keeps as text
  "copilot-cli": importCopilotEvents,
};

/** Formats read line by line rather than whole. */
export const LINE_FORMATS: ReadonlySet<SourceFormat> = new Set(Object.keys(LINE_IMPORTERS) as SourceFormat[]);

/**
 * Formats whose runs are read from the stream as they are asked for (OpenHands evaluation
 * output: one instance per line), so the file is never held, whatever its size.
 */
export const LAZY_FORMATS: ReadonlySet<SourceFormat> = new Set<SourceFormat>(["openhands-eval"]);

interface StreamedImport {
  format: SourceFormat;
  /** Complete once `runs()` has been consumed (deriving runs adds warnings). */
  warnings: string[];
  /** Normalised spans read (streamed formats), before de-duplication. */
  spans?: number;
  /**
   * The runs in `importTrace` order, each derived when reached. Iterate once. For OpenHands
   * evaluation output, the file is read as the runs are asked for: one line at a time.
   */
  runs(): AsyncGenerator<ImportedRun>;
}

/** The text of a whole document, decoded as importTrace's callers decode it (one BOM dropped by the decoder, one more here). */
async function readAllText(source: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for await (const chunk of source) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  const text = parts.join("");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

async function readAllBytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
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

function wholeDocument(result: ImportResult): StreamedImport {
  return {
    format: result.format,
    warnings: result.warnings,
    async *runs() {
      yield* result.runs;
    },
  };
}

const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Where spans wait between reading the file and deriving their trace's run. Without one,
 * they wait in memory; the server gives one backed by a temporary file, so memory holds
 * only offsets and one trace at a time, whatever the file's size.
 */
export interface SpanSpill {
  put(spans: NormalizedSpan[]): void;
  /** Every span put for the trace, in the order put; called once per trace. */
  take(traceId: string): NormalizedSpan[];
}

/**
 * Imports a trace file from its bytes. Throws `ImportError` like `importTrace` (unknown
 * format, invalid or truncated JSON); nothing is returned for a file that fails midway.
 */
export async function importTraceStream(
  source: AsyncIterable<Uint8Array>,
  opts: ImportOptions & { spill?: SpanSpill } = {},
): Promise<StreamedImport> {
  const { stream, detected } = await peekAndDetect(source, opts.fileName);
  return convertTraceStream(detected.format, stream, opts);
}

/**
 * `importTraceStream` for bytes whose format is already known (detected once, on the
 * stream's first bytes, by the caller): the span formats stream, the others are read whole.
 */
export async function convertTraceStream(
  format: SourceFormat,
  stream: AsyncIterable<Uint8Array>,
  opts: ImportOptions & { spill?: SpanSpill } = {},
): Promise<StreamedImport> {
  // a zip is bytes, not text
  if (format === "inspect-eval") return wholeDocument(importInspectEval(await readAllBytes(stream), opts));
  if (format === "session-folder") return wholeDocument(importSessionZip(await readAllBytes(stream), opts));
  if (format === "openhands-eval") {
    const reader = new OpenHandsEvalReader(opts, []);
    return {
      format,
      warnings: reader.warnings,
      async *runs() {
        for await (const raw of textLines(stream)) yield* reader.line(raw);
        reader.finish();
      },
    };
  }
  const lineImporter = LINE_IMPORTERS[format];
  if (lineImporter) {
    const read = await readJsonLines(stream);
    if ("text" in read) return wholeDocument(convertDocument(format, read.text, opts));
    return wholeDocument(lineImporter(read.lines, opts, read.warnings));
  }
  if (!STREAMABLE_FORMATS.has(format)) return wholeDocument(convertDocument(format, await readAllText(stream), opts));
  const label = FORMAT_LABELS[format];

  const warnings: string[] = [];
  const traces = new Map<string, NormalizedSpan[]>();
  const spill = opts.spill;
  const spilledMin = new Map<string, bigint>();
  let spanCount = 0;
  const add = (spans: NormalizedSpan[]) => {
    spanCount += spans.length;
    if (spill) {
      spill.put(spans);
      for (const s of spans) {
        const t = BigInt(s.startTimeUnixNano);
        const m = spilledMin.get(s.traceId);
        if (m === undefined || t < m) spilledMin.set(s.traceId, t);
      }
      return;
    }
    for (const s of spans) {
      let list = traces.get(s.traceId);
      if (!list) traces.set(s.traceId, (list = []));
      list.push(s);
    }
  };
  const document: ValueVisitor =
    format === "jaeger"
      ? jaegerDocument((spans, w) => {
          appendAll(warnings, w);
          add(spans);
        })
      : otlpDocument(add, warnings);

  const walker = new JsonWalker(document);
  const decoder = new TextDecoder();
  let atStart = true;
  const write = (text: string) => {
    // The decoder drops one BOM and importTrace another, so a doubled BOM is accepted there too.
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    walker.write(text);
  };
  try {
    for await (const chunk of stream) write(decoder.decode(chunk, { stream: true }));
    write(decoder.decode());
    walker.end();
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw new ImportError(`the file looks like ${label} but is not valid JSON (${e.truncated ? "truncated? " : ""}${e.message})`);
  }

  const runOpts: SpansToRunsOptions =
    format === "jaeger"
      ? { format: "jaeger", runIdPrefix: "jaeger", fileName: opts.fileName, warnings }
      : { format, fileName: opts.fileName, warnings };
  // spansToRuns' order (earliest start, then trace id), so one trace at a time gives the same runs.
  const pending: Array<{ id: string; list: NormalizedSpan[]; min: bigint }> = [];
  for (const [id, min] of spilledMin) pending.push({ id, list: [], min });
  for (const [id, list] of traces) {
    let min: bigint | undefined;
    for (const s of list) {
      const t = BigInt(s.startTimeUnixNano);
      if (min === undefined || t < min) min = t;
    }
    pending.push({ id, list, min: min ?? 0n });
  }
  traces.clear();
  // Last run first, so pop() yields them in order and releases each trace's spans.
  pending.sort((a, b) => cmpBig(b.min, a.min) || (a.id < b.id ? 1 : -1));

  return {
    format,
    warnings,
    spans: spanCount,
    async *runs() {
      for (let t = pending.pop(); t; t = pending.pop()) yield* spansToRuns(spill ? spill.take(t.id) : t.list, runOpts);
    },
  };
}

/** `importTraceStream` with every run materialised: the shape `importTrace` returns. */
export async function importTraceStreamWhole(source: AsyncIterable<Uint8Array>, opts: ImportOptions = {}): Promise<ImportResult> {
  const streamed = await importTraceStream(source, opts);
  const runs: ImportedRun[] = [];
  for await (const run of streamed.runs()) runs.push(run);
  return { format: streamed.format, runs, warnings: streamed.warnings };
}
