/**
 * Is this text the start of a Retrace journal, or of another trace format? Used to
 * refuse (or route to an importer) a file that is not NDJSON journal lines, with a
 * message that names what it looks like.
 */
export interface ForeignFormat {
  format: string;
  label: string;
}

const MARKERS: Array<[RegExp[], ForeignFormat]> = [
  [[/"batches"\s*:/, /"instrumentationLibrarySpans"\s*:/], { format: "tempo-otlp", label: "a Grafana Tempo export (OTLP JSON)" }],
  [[/"resourceSpans"\s*:/], { format: "otlp-json", label: "an OpenTelemetry OTLP JSON export" }],
  [[/"traceID"\s*:/, /"processes"\s*:/], { format: "jaeger", label: "a Jaeger JSON export" }],
  [[/"observations"\s*:/], { format: "langfuse", label: "a Langfuse trace export" }],
  [[/"trajectory"\s*:/], { format: "swe-agent", label: "a SWE-agent trajectory (.traj)" }],
  [[/"eval"\s*:/, /"samples"\s*:|"plan"\s*:|"version"\s*:\s*2/], { format: "inspect-ai", label: "an Inspect AI eval log" }],
  [[/"task_id"\s*:/, /"traj"\s*:/], { format: "tau-bench", label: "tau-bench results" }],
  [[/"spans"\s*:/, /"trace_id"\s*:|"context"\s*:/], { format: "otel-sdk-spans", label: "an OpenTelemetry SDK span dump" }],
  [[/"parentSpanId"\s*:/, /"startTime"\s*:/], { format: "otel-js-spans", label: "an OpenTelemetry JS span dump" }],
  [[/"source"\s*:\s*"(agent|user|environment)"/, /"(action|observation)"\s*:/], { format: "openhands", label: "an OpenHands trajectory" }],
];

/** `null` when the head looks like journal lines; otherwise what it looks like. */
export function sniffForeignFormat(head: string): ForeignFormat | null {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  if (text === "") return null;
  const firstLine = text.split("\n", 1)[0];
  if (/^\{.*"run"\s*:.*"seq"\s*:/.test(firstLine) || /^\{.*"seq"\s*:.*"run"\s*:/.test(firstLine)) return null;
  for (const [res, fmt] of MARKERS) if (res.every((re) => re.test(text))) return fmt;
  if (text.startsWith("[")) return { format: "json-array", label: "a JSON array, not NDJSON journal lines" };
  if (text.startsWith("{") && !firstLine.trimEnd().endsWith("}")) return { format: "json", label: "a pretty-printed JSON document, not NDJSON journal lines" };
  return null;
}
