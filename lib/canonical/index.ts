/**
 * RFC 8785 (JCS) canonical JSON and SHA-256, identical in the browser, node and tests.
 *
 * `canonicalize` (by the RFC's co-author) does the work; the one extension is integers
 * beyond 2^53, which Retrace keeps as bigint so ids and timestamps stay exact: they are
 * written as their exact decimal digits, which is what JCS would write for them had the
 * recorder's JSON library kept them exact too.
 */
import canonicalizeLib from "canonicalize";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { JsonValue } from "../journal/types";

const canonicalizeFn = canonicalizeLib as unknown as (value: unknown) => string | undefined;

/** Canonical JSON text of a JSON value (RFC 8785). */
export function canonicalJson(value: JsonValue | unknown): string {
  try {
    const out = canonicalizeFn(value);
    if (out === undefined) throw new TypeError("value has no JSON form");
    return out;
  } catch (err) {
    if (!containsBigInt(value)) throw err;
    return canonicalWithBigInts(value);
  }
}

function containsBigInt(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "bigint") return true;
    if (v !== null && typeof v === "object") {
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
    }
  }
  return false;
}

/**
 * Rare path: replace each bigint by a marker string carrying a random nonce (so no real
 * string can collide with it), canonicalize, then swap the quoted markers for digits.
 */
function canonicalWithBigInts(value: unknown): string {
  const nonce = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const marker = `\u0001bigint-${nonce}:`;
  const replace = (v: unknown): unknown => {
    if (typeof v === "bigint") return marker + v.toString();
    if (Array.isArray(v)) return v.map(replace);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v)) {
        Object.defineProperty(out, k, { value: replace(child), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  const text = canonicalizeFn(replace(value)) ?? "";
  const quotedMarker = JSON.stringify(marker).slice(0, -1); // opening quote + escaped marker
  let result = "";
  let at = 0;
  for (;;) {
    const i = text.indexOf(quotedMarker, at);
    if (i < 0) break;
    const digitsStart = i + quotedMarker.length;
    const close = text.indexOf('"', digitsStart);
    result += text.slice(at, i) + text.slice(digitsStart, close);
    at = close + 1;
  }
  return result + text.slice(at);
}

let sha256Impl = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return sha256Impl(text);
}

/**
 * The server swaps in node's native SHA-256 (several times faster than the portable one
 * on the ingest hot path); results are identical, which a test checks.
 */
export function useSha256Implementation(impl: (text: string) => string): void {
  sha256Impl = impl;
}

/** `sha256:` + hex of the canonical JSON of a value: the format's state hash. */
export function hashOf(value: unknown): string {
  return "sha256:" + sha256Hex(canonicalJson(value));
}

/** Deep equality by canonical form (RFC 8785), as the analysis rules define "canonically equal". */
export function canonicallyEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
