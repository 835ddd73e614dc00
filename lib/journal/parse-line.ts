/**
 * One NDJSON line → a validated event, or an error that names the line and the field.
 * Errors never quote payload text (it may hold a secret); they name paths and types.
 */
import { parse as losslessParse, isInteger, isSafeNumber } from "lossless-json";
import type { z } from "zod";
import { dataSchemas, envelopeSchema } from "./schema";
import type { JournalEvent, JsonValue, KnownEventType } from "./types";

export interface ParseLimits {
  /** Deepest nesting of arrays and objects accepted in one event. */
  maxDepth: number;
}
export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxDepth: 128 };

export type LineResult =
  | { ok: true; event: JournalEvent }
  | { ok: false; message: string; run?: string; seq?: number };

// A run of 16+ digits may be an integer beyond 2^53; only then is the slower exact parser used.
const MAYBE_BIG_INT = /\d{16,}/;

function parseNumberExact(value: string): number | bigint {
  if (isInteger(value) && !isSafeNumber(value)) return BigInt(value);
  return Number(value);
}

export function parseJsonExact(text: string): unknown {
  if (!MAYBE_BIG_INT.test(text)) return JSON.parse(text);
  return losslessParse(text, null, parseNumberExact);
}

/** Depth and `__proto__` checks, iteratively (a 10,000-deep line must not overflow the stack). */
function inspect(value: unknown, maxDepth: number): string | null {
  const stack: Array<[unknown, number, string]> = [[value, 1, ""]];
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) return `nesting deeper than ${maxDepth} levels at ${path || "the top level"}`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], depth + 1, `${path}[${i}]`]);
      continue;
    }
    if (Object.getPrototypeOf(v) !== Object.prototype) return `an object at ${path || "the top level"} is not a plain JSON object`;
    for (const key of Object.keys(v)) {
      if (key === "__proto__") return `key "__proto__" at ${path || "the top level"} is not accepted (prototype pollution guard)`;
      stack.push([(v as Record<string, unknown>)[key], depth + 1, path ? `${path}.${key}` : key]);
    }
  }
  return null;
}

export function formatIssues(issues: z.core.$ZodIssue[], prefix = ""): string {
  return issues
    .slice(0, 5)
    .map((i) => {
      const path = [prefix, ...i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)))]
        .filter(Boolean)
        .join(".")
        .replace(/\.\[/g, "[");
      return `${path || "event"}: ${i.message}`;
    })
    .join("; ");
}

function describeBig(v: unknown): string | null {
  return typeof v === "bigint" ? `${v} is beyond 2^53 and cannot be a seq` : null;
}

export function parseLine(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): LineResult {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/ in JSON at position.*$/, "").slice(0, 120) : "";
    // JSON.parse messages quote a few characters of the input; keep only the kind of error.
    const kind = /Unexpected end|Unterminated|end of (JSON|data)/i.test(detail)
      ? "the line ends before the JSON value does (truncated?)"
      : /Duplicate key/.test(detail)
        ? "an object has the same key twice"
        : "not valid JSON";
    // Name the run when the broken line still shows it, so only that run is rejected.
    const run = /"run"\s*:\s*"([A-Za-z0-9._:-]{1,128})"/.exec(text)?.[1];
    return { ok: false, message: kind, run };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: "each line must be one JSON object (an event)" };
  }
  const rec = value as Record<string, unknown>;
  const run = typeof rec.run === "string" ? rec.run : undefined;
  const seq = typeof rec.seq === "number" ? rec.seq : undefined;
  const bad = inspect(value, limits.maxDepth);
  if (bad) return { ok: false, message: bad, run, seq };
  const big = describeBig(rec.seq) ?? (typeof rec.parent === "bigint" ? `parent ${rec.parent} is beyond 2^53` : null);
  if (big) return { ok: false, message: big, run };
  const env = envelopeSchema.safeParse(value);
  if (!env.success) return { ok: false, message: formatIssues(env.error.issues), run, seq };
  const type = env.data.type as string;
  const dataSchema = (dataSchemas as Record<string, z.ZodType>)[type as KnownEventType];
  if (dataSchema) {
    const d = dataSchema.safeParse(env.data.data);
    if (!d.success) return { ok: false, message: `${type}: ${formatIssues(d.error.issues, "data")}`, run, seq };
  }
  // The parsed value itself is returned (not zod's copy) so unknown fields and key order survive.
  return { ok: true, event: value as JournalEvent };
}

export type { JsonValue };
