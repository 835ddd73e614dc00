/**
 * One span in a form every OpenTelemetry-family source maps to (OTLP JSON or protobuf,
 * Tempo, Jaeger, SDK dumps). It is plain JSON on purpose: the `/v1/traces` receiver stores
 * these and re-derives a run from all spans of a trace, so they must survive a database
 * round trip unchanged. Ids are lowercase hex; times are decimal strings of nanoseconds
 * since the epoch (they exceed 2^53, so never numbers).
 */

import { setOwn } from "../journal/own-keys";

/** A JSON-safe attribute value: int64 beyond 2^53 is kept as a decimal string. */
export type AttrValue = null | boolean | number | string | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export type SpanKindName = "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";
export type SpanStatusCode = "unset" | "ok" | "error";

export interface NormalizedSpanEvent {
  name: string;
  timeUnixNano: string;
  attributes: Attributes;
}

interface NormalizedSpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

export interface NormalizedSpan {
  traceId: string;
  spanId: string;
  /** Absent on roots. May name a span that never arrives (sampled or filtered out). */
  parentSpanId?: string;
  name: string;
  kind: SpanKindName;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: SpanStatusCode; message?: string };
  attributes: Attributes;
  events: NormalizedSpanEvent[];
  links?: NormalizedSpanLink[];
  resource: Attributes;
  scope?: { name?: string; version?: string };
}

const KINDS: SpanKindName[] = ["unspecified", "internal", "server", "client", "producer", "consumer"];

/** `kind` as OTLP JSON (int or `SPAN_KIND_*`), Jaeger (`server`) or SDK dumps (`internal`, int). */
export function spanKindName(v: unknown): SpanKindName {
  if (typeof v === "number" || typeof v === "bigint") return KINDS[Number(v)] ?? "unspecified";
  if (typeof v === "string") {
    const s = v
      .toLowerCase()
      .replace(/^span_kind_/, "")
      .replace(/^spankind\./, "");
    if (/^\d+$/.test(s)) return KINDS[Number(s)] ?? "unspecified";
    return (KINDS as string[]).includes(s) ? (s as SpanKindName) : "unspecified";
  }
  return "unspecified";
}

/** Status code as int (0/1/2), `STATUS_CODE_*`, or a word (`ok`, `error`, `unset`). */
export function statusCodeName(v: unknown): SpanStatusCode {
  if (typeof v === "number" || typeof v === "bigint") return Number(v) === 2 ? "error" : Number(v) === 1 ? "ok" : "unset";
  if (typeof v === "string") {
    const s = v
      .toLowerCase()
      .replace(/^status_code_/, "")
      .replace(/^statuscode\./, "");
    if (s === "error" || s === "2") return "error";
    if (s === "ok" || s === "1") return "ok";
  }
  return "unset";
}

/** Any value → an attribute value (bigint beyond 2^53 → digits, bytes → hex). */
export function toAttrValue(v: unknown, depth = 0): AttrValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (depth > 64) return null;
  if (v instanceof Uint8Array) {
    let s = "";
    for (const b of v) s += b.toString(16).padStart(2, "0");
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => toAttrValue(x, depth + 1));
  if (typeof v === "object") {
    const out: { [key: string]: AttrValue } = {};
    for (const [k, c] of Object.entries(v as Record<string, unknown>)) if (c !== undefined) setOwn(out, k, toAttrValue(c, depth + 1));
    return out;
  }
  return String(v);
}
