/**
 * Span dumps written by OpenTelemetry SDKs rather than by an OTLP exporter:
 * - any-agent's `AgentTrace` (`{spans, final_output}`): Python SDK spans with decimal
 *   integer ids (128/64-bit, beyond 2^53), `start_time` in ns, flat attributes;
 * - JS `ReadableSpan`-like arrays (Mastra): `[seconds, nanos]` times, int kinds, and in the
 *   corpus no span or trace id at all, so ids are derived from the content and the tree
 *   falls back to time order (every span is a root).
 */
import { setOwn } from "../journal/own-keys";
import { sha256Hex } from "../canonical";
import { asArray, contentId, idToHex, isRecord, str, toNanos, type UnknownRecord } from "./json-utils";
import { spansToRuns } from "./otlp";
import { spanKindName, statusCodeName, toAttrValue, type Attributes, type NormalizedSpan, type SpanKindName } from "./span";
import type { ImportOptions, ImportResult } from "./types";

function flatAttributes(v: unknown): Attributes {
  const out: Attributes = {};
  if (!isRecord(v)) return out;
  for (const [k, x] of Object.entries(v)) setOwn(out, k, toAttrValue(x));
  return out;
}

/** `[seconds, nanoseconds]` (JS HrTime), or plain nanoseconds. */
function hrTime(v: unknown): bigint | undefined {
  if (Array.isArray(v) && v.length === 2) {
    const s = toNanos(v[0]);
    const ns = toNanos(v[1]);
    if (s !== undefined && ns !== undefined) return s * 1_000_000_000n + ns;
  }
  return toNanos(v);
}

// ---------------------------------------------------------------------------------------
// any-agent AgentTrace

function pythonSpan(s: UnknownRecord, warnings: string[]): NormalizedSpan | undefined {
  const ctx = isRecord(s.context) ? s.context : {};
  const traceId = idToHex(ctx.trace_id, 16);
  const spanId = idToHex(ctx.span_id, 8);
  if (!traceId || !spanId) {
    warnings.push(`a span without context.trace_id/span_id was skipped (${str(s.name) ?? "unnamed"})`);
    return undefined;
  }
  const start = toNanos(s.start_time) ?? 0n;
  const end = toNanos(s.end_time) ?? start;
  const status = isRecord(s.status) ? s.status : {};
  const span: NormalizedSpan = {
    traceId,
    spanId,
    name: str(s.name) ?? "span",
    kind: spanKindName(s.kind),
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (end < start ? start : end).toString(),
    status: { code: statusCodeName(status.status_code ?? status.code) },
    attributes: flatAttributes(s.attributes),
    events: asArray(s.events)
      .filter(isRecord)
      .map((e) => ({
        name: str(e.name) ?? "event",
        timeUnixNano: (toNanos(e.timestamp) ?? start).toString(),
        attributes: flatAttributes(e.attributes),
      })),
    resource: flatAttributes(isRecord(s.resource) ? s.resource.attributes : undefined),
  };
  const parent = isRecord(s.parent) ? idToHex(s.parent.span_id, 8) : idToHex(s.parent_id, 8);
  if (parent) span.parentSpanId = parent;
  const message = str(status.description) ?? str(status.message);
  if (message) span.status.message = message;
  const scope = isRecord(s.instrumentation_scope)
    ? s.instrumentation_scope
    : isRecord(s.instrumentation_info)
      ? s.instrumentation_info
      : undefined;
  if (scope && str(scope.name)) span.scope = { name: str(scope.name), ...(str(scope.version) ? { version: str(scope.version) } : {}) };
  return span;
}

export function importAnyAgent(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const root = isRecord(value) ? value : {};
  const spans = asArray(root.spans)
    .filter(isRecord)
    .flatMap((s) => {
      const span = pythonSpan(s, warnings);
      return span ? [span] : [];
    });
  const runs = spansToRuns(spans, { format: "otel-sdk-spans", fileName: opts.fileName, output: root.final_output ?? undefined, warnings });
  return { format: "otel-sdk-spans", runs, warnings };
}

// ---------------------------------------------------------------------------------------
// OTel JS ReadableSpan-like arrays

// @opentelemetry/api numbers SpanKind from INTERNAL = 0, unlike OTLP where 0 is UNSPECIFIED.
const JS_KINDS: SpanKindName[] = ["internal", "server", "client", "producer", "consumer"];
function jsSpanKind(v: unknown): SpanKindName {
  return typeof v === "number" ? (JS_KINDS[v] ?? "unspecified") : spanKindName(v);
}

export function importJsSpans(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const list = asArray(value).filter(isRecord);
  const fileId = contentId(text);
  let derived = 0;
  const spans: NormalizedSpan[] = list.map((s, i) => {
    const ctx = isRecord(s.spanContext) ? s.spanContext : isRecord(s._spanContext) ? s._spanContext : s;
    const parentCtx = isRecord(s.parentSpanContext) ? s.parentSpanContext : undefined;
    let traceId = idToHex(ctx.traceId, 16);
    let spanId = idToHex(ctx.spanId, 8);
    if (!traceId || !spanId) derived++;
    traceId ??= fileId;
    spanId ??= sha256Hex(`${fileId}:${i}`).slice(0, 16);
    const start = hrTime(s.startTime) ?? 0n;
    const end = hrTime(s.endTime) ?? start;
    const status = isRecord(s.status) ? s.status : {};
    const resource = isRecord(s.resource) ? flatAttributes(s.resource.attributes ?? s.resource._attributes) : {};
    const scope = isRecord(s.instrumentationScope)
      ? s.instrumentationScope
      : isRecord(s.instrumentationLibrary)
        ? s.instrumentationLibrary
        : undefined;
    const span: NormalizedSpan = {
      traceId,
      spanId,
      name: str(s.name) ?? "span",
      kind: jsSpanKind(s.kind),
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (end < start ? start : end).toString(),
      status: { code: statusCodeName(status.code) },
      attributes: flatAttributes(s.attributes),
      events: asArray(s.events)
        .filter(isRecord)
        .map((e) => ({
          name: str(e.name) ?? "event",
          timeUnixNano: (hrTime(e.time) ?? start).toString(),
          attributes: flatAttributes(e.attributes),
        })),
      resource,
    };
    const parent = idToHex(s.parentSpanId ?? parentCtx?.spanId, 8);
    if (parent) span.parentSpanId = parent;
    if (str(status.message)) span.status.message = str(status.message);
    if (scope && str(scope.name)) span.scope = { name: str(scope.name), ...(str(scope.version) ? { version: str(scope.version) } : {}) };
    return span;
  });
  if (derived > 0) {
    warnings.push(
      `${derived} span(s) have no span or trace id; ids were derived from the file's content (trace ${fileId}) and, as parents cannot be matched, the steps are shown in time order`,
    );
  }
  const runs = spansToRuns(spans, { format: "otel-js-spans", fileName: opts.fileName, warnings });
  return { format: "otel-js-spans", runs, warnings };
}
