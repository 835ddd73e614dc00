/**
 * What the JSON tree shows of a value without walking all of it: a one-line preview and
 * the children in pages, so an object with 10,000 keys opens at once.
 */

type JsonKind = "object" | "array" | "string" | "number" | "boolean" | "null" | "other";

export function jsonKind(v: unknown): JsonKind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "object":
      return "object";
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "other";
  }
}

export function childCount(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === "object") return Object.keys(v).length;
  return 0;
}

/** Children [from, to) as [key, value] pairs. */
export function childPage(v: unknown, from: number, to: number): [string, unknown][] {
  if (Array.isArray(v)) {
    const out: [string, unknown][] = [];
    for (let i = from; i < Math.min(to, v.length); i++) out.push([String(i), v[i]]);
    return out;
  }
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).slice(from, to);
    return keys.map((k) => [k, (v as Record<string, unknown>)[k]]);
  }
  return [];
}

/** `{3 keys}`, `[12 items]`, or a short form of a scalar. */
export function preview(v: unknown, maxChars = 60): string {
  switch (jsonKind(v)) {
    case "array":
      return `[${childCount(v).toLocaleString("en-US")} ${childCount(v) === 1 ? "item" : "items"}]`;
    case "object":
      return `{${childCount(v).toLocaleString("en-US")} ${childCount(v) === 1 ? "key" : "keys"}}`;
    case "string": {
      const s = v as string;
      return JSON.stringify(s.length > maxChars ? `${s.slice(0, maxChars)}…` : s);
    }
    default:
      return String(v);
  }
}

/** Pretty JSON for copying; very large values are copied whole all the same. */
export function toJsonText(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}
