/**
 * Value → journal JSON, with no dependency beyond the journal's own-key helper, so the
 * recorder package (lib/recorder) can bundle it without the importers' parsers.
 */
import { setOwn } from "./own-keys";
import type { JsonObject, JsonValue } from "./types";

const HEX = "0123456789abcdef";
export function bytesToHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += HEX[x >> 4] + HEX[x & 15];
  return s;
}

/**
 * Any value → a JSON value that the journal accepts: plain objects only, `undefined` dropped,
 * non-finite numbers → null, bytes → hex, keys kept whatever their name (`__proto__`
 * included, as an own key). bigint stays (canonical JSON writes its digits).
 */
export function toJson(v: unknown, depth = 0): JsonValue {
  if (depth > 100) return "[nested too deep]";
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
    case "bigint":
      return v;
    case "number":
      return Number.isFinite(v) ? v : null;
    case "object":
      break;
    default:
      return String(v);
  }
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : toJson(x, depth + 1)));
  const out: JsonObject = {};
  for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
    if (child === undefined) continue;
    setOwn(out, k, toJson(child, depth + 1));
  }
  return out;
}
