/**
 * Importers: foreign trace files → Retrace journal runs. Pure TypeScript (browser, server,
 * CLI, tests). `importTrace` detects the format and converts the whole text; the pieces
 * (`detectFormat`, the OTLP functions the `/v1/traces` receiver uses) are exported too.
 */
export { ImportError, importTrace } from "./import-trace";
export { detectFormat, DETECT_HEAD_BYTES, type Detection } from "./detect";
export { spansFromOtlpJson, spansFromOtlpProtobuf, spansToRuns, type SpansToRunsOptions } from "./otlp";
export type { Attributes, AttrValue, NormalizedSpan, NormalizedSpanEvent } from "./span";
export {
  importTraceStream,
  importTraceStreamWhole,
  peekBytes,
  STREAM_HEAD_BYTES,
  STREAMABLE_FORMATS,
  type SpanSpill,
  type StreamedImport,
} from "./stream";
export { FORMAT_LABELS, SOURCE_FORMATS, type ImportedRun, type ImportOptions, type ImportResult, type SourceFormat } from "./types";
