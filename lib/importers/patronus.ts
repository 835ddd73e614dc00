/**
 * Patronus trace export: one trace `{trace_id, spans: [Span]}` whose spans nest their
 * children in `child_spans`, as the TRAIL benchmark (PatronusAI, "Trace Reasoning and Agentic
 * Issue Localization") publishes its smolagents GAIA and SWE-bench runs. A span is `{trace_id,
 * span_id, parent_span_id, span_name, span_kind ("Internal"), timestamp (ISO, UTC),
 * duration (ISO 8601, "PT1M17.284479S"), status_code ("Ok" | "Error" | "Unset"),
 * status_message, span_attributes (OpenInference, dotted keys), resource_attributes,
 * scope_name, scope_version, events: [{Timestamp, Name, Attributes}], links, logs,
 * child_spans}`. The tree is flattened into `NormalizedSpan`s (parent from `parent_span_id`,
 * else the enclosing span) and goes through `spansToRuns`: the same OpenInference mapping
 * (lib/importers/genai.ts) as OTLP and Phoenix. `logs` of the Patronus SDK's own
 * `@traced` spans (`{body: {function.name, function.arguments, function.output}}`) become
 * the span's `input.value` / `output.value` when it has none.
 */
import { setOwn } from "../journal/own-keys";
import { ImportError } from "./import-error";
import { asArray, idToHex, isoToNanos, isRecord, str, type UnknownRecord } from "./json-utils";
import { spansToRuns } from "./otlp";
import { flatten, spanEvents } from "./phoenix";
import { spanKindName, statusCodeName, type Attributes, type NormalizedSpan } from "./span";
import type { ImportOptions, ImportResult } from "./types";

const MAX_DEPTH = 256;
const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,9})\d*)?S)?)?$/;

/** An ISO 8601 duration (`PT1M17.284479S`, `P1DT2H`) in nanoseconds, exactly; undefined when it is not one. */
export function isoDurationNanos(v: unknown): bigint | undefined {
  if (typeof v !== "string" || v === "P" || v.endsWith("T")) return undefined;
  const m = DURATION.exec(v.trim());
  if (!m) return undefined;
  const [, d, h, mi, s, frac] = m;
  const seconds = BigInt(d ?? "0") * 86_400n + BigInt(h ?? "0") * 3_600n + BigInt(mi ?? "0") * 60n + BigInt(s ?? "0");
  return seconds * 1_000_000_000n + BigInt((frac ?? "").padEnd(9, "0") || "0");
}

const json = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** The Patronus SDK's function log: what a `@traced` function was given and returned. */
function logValues(s: UnknownRecord, attributes: Attributes): void {
  for (const log of asArray(s.logs)) {
    const body = isRecord(log) ? log.body : undefined;
    if (!isRecord(body)) continue;
    if (attributes["input.value"] === undefined && body["function.arguments"] !== undefined) {
      setOwn(attributes, "input.value", json(body["function.arguments"]));
      setOwn(attributes, "input.mime_type", "application/json");
    }
    if (attributes["output.value"] === undefined && body["function.output"] !== undefined) {
      setOwn(attributes, "output.value", json(body["function.output"]));
    }
  }
}

function toSpan(
  s: UnknownRecord,
  traceId: string | undefined,
  enclosing: string | undefined,
  warnings: string[],
): NormalizedSpan | undefined {
  const trace = idToHex(s.trace_id, 16) ?? traceId;
  const spanId = idToHex(s.span_id, 8);
  if (!trace || !spanId) {
    warnings.push(`a span without trace_id/span_id was skipped (${str(s.span_name) ?? "unnamed"})`);
    return undefined;
  }
  const start = isoToNanos(s.timestamp);
  if (start === undefined) warnings.push(`span ${spanId} has no readable timestamp; it is placed at 1970-01-01`);
  const begin = start ?? 0n;
  const duration = isoDurationNanos(s.duration);
  if (duration === undefined && s.duration !== undefined)
    warnings.push(`span ${spanId}: duration ${JSON.stringify(s.duration)} is not an ISO 8601 duration; taken as 0`);
  const attributes: Attributes = {};
  flatten(s.span_attributes, "", attributes);
  logValues(s, attributes);
  const resource: Attributes = {};
  flatten(s.resource_attributes, "", resource);
  const span: NormalizedSpan = {
    traceId: trace,
    spanId,
    name: str(s.span_name) ?? "span",
    kind: spanKindName(s.span_kind),
    startTimeUnixNano: begin.toString(),
    endTimeUnixNano: (begin + (duration ?? 0n)).toString(),
    status: { code: statusCodeName(s.status_code) },
    attributes,
    events: spanEvents(s.events, begin),
    resource,
  };
  const scope = { name: str(s.scope_name), version: str(s.scope_version) };
  if (scope.name || scope.version) span.scope = scope;
  const parent = idToHex(s.parent_span_id, 8) ?? enclosing;
  if (parent) span.parentSpanId = parent;
  if (str(s.status_message)) span.status.message = str(s.status_message);
  return span;
}

/** The span tree flattened, depth first; a child without `parent_span_id` takes the enclosing span's id. */
function flattenTree(roots: unknown[], traceId: string | undefined, warnings: string[]): NormalizedSpan[] {
  const out: NormalizedSpan[] = [];
  const stack: Array<{ s: unknown; parent?: string; depth: number }> = roots.map((s) => ({ s, depth: 0 })).reverse();
  let deep = false;
  while (stack.length > 0) {
    const { s, parent, depth } = stack.pop()!;
    if (!isRecord(s)) continue;
    const span = toSpan(s, traceId, parent, warnings);
    if (span) out.push(span);
    const children = asArray(s.child_spans);
    if (depth >= MAX_DEPTH) {
      if (children.length > 0) deep = true;
      continue;
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push({ s: children[i], parent: span?.spanId ?? parent, depth: depth + 1 });
  }
  if (deep) warnings.push(`spans nested deeper than ${MAX_DEPTH} levels were left out`);
  return out;
}

export function importPatronus(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const traces = Array.isArray(value) ? value.filter(isRecord) : isRecord(value) ? [value] : [];
  const spans = traces.flatMap((t) => flattenTree(asArray(t.spans), idToHex(t.trace_id, 16), warnings));
  if (spans.length === 0) throw new ImportError("the Patronus trace holds no spans with a trace_id and span_id");
  const runs = spansToRuns(spans, { format: "patronus-trace", fileName: opts.fileName, runIdPrefix: "patronus", warnings });
  return { format: "patronus-trace", runs, warnings };
}
