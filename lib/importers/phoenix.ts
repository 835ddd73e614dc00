/**
 * Arize Phoenix's own span JSON (not OTLP): the REST API's `GET /v1/projects/{id}/spans`
 * answer `{data: [Span], next_cursor}`, or a bare array of those spans; also its
 * `/spans/otlpv1` answer (the same envelope around OTLP spans with snake_case fields). A Phoenix `Span`
 * (src/phoenix/server/api/routers/v1/spans.py) is `{id, name, context: {trace_id, span_id},
 * span_kind, parent_id, start_time, end_time, status_code, status_message, attributes,
 * events: [{name, timestamp, attributes}]}` with ISO times, hex ids, the OpenInference span
 * kind moved out of the attributes into `span_kind`, and the attributes flattened to dotted
 * keys (`llm.input_messages.0.message.role`). Each becomes a `NormalizedSpan` with the span
 * kind put back as `openinference.span.kind`, and the spans go through `spansToRuns`: the
 * same OpenInference mapping (lib/importers/genai.ts) as OTLP.
 */
import { setOwn } from "../journal/own-keys";
import { asArray, idToHex, isoToNanos, isRecord, str, toNanos, type UnknownRecord } from "./json-utils";
import { spansFromOtlpJson, spansToRuns } from "./otlp";
import { statusCodeName, toAttrValue, type Attributes, type NormalizedSpan } from "./span";
import type { ImportOptions, ImportResult } from "./types";

/**
 * Nested attribute objects flattened to dotted keys, as Phoenix's `flatten` does
 * (lists of objects by index); lists of plain values stay lists. Also used for Patronus
 * span trees (patronus.ts).
 */
export function flatten(v: unknown, prefix: string, out: Attributes, depth = 0): void {
  if (depth < 32 && isRecord(v)) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out, depth + 1);
    return;
  }
  if (depth < 32 && Array.isArray(v) && v.length > 0 && v.every(isRecord)) {
    v.forEach((x, i) => flatten(x, `${prefix}.${i}`, out, depth + 1));
    return;
  }
  if (prefix) setOwn(out, prefix, toAttrValue(v));
}

/**
 * A span's events, `{name, timestamp, attributes}` (Phoenix) or `{Name, Timestamp,
 * Attributes}` (Patronus), attributes flattened; an event without a time takes `fallback`.
 */
export function spanEvents(events: unknown, fallback: bigint): NormalizedSpan["events"] {
  return asArray(events)
    .filter(isRecord)
    .map((e) => {
      const a: Attributes = {};
      flatten(e.Attributes ?? e.attributes, "", a);
      const t = timeOf(e.Timestamp ?? e.timestamp) ?? fallback;
      return { name: str(e.Name ?? e.name) ?? "event", timeUnixNano: t.toString(), attributes: a };
    });
}

/** An ISO time (Phoenix's), or epoch nanoseconds / milliseconds as a number. */
function timeOf(v: unknown): bigint | undefined {
  const iso = isoToNanos(v);
  if (iso !== undefined) return iso;
  const n = toNanos(v);
  if (n === undefined) return undefined;
  return n < 100_000_000_000_000n ? n * 1_000_000n : n;
}

function phoenixSpan(s: UnknownRecord, warnings: string[]): NormalizedSpan | undefined {
  const ctx = isRecord(s.context) ? s.context : {};
  const traceId = idToHex(ctx.trace_id, 16);
  const spanId = idToHex(ctx.span_id, 8);
  if (!traceId || !spanId) {
    warnings.push(`a span without context.trace_id/span_id was skipped (${str(s.name) ?? "unnamed"})`);
    return undefined;
  }
  const start = timeOf(s.start_time) ?? 0n;
  const end = timeOf(s.end_time) ?? start;
  const attributes: Attributes = {};
  flatten(s.attributes, "", attributes);
  const kind = str(s.span_kind);
  if (kind && attributes["openinference.span.kind"] === undefined) attributes["openinference.span.kind"] = kind.toUpperCase();
  const span: NormalizedSpan = {
    traceId,
    spanId,
    name: str(s.name) ?? "span",
    // Phoenix does not keep the OTel span kind; OpenInference's is in the attributes
    kind: "internal",
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (end < start ? start : end).toString(),
    status: { code: statusCodeName(s.status_code) },
    attributes,
    events: spanEvents(s.events, start),
    resource: {},
  };
  const parent = idToHex(s.parent_id, 8);
  if (parent) span.parentSpanId = parent;
  if (str(s.status_message)) span.status.message = str(s.status_message);
  return span;
}

export function importPhoenix(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const list = Array.isArray(value) ? value : isRecord(value) ? asArray(value.data) : [];
  if (isRecord(value) && typeof value.next_cursor === "string" && value.next_cursor !== "") {
    warnings.push(
      "the export is one page of Phoenix's span list (next_cursor is set): spans on later pages are not in this file, so traces may be incomplete",
    );
  }
  const items = list.filter(isRecord);
  // `/spans/otlpv1` answers OTLP spans (snake_case fields, attributes as key/values) in the same envelope
  const spans = items.some((s) => "span_id" in s && !("context" in s))
    ? spansFromOtlpJson({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans: items }] }] }, warnings)
    : items.flatMap((s) => {
        const span = phoenixSpan(s, warnings);
        return span ? [span] : [];
      });
  const runs = spansToRuns(spans, { format: "phoenix-spans", fileName: opts.fileName, runIdPrefix: "phoenix", warnings });
  return { format: "phoenix-spans", runs, warnings };
}
