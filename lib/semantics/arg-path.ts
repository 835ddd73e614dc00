/**
 * Argument paths of tool contracts and invariants: JSON Pointers (RFC 6901) into a call's
 * `args` or a tool result, where a `*` segment stands for every element of an array or
 * every member of an object. Only own members are read (a key such as `__proto__` is
 * data), and nothing is ever evaluated.
 */
import type { JsonValue } from "../journal/types";

/** A valid path: "" (the value itself) or "/" followed by segments. */
export function isArgPath(p: unknown): p is string {
  return typeof p === "string" && (p === "" || p.startsWith("/"));
}

function unescape(seg: string): string {
  return seg.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Every value the path reaches in `value`, in document order (none when a segment is missing). */
export function readPath(value: JsonValue | undefined, path: string): JsonValue[] {
  if (value === undefined) return [];
  if (path === "") return [value];
  let at: JsonValue[] = [value];
  for (const raw of path.slice(1).split("/")) {
    const seg = unescape(raw);
    const next: JsonValue[] = [];
    for (const v of at) {
      if (v === null || typeof v !== "object") continue;
      if (Array.isArray(v)) {
        if (raw === "*") next.push(...v);
        else if (/^(0|[1-9]\d*)$/.test(seg) && Number(seg) < v.length) next.push(v[Number(seg)]);
      } else if (raw === "*") {
        for (const k of Object.keys(v)) next.push(v[k]);
      } else if (Object.hasOwn(v, seg)) next.push(v[seg]);
    }
    at = next;
    if (at.length === 0) break;
  }
  return at;
}

/** The first value the path reaches, undefined when none. */
export function firstAt(value: JsonValue | undefined, path: string): JsonValue | undefined {
  const all = readPath(value, path);
  return all.length > 0 ? all[0] : undefined;
}
