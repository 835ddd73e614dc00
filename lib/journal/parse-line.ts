/**
 * One NDJSON line → a validated event, or an error that names the line and the field.
 * Errors never quote payload text (it may hold a secret); they name paths and types.
 */
import type { z } from "zod";
import { parseExactAlways, parseJsonExact } from "./exact-json";
import { fastValidate } from "./fast-validate";
import { dataSchemas, envelopeSchema } from "./schema";
import { isSecretKey } from "../redact/patterns";
import type { JournalEvent, JsonValue, KnownEventType } from "./types";

export interface ParseLimits {
  /** Deepest nesting of arrays and objects accepted in one event. */
  maxDepth: number;
}
export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxDepth: 128 };

export type LineResult =
  | {
      ok: true;
      event: JournalEvent;
      secretKey: boolean;
      /** Every object's keys are in RFC 8785 order and no integer is beyond 2^53 (see canonicalJsonOfSorted). */
      keysSorted: boolean;
      /** JSON.parse of the line gives the event exactly (no integer beyond 2^53 needed the exact parser). */
      plainJson: boolean;
    }
  | { ok: false; message: string; run?: string; seq?: number };

// Re-exported: importers, ingest and the CLI read exact JSON through here.
export { parseJsonExact };

interface Inspection {
  problem: string | null;
  unsafeInteger: boolean;
  /** A non-empty string directly under a secret key name (the format's key rule). */
  secretKey: boolean;
  /** Every object's keys, as enumerated, are in UTF-16 code-unit order. */
  keysSorted: boolean;
  /** Object members counted (a key given twice in the text is one member here). */
  keys: number;
}

// JSON.parse reads such a number as Infinity, which has no JSON form to store or hash.
const OUT_OF_RANGE = "a number is out of range (beyond ±1.8e308, such as 1e400): JSON numbers must fit a double";

// Reused by every call (inspect is synchronous): two new arrays a line were a tenth of
// what ingest allocated on its thread.
const stack: unknown[] = [];
const depths: number[] = [];

/** Ends an inspection on a problem, keeping no part of the line alive in the shared stack. */
function failed(result: Inspection, top: number, problem: string): Inspection {
  stack.fill(undefined, 0, top);
  result.problem = problem;
  return result;
}

/**
 * One pass over a parsed line: depth, integers beyond 2^53, secret key names, and
 * whether keys are already in canonical order (recorders that write JCS, as
 * they must to hash, make that the rule). Iterative (a 10,000-deep line must not
 * overflow the stack); paths are only built when there is a problem to name.
 */
function inspect(value: unknown, maxDepth: number): Inspection {
  const result: Inspection = { problem: null, unsafeInteger: false, secretKey: false, keysSorted: true, keys: 0 };
  // an explicit top, not push/pop: `length = 0` would give the arrays' storage back each call
  let top = 0;
  stack[top] = value;
  depths[top++] = 1;
  while (top > 0) {
    const v = stack[--top];
    stack[top] = undefined; // keep no line alive
    const depth = depths[top];
    if (depth > maxDepth) return failed(result, top, `nesting deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c = v[i];
        if (c !== null && typeof c === "object") {
          stack[top] = c;
          depths[top++] = depth + 1;
        } else if (typeof c === "number" && !Number.isSafeInteger(c)) {
          if (!Number.isFinite(c)) return failed(result, top, OUT_OF_RANGE);
          if (Number.isInteger(c)) result.unsafeInteger = true;
        }
      }
      continue;
    }
    if (Object.getPrototypeOf(v) !== Object.prototype) return failed(result, top, "an object is not a plain JSON object");
    let prevKey = "";
    let keys = 0;
    // for-in, not Object.keys: the same order for a parsed object, without an array a level
    for (const key in v as object) {
      keys++;
      if (key < prevKey) result.keysSorted = false;
      prevKey = key;
      const c = (v as Record<string, unknown>)[key];
      if (c !== null && typeof c === "object") {
        stack[top] = c;
        depths[top++] = depth + 1;
      } else if (typeof c === "string") {
        if (c !== "" && key.length >= 5 && key.length <= 13 && isSecretKey(key)) result.secretKey = true;
      } else if (typeof c === "number" && !Number.isSafeInteger(c)) {
        if (!Number.isFinite(c)) return failed(result, top, OUT_OF_RANGE);
        if (Number.isInteger(c)) result.unsafeInteger = true;
      }
    }
    result.keys += keys;
  }
  return result;
}

/**
 * At least the object members a valid JSON text writes, counted without parsing: its colons
 * preceded (past whitespace) by a quote that is not escaped. Every member's colon is (the
 * quote that ends its key); a colon inside a string is counted only when the string begins
 * with it (the opening quote before it): `":"`, `" :x"`. So a count equal to the members
 * parsed means no key was given twice, and only a larger one needs the exact check.
 * Native indexOf between colons: a few steps per colon.
 */
function membersAtLeast(text: string): number {
  let n = 0;
  for (let i = text.indexOf(":"); i !== -1; i = text.indexOf(":", i + 1)) {
    let j = i - 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = text.charCodeAt(--j);
    if (c !== 0x22) continue;
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) n++;
  }
  return n;
}

/**
 * The message for a line that gives a key twice in one object, else null: the exact parser
 * refuses such a line and says where (the key itself may be a secret: it is not quoted).
 */
function duplicateKey(text: string): string | null {
  try {
    parseExactAlways(text);
    return null;
  } catch (e) {
    const m = /^Duplicate key .* at position (\d+)$/.exec(e instanceof Error ? e.message : "");
    return m ? `an object has the same key twice (the second at character ${Number(m[1]) + 1} of the line)` : null;
  }
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
    value = JSON.parse(text);
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
  const seq = typeof rec.seq === "number" && Number.isSafeInteger(rec.seq) ? rec.seq : undefined;
  let seen = inspect(value, limits.maxDepth);
  if (seen.problem) return { ok: false, message: seen.problem, run, seq };
  // JSON.parse keeps the last of a key given twice; a journal line may not give one twice
  if (membersAtLeast(text) !== seen.keys) {
    const twice = duplicateKey(text);
    if (twice) return { ok: false, message: twice, run, seq };
  }
  // read before the exact parser's value is inspected: it holds bigints, not unsafe numbers
  const plainJson = !seen.unsafeInteger;
  if (seen.unsafeInteger) {
    value = parseExactAlways(text);
    seen = inspect(value, limits.maxDepth);
    if (seen.problem) return { ok: false, message: seen.problem, run, seq };
  }
  return validated(value as Record<string, unknown>, seen, plainJson, run, seq);
}

/**
 * parseLine's checks for an event built in memory rather than parsed (a converted trace
 * import): the value must be what JSON.parse would give for its canonical text (plain
 * objects, no undefined, integers beyond 2^53 as bigint; `plainJson` false when any is).
 */
export function checkEvent(value: unknown, limits: ParseLimits, plainJson: boolean): LineResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: "each line must be one JSON object (an event)" };
  }
  const rec = value as Record<string, unknown>;
  const run = typeof rec.run === "string" ? rec.run : undefined;
  const seq = typeof rec.seq === "number" && Number.isSafeInteger(rec.seq) ? rec.seq : undefined;
  const seen = inspect(value, limits.maxDepth);
  if (seen.problem) return { ok: false, message: seen.problem, run, seq };
  return validated(rec, seen, plainJson, run, seq);
}

function validated(rec: Record<string, unknown>, seen: Inspection, plainJson: boolean, run?: string, seq?: number): LineResult {
  const secretKey = seen.secretKey;
  const keysSorted = seen.keysSorted && plainJson;
  const big = describeBig(rec.seq) ?? (typeof rec.parent === "bigint" ? `parent ${rec.parent} is beyond 2^53` : null);
  if (big) return { ok: false, message: big, run };
  if (fastValidate(rec) === true) return { ok: true, event: rec as JournalEvent, secretKey, keysSorted, plainJson };
  const env = envelopeSchema.safeParse(rec);
  if (!env.success) return { ok: false, message: formatIssues(env.error.issues), run, seq };
  const type = env.data.type as string;
  const dataSchema = (dataSchemas as Record<string, z.ZodType>)[type as KnownEventType];
  if (dataSchema) {
    // the event's own data: the envelope's `data: z.object({})` strips every key of it
    const d = dataSchema.safeParse(rec.data);
    if (!d.success) return { ok: false, message: `${type}: ${formatIssues(d.error.issues, "data")}`, run, seq };
  }
  // The parsed value itself is returned (not zod's copy) so unknown fields and key order survive.
  return { ok: true, event: rec as JournalEvent, secretKey, keysSorted, plainJson };
}

export type { JsonValue };
