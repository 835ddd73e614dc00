/**
 * Jaeger query-API / UI JSON (`{data: [trace…]}` or one trace) → normalized spans → runs.
 * Times are microseconds; the parent is the first CHILD_OF reference (FOLLOWS_FROM when
 * there is none); OTel status and span kind arrive as tags and are mapped back.
 * Runs are `jaeger-<traceID>` so two exports of one trace from different backends do not
 * silently merge into one run.
 */
import { setOwn } from "../journal/own-keys";
import { asArray, idToHex, isRecord, str, toNanos, type UnknownRecord } from "./json-utils";
import { spansToRuns } from "./otlp";
import { spanKindName, statusCodeName, toAttrValue, type Attributes, type NormalizedSpan } from "./span";
import type { ImportOptions, ImportResult } from "./types";

function tags(list: unknown): Attributes {
  const out: Attributes = {};
  for (const t of asArray(list)) {
    if (!isRecord(t) || typeof t.key !== "string") continue;
    let v: unknown = t.value;
    if (t.type === "bool" && typeof v === "string") v = v === "true";
    setOwn(out, t.key, toAttrValue(v));
  }
  return out;
}

// Tags that Jaeger uses to carry OTel span fields; they are moved back into the span.
const SPAN_FIELD_TAGS = ["span.kind", "otel.status_code", "otel.status_description", "otel.scope.name", "otel.scope.version", "error"];

function jaegerSpan(s: UnknownRecord, processes: UnknownRecord, traceHex: string, warnings: string[]): NormalizedSpan | undefined {
  const spanId = idToHex(s.spanID, 8);
  const traceId = idToHex(s.traceID, 16) ?? traceHex;
  if (!spanId) {
    warnings.push(`a Jaeger span without spanID was skipped (${str(s.operationName) ?? "unnamed"})`);
    return undefined;
  }
  const attrs = tags(s.tags);
  const refs = asArray(s.references).filter(isRecord);
  const ref = refs.find((r) => r.refType === "CHILD_OF") ?? refs.find((r) => r.refType === "FOLLOWS_FROM");
  const startUs = toNanos(s.startTime) ?? 0n;
  const durUs = toNanos(s.duration) ?? 0n;
  const proc = isRecord(processes[str(s.processID) ?? ""])
    ? (processes[str(s.processID) ?? ""] as UnknownRecord)
    : isRecord(s.process)
      ? s.process
      : {};
  const resource: Attributes = { ...tags(proc.tags) };
  if (str(proc.serviceName)) resource["service.name"] = str(proc.serviceName) ?? null;
  const isError = attrs["otel.status_code"] === "ERROR" || attrs.error === true || attrs.error === "true";
  const status: NormalizedSpan["status"] = { code: isError ? "error" : statusCodeName(attrs["otel.status_code"]) };
  if (str(attrs["otel.status_description"])) status.message = str(attrs["otel.status_description"]);
  const scopeName = str(attrs["otel.scope.name"]) ?? str(attrs["otel.library.name"]);
  const scopeVersion = str(attrs["otel.scope.version"]) ?? str(attrs["otel.library.version"]);
  const kind = spanKindName(attrs["span.kind"]);
  for (const k of SPAN_FIELD_TAGS) delete attrs[k];
  const events = asArray(s.logs)
    .filter(isRecord)
    .map((l) => {
      const fields = tags(l.fields);
      const name = str(fields.event) ?? str(fields.message) ?? "log";
      delete fields.event;
      return { name, timeUnixNano: ((toNanos(l.timestamp) ?? startUs) * 1000n).toString(), attributes: fields };
    });
  const span: NormalizedSpan = {
    traceId,
    spanId,
    name: str(s.operationName) ?? "span",
    kind,
    startTimeUnixNano: (startUs * 1000n).toString(),
    endTimeUnixNano: ((startUs + durUs) * 1000n).toString(),
    status,
    attributes: attrs,
    events,
    resource,
  };
  const parent = ref ? idToHex(ref.spanID, 8) : undefined;
  if (parent && parent !== spanId) span.parentSpanId = parent;
  if (scopeName || scopeVersion)
    span.scope = { ...(scopeName ? { name: scopeName } : {}), ...(scopeVersion ? { version: scopeVersion } : {}) };
  return span;
}

export function spansFromJaeger(value: unknown, warnings: string[] = []): NormalizedSpan[] {
  const traces = isRecord(value) && Array.isArray(value.data) ? value.data : Array.isArray(value) ? value : [value];
  const out: NormalizedSpan[] = [];
  for (const t of traces) {
    if (!isRecord(t)) continue;
    const traceHex = idToHex(t.traceID, 16) ?? "0";
    const processes = isRecord(t.processes) ? t.processes : {};
    for (const s of asArray(t.spans)) {
      if (!isRecord(s)) continue;
      const span = jaegerSpan(s, processes, traceHex, warnings);
      if (span) out.push(span);
    }
    for (const w of asArray(t.warnings)) if (typeof w === "string") warnings.push(`Jaeger: ${w}`);
  }
  return out;
}

export function importJaeger(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const spans = spansFromJaeger(value, warnings);
  const runs = spansToRuns(spans, { format: "jaeger", runIdPrefix: "jaeger", fileName: opts.fileName, warnings });
  return { format: "jaeger", runs, warnings };
}
