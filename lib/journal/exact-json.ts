/**
 * JSON with integers beyond 2^53 kept exact: the one reading of such numbers (a bigint of
 * the written digits) for every parser of the code base: journal lines, stored events,
 * trace exports (whole or streamed) and the viewer's event pages. Anything else is a
 * number exactly as JSON.parse reads it.
 */
import { isInteger, isSafeNumber, parse as losslessParse } from "lossless-json";

/** One JSON number's text → a bigint when it is an integer beyond 2^53, else a number. */
export function exactNumber(text: string): number | bigint {
  return isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text);
}

/** The exact parser, always: integers beyond 2^53 as bigint (slower than JSON.parse). */
export function parseExactAlways(text: string): unknown {
  return losslessParse(text, null, exactNumber);
}

/**
 * JSON.parse, unless the text holds an integer beyond 2^53 (seen as an unsafe integer in
 * the parsed value): then the exact parser reads it again, keeping such integers as bigint.
 */
export function parseJsonExact(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return hasUnsafeInteger(value) ? parseExactAlways(text) : value;
}

/**
 * JSON.stringify replacer for display: a bigint as a string of its exact digits (JSON has
 * no bigint, and JSON.stringify throws on one). Not for storage: the canonical form
 * (lib/canonical) writes them as bare digits.
 */
export function bigintAsDigits(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}

export function isUnsafeInteger(v: unknown): boolean {
  return typeof v === "number" && (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) && Number.isInteger(v);
}

function hasUnsafeInteger(value: unknown): boolean {
  if (value === null || typeof value !== "object") return isUnsafeInteger(value);
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const c of v)
        if (c !== null && typeof c === "object") stack.push(c);
        else if (isUnsafeInteger(c)) return true;
    } else if (v !== null && typeof v === "object") {
      for (const k in v) {
        const c = (v as Record<string, unknown>)[k];
        if (c !== null && typeof c === "object") stack.push(c);
        else if (isUnsafeInteger(c)) return true;
      }
    }
  }
  return false;
}
