/**
 * Values a reviewer reads in units, not as raw payload: an error as its fields (message,
 * name, code, …) instead of one line of JSON, a policy's durations in days and hours, a
 * retrieved document's age at the time of the retrieval as the retrieval verdict gives it
 * (lib/semantics, sent with the inspect answer), never rounded into another verdict.
 */
import { humanSeconds } from "../analyze";
import type { EventVerdictsAnswer } from "./api-types";
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
  /** seconds between indexedAt and the retrieval (exact, fractional), null when either is unknown */
  ageSeconds: number | null;
  /** the verdict: older than the allowed age (policy.retrievalMaxAgeSeconds), null without a policy or a date */
  stale: boolean | null;
  content: unknown;
  score: number | null;
}

/** The documents of a `retrieval` event, each with its age and staleness from the retrieval verdict. */
export function retrievedDocuments(data: Record<string, unknown>, verdict: EventVerdictsAnswer["retrieval"]): RetrievedDocument[] {
  const docs: unknown[] = Array.isArray(data.documents) ? data.documents : [];
  return docs.map((raw, i) => {
    const d: Record<string, unknown> =
      raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { content: raw };
    const indexedAt = typeof d.indexedAt === "string" ? d.indexedAt : null;
    const v = verdict?.documents[i];
    const ageSeconds = v?.ageMs === null || v?.ageMs === undefined ? null : v.ageMs / 1000;
    return {
      id: scalar(d.id),
      version: scalar(d.version),
      uri: scalar(d.uri),
      indexedAt,
      ageSeconds,
      stale: v?.stale ?? null,
      content: d.content,
      score: typeof d.score === "number" ? d.score : null,
    };
  });
}

/** Seconds as the rule reads them: whole, or to the millisecond ("60.4 s"), never rounded to a whole second. */
function exactSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(3)).toLocaleString("en-US", { maximumFractionDigits: 3 })} s`;
}

/** "400 days old", "1 minute old (60.4 s)", "in the future (2 hours after the retrieval)" */
export function ageText(seconds: number): string {
  const abs = Math.abs(seconds);
  const human = humanSeconds(Number.isInteger(abs) ? abs : Math.round(abs * 10) / 10);
  const exact = abs >= 60 && abs < 86_400 && !Number.isInteger(abs / 60) ? ` (${exactSeconds(abs)})` : "";
  return seconds >= 0 ? `${human} old${exact}` : `in the future (${human}${exact} after the retrieval)`;
}
