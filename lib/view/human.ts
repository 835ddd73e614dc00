/**
 * Values a reviewer reads in units, not as raw payload: an error as its fields (message,
 * name, code, …) instead of one line of JSON, a policy's durations in days and hours, a
 * retrieved document's age at the time of the retrieval against the allowed age.
 */
import { humanSeconds } from "../analyze";
import { formatDuration } from "./format";

interface ErrorFields {
  message: string | null;
  name: string | null;
  code: string | null;
  retryable: boolean | null;
  stack: string | null;
  /** every other field, as recorded */
  rest: Record<string, unknown> | null;
}

const scalar = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "bigint" ? String(v) : null;

/** An error payload (a string, or an object such as `{message, name, code}`) as fields. */
export function errorFields(error: unknown): ErrorFields {
  if (error === null || error === undefined) return { message: null, name: null, code: null, retryable: null, stack: null, rest: null };
  if (typeof error !== "object" || Array.isArray(error))
    return { message: scalar(error) ?? JSON.stringify(error), name: null, code: null, retryable: null, stack: null, rest: null };
  const { message, name, code, retryable, stack, ...others } = error as Record<string, unknown>;
  return {
    message: scalar(message),
    name: scalar(name),
    code: scalar(code),
    retryable: typeof retryable === "boolean" ? retryable : null,
    stack: typeof stack === "string" ? stack : null,
    rest: Object.keys(others).length > 0 ? others : null,
  };
}

/** A policy value in human units: `retrievalMaxAgeSeconds: 2592000` → "30 days (2,592,000 s)". */
export function policyValueText(key: string, value: unknown): string {
  if (typeof value === "number" && Number.isFinite(value)) {
    if (/seconds$/i.test(key)) return `${humanSeconds(value)} (${value.toLocaleString("en-US")} s)`;
    if (/ms$/i.test(key)) return `${formatDuration(value)} (${value.toLocaleString("en-US")} ms)`;
    if (/^max(steps|turns|iterations)$/i.test(key)) return `${value.toLocaleString("en-US")} ${key.slice(3).toLowerCase()}`;
    return value.toLocaleString("en-US");
  }
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((v) => scalar(v) ?? JSON.stringify(v)).join(", ");
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "yes" : "no";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

interface RetrievedDocument {
  id: string | null;
  version: string | null;
  uri: string | null;
  indexedAt: string | null;
  /** seconds between indexedAt and the retrieval, null when either is unknown */
  ageSeconds: number | null;
  /** older than the allowed age (policy.retrievalMaxAgeSeconds), null without a policy or a date */
  stale: boolean | null;
  content: unknown;
  score: number | null;
}

/** The documents of a `retrieval` event, each with its age when it was retrieved. */
export function retrievedDocuments(data: Record<string, unknown>, retrievedAtMs: number, maxAgeSeconds: unknown): RetrievedDocument[] {
  const docs: unknown[] = Array.isArray(data.documents) ? data.documents : [];
  const max = typeof maxAgeSeconds === "number" && Number.isFinite(maxAgeSeconds) ? maxAgeSeconds : null;
  return docs.map((raw) => {
    const d: Record<string, unknown> =
      raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { content: raw };
    const indexedAt = typeof d.indexedAt === "string" ? d.indexedAt : null;
    const at = indexedAt === null ? NaN : Date.parse(indexedAt);
    const ageSeconds = Number.isFinite(at) && Number.isFinite(retrievedAtMs) ? Math.round((retrievedAtMs - at) / 1000) : null;
    return {
      id: scalar(d.id),
      version: scalar(d.version),
      uri: scalar(d.uri),
      indexedAt,
      ageSeconds,
      stale: ageSeconds === null || max === null ? null : ageSeconds > max,
      content: d.content,
      score: typeof d.score === "number" ? d.score : null,
    };
  });
}

/** "400 days old", "in the future (2 hours after the retrieval)" */
export function ageText(seconds: number): string {
  return seconds >= 0 ? `${humanSeconds(seconds)} old` : `in the future (${humanSeconds(-seconds)} after the retrieval)`;
}
