/**
 * Importers: foreign trace files → Retrace journal runs. Pure TypeScript (browser, server,
 * CLI, tests). `importTrace` detects the format and converts the whole text (`convert.ts`); the pieces
 * (`detectFormat`, the OTLP functions the `/v1/traces` receiver uses) are exported too.
 */
export { convertDocument, ImportError, importTrace } from "./convert";
export { detectBytes, detectFormat, STREAM_HEAD_BYTES, UNKNOWN_FORMAT, type Detection } from "./detect";
export { spansFromOtlpJson, spansFromOtlpProtobuf, spansToRuns, type OpenToolCall, type SpansToRunsOptions } from "./otlp";
export { encodeExportTraceServiceResponse } from "./otlp-proto";
export { modelCallSignature } from "./genai";
export type { Attributes, AttrValue, NormalizedSpan, NormalizedSpanEvent } from "./span";
export {
  convertTraceStream,
  importTraceStream,
  importTraceStreamWhole,
  peekBytes,
  LAZY_FORMATS,
  LINE_FORMATS,
  STREAMABLE_FORMATS,
  type SpanSpill,
} from "./stream";
export { FORMAT_LABELS, type ImportedRun, type ImportOptions, type ImportResult, type SourceFormat } from "./types";
export { importSessionFiles, importSessionZip, nothingToRead, type SessionFile } from "./folder";
export { sessionPart, type SessionPart } from "./session-files";
export { claudeLink, type ClaudeLink } from "./claude-subagents";
