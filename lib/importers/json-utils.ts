/**
 * Small, exact helpers for reading foreign JSON: ids in three encodings, nanosecond times
 * beyond 2^53, JSON hidden inside strings. Integers are never routed through a float.
 */
import { setOwn } from "../journal/own-keys";
import { sha256Hex } from "../canonical";
import { parseJsonExact } from "../journal/parse-line";
import type { JsonObject } from "../journal/types";
import { nonEmptyStr as str } from "../journal/values";
import { bytesToHex, toJson } from "../journal/to-json";

export { bytesToHex, toJson };

export type UnknownRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is UnknownRecord {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

// In the importers a missing and an empty string are alike: `str` is the non-empty one.
export { str };

/** First non-empty string among the candidates. */
export function firstStr(...vs: unknown[]): string | undefined {
  for (const v of vs) {
    const s = str(v);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** A finite number from a number, a bigint or a numeric string (OTLP writes int64 as strings). */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v.trim())) return Number(v);
  return undefined;
}

// A string is only decoded when it looks like a JSON object, array or string, so "2025" or
// "true" stay text: a tool that returned the text "2025" did not return a number.
const LOOKS_LIKE_JSON = /^\s*[[{"]/;

/**
 * Decodes JSON found inside a string, repeatedly (Langfuse encodes some values twice), up to
 * `maxRounds`. Anything that does not parse is returned as it was.
 */
export function decodeJsonString(v: unknown, maxRounds = 3): unknown {
  let cur = v;
  for (let i = 0; i < maxRounds; i++) {
    if (typeof cur !== "string" || !LOOKS_LIKE_JSON.test(cur)) return cur;
    try {
      cur = parseJsonExact(cur);
    } catch {
      return cur;
    }
  }
  return cur;
}

export function toJsonObject(v: Record<string, unknown>): JsonObject {
  return toJson(v) as JsonObject;
}

/** Removes keys whose value is undefined (so optional fields are absent, not null). */
export function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) setOwn(out, k, v);
  return out as T;
}

function base64ToBytes(s: string): Uint8Array | undefined {
  const norm = s.replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(norm) || norm.length === 0) return undefined;
  const padded = norm + "=".repeat((4 - (norm.length % 4)) % 4);
  try {
    const bin = atob(padded);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

/**
 * A trace or span id in any of the encodings seen (hex, base64, decimal integer, bytes)
 * → lowercase hex. `bytes` is the id's width (16 for trace ids, 8 for span ids), used to
 * left-pad decimal ids. Empty or all-zero ids mean "none".
 */
export function idToHex(v: unknown, bytes: 8 | 16): string | undefined {
  let hex: string | undefined;
  if (typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v) && v >= 0)) {
    hex = BigInt(v)
      .toString(16)
      .padStart(bytes * 2, "0");
  } else if (v instanceof Uint8Array) {
    hex = v.length > 0 ? bytesToHex(v) : undefined;
  } else if (typeof v === "string") {
    const s = v.trim();
    if (s === "") return undefined;
    if (/^0x[0-9a-fA-F]+$/.test(s)) {
      // Python's SDK `to_json()` writes ids as 0x-prefixed hex.
      hex = s
        .slice(2)
        .toLowerCase()
        .padStart(bytes * 2, "0");
    } else if (/^[0-9a-fA-F]+$/.test(s) && (s.length === 16 || s.length === 32 || s.length === bytes * 2)) {
      hex = s.toLowerCase();
    } else if (/^\d+$/.test(s)) {
      hex = BigInt(s)
        .toString(16)
        .padStart(bytes * 2, "0");
    } else {
      const b = base64ToBytes(s);
      hex = b && b.length > 0 ? bytesToHex(b) : /^[0-9a-fA-F]+$/.test(s) ? s.toLowerCase() : undefined;
    }
  }
  if (hex === undefined || /^0+$/.test(hex)) return undefined;
  return hex;
}

/** Nanoseconds as an exact bigint, from a bigint, a safe integer number or a digit string. */
export function toNanos(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isFinite(v)) return BigInt(Math.round(v));
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return BigInt(v.trim());
  if (v !== null && typeof v === "object" && "low" in v && "high" in v) return longToBigInt(v as LongLike);
  return undefined;
}

/** protobufjs decodes 64-bit fields into {low, high, unsigned}; rebuilt exactly here. */
interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}
function longToBigInt(l: LongLike): bigint {
  const lo = BigInt(l.low >>> 0);
  const hi = BigInt(l.high >>> 0);
  let n = (hi << 32n) | lo;
  if (!l.unsigned && l.high < 0) n -= 1n << 64n;
  return n;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9})\d*)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * An ISO 8601 timestamp → exact nanoseconds since the epoch. A time without a zone is read
 * as UTC (OpenHands writes local-less times). Returns undefined when it is not a timestamp.
 */
export function isoToNanos(v: unknown): bigint | undefined {
  if (typeof v !== "string") return undefined;
  const m = ISO.exec(v.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? "0"));
  if (!Number.isFinite(ms)) return undefined;
  let ns = BigInt(ms) * 1_000_000n + BigInt((frac ?? "").padEnd(9, "0") || "0");
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1n : 1n;
    const digits = zone.slice(1).replace(":", "");
    const offMin = BigInt(Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
    ns -= sign * offMin * 60n * 1_000_000_000n;
  }
  return ns;
}

const MAX_MS = 8_640_000_000_000_000n;
/** Nanoseconds → RFC 3339 UTC with milliseconds (floored), clamped to the Date range. */
export function nanosToIso(ns: bigint): string {
  let ms = ns / 1_000_000n;
  if (ns < 0n && ns % 1_000_000n !== 0n) ms -= 1n;
  if (ms > MAX_MS) ms = MAX_MS;
  if (ms < -MAX_MS) ms = -MAX_MS;
  return new Date(Number(ms)).toISOString();
}

/** Stable short id of some content: the first 16 hex digits of its SHA-256. */
export function contentId(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** `<prefix>-<id>` restricted to the run id alphabet and 128 characters. */
export function makeRunId(prefix: string, id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._:-]+/g, "_");
  const full = `${prefix}-${clean}`;
  if (full.length <= 128) return full;
  return `${full.slice(0, 128 - 17)}-${sha256Hex(id).slice(0, 16)}`;
}

/** The file name without folders and extension ("a/b/x.tar.traj" → "x.tar"). */
export function fileStem(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const stem = base.replace(/\.(gz)$/i, "").replace(/\.[^.]+$/, "");
  return stem || undefined;
}
