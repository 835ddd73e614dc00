/**
 * OpenTelemetry traces (OTLP JSON, Tempo's legacy JSON, OTLP protobuf) → normalized spans →
 * journal runs. `spansToRuns` is what the `/v1/traces` receiver calls: it is a pure function
 * of the span set (input order and duplicates do not matter), because a trace arrives over
 * many requests and the run is re-derived from every span stored for it.
 */
import { setOwn } from "../journal/own-keys";
import { canonicalJson } from "../canonical";
import { JournalBuilder } from "./builder";
import { spanRole, spanToNode } from "./genai";
import { asArray, decodeJsonString, firstStr, idToHex, isRecord, makeRunId, str, toNanos, type UnknownRecord } from "./json-utils";
import { addNodes, arrangeNodes, modelVersions, type ModelCallInfo, type StepNode } from "./nodes";
import { decodeExportTraceServiceRequest } from "./otlp-proto";
import { linkToolCallsToRequests, type OpenToolCall } from "./tool-links";
import {
  spanKindName,
  statusCodeName,
  toAttrValue,
  type Attributes,
  type AttrValue,
  type NormalizedSpan,
  type NormalizedSpanEvent,
} from "./span";
import type { ImportedRun, SourceFormat } from "./types";

export type { Attributes, AttrValue, NormalizedSpan } from "./span";
export type { OpenToolCall } from "./tool-links";

// ---------------------------------------------------------------------------------------
// OTLP JSON (and the decoded protobuf, which has the same shape)

/** OTLP `AnyValue` → attribute value. int64 arrives as a string, a number or a bigint. */
export function anyValue(raw: unknown): AttrValue {
  if (!isRecord(raw)) return toAttrValue(raw);
  const v = camelValueKeys(raw);
  if ("stringValue" in v) return typeof v.stringValue === "string" ? v.stringValue : String(v.stringValue ?? "");
  if ("boolValue" in v) return v.boolValue === true || v.boolValue === "true";
  if ("intValue" in v) {
    const n = typeof v.intValue === "string" && /^-\d+$/.test(v.intValue) ? BigInt(v.intValue) : toNanos(v.intValue);
    if (n === undefined) return toAttrValue(v.intValue);
    return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
  }
  if ("doubleValue" in v) {
    const d = typeof v.doubleValue === "string" ? Number(v.doubleValue) : v.doubleValue;
    return typeof d === "number" && Number.isFinite(d) ? d : null;
  }
  if ("arrayValue" in v) return asArray(isRecord(v.arrayValue) ? v.arrayValue.values : undefined).map(anyValue);
  if ("kvlistValue" in v) return keyValues(isRecord(v.kvlistValue) ? v.kvlistValue.values : undefined);
  if ("bytesValue" in v) return toAttrValue(v.bytesValue);
  return null;
}

/** snake_case `AnyValue` field names (`string_value`: protobuf's own JSON names, Phoenix's /spans/otlpv1) as OTLP JSON's. */
function camelValueKeys(v: UnknownRecord): UnknownRecord {
  if ("stringValue" in v || !Object.keys(v).some((k) => k.endsWith("_value"))) return v;
  const camel: UnknownRecord = {};
  for (const [k, x] of Object.entries(v))
    setOwn(
      camel,
      k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      x,
    );
  return camel;
}

/** `[{key, value: AnyValue}]` → attributes. */
export function keyValues(list: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of asArray(list)) {
    if (!isRecord(kv) || typeof kv.key !== "string") continue;
    setOwn(out, kv.key, anyValue(kv.value));
  }
  return out;
}

function otlpSpan(s: UnknownRecord, resource: Attributes, scope: NormalizedSpan["scope"], warnings: string[]): NormalizedSpan | undefined {
  const traceId = idToHex(s.traceId ?? s.trace_id, 16);
  const spanId = idToHex(s.spanId ?? s.span_id, 8);
  if (!traceId || !spanId) {
    warnings.push(`a span without a trace id or span id was skipped (${str(s.name) ?? "unnamed"})`);
    return undefined;
  }
  const start = toNanos(s.startTimeUnixNano ?? s.start_time_unix_nano) ?? 0n;
  const end = toNanos(s.endTimeUnixNano ?? s.end_time_unix_nano) ?? start;
  const status = isRecord(s.status) ? s.status : {};
  const events: NormalizedSpanEvent[] = asArray(s.events)
    .filter(isRecord)
    .map((e) => ({
      name: str(e.name) ?? "event",
      timeUnixNano: (toNanos(e.timeUnixNano ?? e.time_unix_nano) ?? start).toString(),
      attributes: keyValues(e.attributes),
    }));
  const links = asArray(s.links)
    .filter(isRecord)
    .flatMap((l) => {
      const lt = idToHex(l.traceId, 16);
      const ls = idToHex(l.spanId, 8);
      return lt && ls ? [{ traceId: lt, spanId: ls, attributes: keyValues(l.attributes) }] : [];
    });
  const span: NormalizedSpan = {
    traceId,
    spanId,
    name: str(s.name) ?? "span",
    kind: spanKindName(s.kind),
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (end < start ? start : end).toString(),
    status: { code: statusCodeName(status.code) },
    attributes: keyValues(s.attributes),
    events,
    resource,
  };
  const parent = idToHex(s.parentSpanId ?? s.parent_span_id, 8);
  if (parent) span.parentSpanId = parent;
  if (str(status.message)) span.status.message = str(status.message);
  if (links.length > 0) span.links = links;
  if (scope) span.scope = scope;
  return span;
}

function scopeOf(v: unknown): NormalizedSpan["scope"] {
  if (!isRecord(v)) return undefined;
  const scope: NonNullable<NormalizedSpan["scope"]> = {};
  if (str(v.name)) scope.name = str(v.name);
  if (str(v.version)) scope.version = str(v.version);
  return Object.keys(scope).length > 0 ? scope : undefined;
}

/**
 * Spans of an OTLP JSON export request (`resourceSpans[].scopeSpans[]`), of Tempo's legacy
 * shape (`batches[].instrumentationLibrarySpans[]`), of a `{trace: …}` wrapper, or of an
 * array of any of these. Ids may be hex or base64; kinds and status codes ints or names.
 */
export function spansFromOtlpJson(value: unknown, warnings: string[] = []): NormalizedSpan[] {
  const out: NormalizedSpan[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) {
      v.forEach(visit);
      return;
    }
    if (!isRecord(v)) return;
    if (isRecord(v.trace)) visit(v.trace);
    for (const rs of [...asArray(v.resourceSpans), ...asArray(v.resource_spans), ...asArray(v.batches)]) {
      if (!isRecord(rs)) continue;
      const resource = keyValues(isRecord(rs.resource) ? rs.resource.attributes : undefined);
      const scopes = [...asArray(rs.scopeSpans), ...asArray(rs.scope_spans), ...asArray(rs.instrumentationLibrarySpans)];
      for (const ss of scopes) {
        if (!isRecord(ss)) continue;
        const scope = scopeOf(ss.scope ?? ss.instrumentationLibrary);
        for (const s of asArray(ss.spans)) {
          if (!isRecord(s)) continue;
          const span = otlpSpan(s, resource, scope, warnings);
          if (span) out.push(span);
        }
      }
    }
  };
  visit(value);
  return out;
}

/** Spans of a binary OTLP `ExportTraceServiceRequest` (what `application/x-protobuf` carries). */
export function spansFromOtlpProtobuf(bytes: Uint8Array, warnings: string[] = []): NormalizedSpan[] {
  return spansFromOtlpJson(decodeExportTraceServiceRequest(bytes), warnings);
}

// ---------------------------------------------------------------------------------------
// Spans → runs

export interface SpansToRunsOptions {
  /** Recorded in `run.start` (`data.source.format`, `data.tags`). Default `otlp-json`. */
  format?: SourceFormat;
  fileName?: string;
  /** Run id prefix; `otel` by default (`jaeger` for Jaeger exports). */
  runIdPrefix?: string;
  /** The run's final output when the source has one outside the spans (any-agent). */
  output?: unknown;
  /** Where to report recoverable problems. */
  warnings?: string[];
  /**
   * A trace without a root span (every span names a parent) is still arriving: give it no
   * `run.end`, so it shows as live (the `/v1/traces` receiver; files are complete).
   */
  liveWithoutRoot?: boolean;
  /** The Content-Type the spans came with (the receiver), recorded as it came in `source.contentType`. */
  contentType?: string;
  /**
   * For the spans of one trace (the receiver): `open` holds the tool calls that earlier
   * requests' responses left unanswered (a tool span without a call id here may answer
   * one), and is set to those still open after these spans.
   */
  toolCalls?: { open: OpenToolCall[] };
}

const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** When the same span arrives twice, keep the fuller copy; ties are broken by content. */
function dedupe(spans: NormalizedSpan[]): NormalizedSpan[] {
  const best = new Map<string, { span: NormalizedSpan; score: number; text?: string }>();
  for (const s of spans) {
    const score = Object.keys(s.attributes).length + s.events.length + (s.endTimeUnixNano !== s.startTimeUnixNano ? 1000 : 0);
    const cur = best.get(s.spanId);
    if (!cur || score > cur.score) {
      best.set(s.spanId, { span: s, score });
    } else if (score === cur.score && cur.span !== s) {
      // Only a tie needs the (costly) content comparison.
      cur.text ??= canonicalJson(cur.span);
      const text = canonicalJson(s);
      if (text < cur.text) best.set(s.spanId, { span: s, score, text });
    }
  }
  return [...best.values()]
    .map((b) => b.span)
    .sort(
      (a, b) =>
        cmpBig(BigInt(a.startTimeUnixNano), BigInt(b.startTimeUnixNano)) || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
    );
}

function textContent(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const parts = v.map((p) => (isRecord(p) ? (firstStr(p.text, p.content) ?? "") : typeof p === "string" ? p : "")).filter(Boolean);
    return parts.length > 0 ? parts.join("\n") : undefined;
  }
  return undefined;
}

/** What the user asked: a top-level chain's input, else the first user message sent to a model. */
function runInput(spans: NormalizedSpan[], calls: ModelCallInfo[]): unknown {
  for (const s of spans) {
    const role = spanRole(s);
    if ((role === "chain" || role === "agent") && s.attributes["input.value"] !== undefined)
      return decodeJsonString(s.attributes["input.value"]);
  }
  for (const c of calls) {
    for (const m of c.messages ?? []) {
      if (isRecord(m) && m.role === "user") {
        const t = textContent(m.content);
        if (t !== undefined) return t;
        if (m.content !== undefined) return m.content;
      }
    }
  }
  return undefined;
}

function attr(spans: NormalizedSpan[], keys: string[], where: "resource" | "attributes" | "both" = "both"): string | undefined {
  for (const s of spans) {
    for (const k of keys) {
      const v = (where !== "attributes" ? str(s.resource[k]) : undefined) ?? (where !== "resource" ? str(s.attributes[k]) : undefined);
      if (v) return v;
    }
  }
  return undefined;
}

function traceToRun(traceId: string, spans: NormalizedSpan[], opts: SpansToRunsOptions): ImportedRun {
  const format = opts.format ?? "otlp-json";
  const warnings = opts.warnings ?? [];
  const sorted = dedupe(spans);
  const ids = new Set(sorted.map((s) => s.spanId));
  const dangling = sorted.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).length;
  if (dangling > 0) warnings.push(`trace ${traceId}: ${dangling} span(s) name a parent that is not in the data; they are shown as roots`);
  const nodes: StepNode[] = sorted.map(spanToNode);
  // Linked first, so the causal order sees which response each tool call answers.
  const open = linkToolCallsToRequests(nodes, opts.toolCalls?.open);
  if (opts.toolCalls) opts.toolCalls.open = open;
  // Arranging first drops wrapper calls, so the input comes from a real model call.
  arrangeNodes(nodes, { causal: true });
  const input = runInput(
    sorted,
    nodes.flatMap((n) => (n.model ? [n.model] : [])),
  );
  const builder = new JournalBuilder();
  const t0 = sorted.length > 0 ? BigInt(sorted[0].startTimeUnixNano) : 0n;
  // Added first so that, at equal times, the input precedes the first step.
  if (input !== undefined) builder.add({ t: t0, type: "input", data: { source: "user", content: input } });
  const summary = addNodes(builder, nodes, { causal: true });

  const services = [
    ...new Set(sorted.map((s) => str(s.resource["service.name"])).filter((s): s is string => !!s && !s.startsWith("unknown_service"))),
  ];
  // a Langfuse agent observation is named by its span name; OpenInference's OpenAI Agents
  // instrumentation names the agent in `graph.node.id`
  const agentNameOf = (s: NormalizedSpan) =>
    firstStr(s.attributes["gen_ai.agent.name"], s.attributes["agent.name"], s.attributes["graph.node.id"]) ??
    (s.attributes["langfuse.observation.type"] === "agent" ? s.name : undefined);
  const agentSpan = sorted.find((s) => spanRole(s) === "agent" && agentNameOf(s));
  const agentName =
    (agentSpan ? agentNameOf(agentSpan) : undefined) ??
    attr(sorted, ["gen_ai.agent.name", "componentName"], "attributes") ??
    langChainAgentName(sorted);
  const appName = attr(sorted, ["app.name"], "attributes");
  const workflowName = appName ?? services[0] ?? agentName ?? summary.mainRoot?.name ?? "trace";
  const serviceVersion = !appName && services[0] ? attr(sorted, ["service.version"], "resource") : undefined;
  const environment = attr(sorted, ["deployment.environment.name", "deployment.environment", "app.environment"]);
  const userId = attr(sorted, ["user.id", "enduser.id"], "attributes");
  const root = summary.mainRoot;
  const failed = root?.status === "error";

  const startData: Record<string, unknown> = {
    workflow: { name: workflowName, ...(serviceVersion ? { version: serviceVersion } : {}) },
    tags: [format],
    source: {
      format,
      ...(opts.fileName ? { file: opts.fileName } : {}),
      ...(opts.contentType ? { contentType: opts.contentType } : {}),
      traceId,
      spans: sorted.length,
    },
  };
  if (agentName) startData.agent = { name: agentName };
  const models = modelVersions(summary.modelCalls);
  if (models) startData.versions = { models };
  if (environment) startData.environment = environment;
  if (userId) startData.initiator = { kind: "user", id: userId };
  if (input !== undefined) startData.input = input;
  if (services.length > 1) startData.services = services;

  const endData: Record<string, unknown> = { status: failed ? "failed" : "succeeded" };
  if (failed) endData.error = { message: root?.endInfo?.message ?? "root span status ERROR", span: root?.id };
  if (opts.output !== undefined) endData.output = opts.output;

  let maxEnd = t0;
  for (const s of sorted) {
    const e = BigInt(s.endTimeUnixNano);
    if (e > maxEnd) maxEnd = e;
  }
  const prefix = opts.runIdPrefix ?? "otel";
  const runId = makeRunId(prefix, traceId);
  const live = opts.liveWithoutRoot === true && !sorted.some((s) => !s.parentSpanId);
  return {
    runId,
    events: builder.build({ runId, causal: true, start: { data: startData, t: t0 }, end: live ? null : { data: endData, t: maxEnd } }),
  };
}

/** Groups spans by trace id and converts each trace into one run (`otel-<traceId>`). */
export function spansToRuns(spans: NormalizedSpan[], opts: SpansToRunsOptions = {}): ImportedRun[] {
  const byTrace = new Map<string, NormalizedSpan[]>();
  for (const s of spans) {
    const list = byTrace.get(s.traceId) ?? [];
    list.push(s);
    byTrace.set(s.traceId, list);
  }
  const traces = [...byTrace.entries()].map(([id, list]) => {
    let min: bigint | undefined;
    for (const s of list) {
      const t = BigInt(s.startTimeUnixNano);
      if (min === undefined || t < min) min = t;
    }
    return { id, list, min: min ?? 0n };
  });
  traces.sort((a, b) => cmpBig(a.min, b.min) || (a.id < b.id ? -1 : 1));
  return traces.map((t) => traceToRun(t.id, t.list, opts));
}

/** LangChain.js `createAgent({name})`: OpenInference writes it as `lc_agent_name` in the `metadata` JSON. */
function langChainAgentName(spans: NormalizedSpan[]): string | undefined {
  for (const s of spans) {
    const meta = s.attributes.metadata;
    if (typeof meta !== "string" || !meta.includes("lc_agent_name")) continue;
    const d = decodeJsonString(meta);
    const name = isRecord(d) ? str(d.lc_agent_name) : undefined;
    if (name) return name;
  }
  return undefined;
}
