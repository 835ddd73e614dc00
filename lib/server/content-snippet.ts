import "server-only";
/**
 * Where a content search matched inside a stored (redacted) event body: the first value
 * (depth first, in the body's key order) whose text holds the query, case-insensitively,
 * named by its path (`data.result.refund_id`) and cut to a window around the match. A
 * match the values do not hold (a key's name, or one across the JSON's punctuation) is
 * shown from the body's text. The snippet is text: the runs list renders it as text.
 */

/** Characters kept before and after the match. */
const BEFORE = 30;
const AFTER = 60;

export interface ContentSnippet {
  /** where in the event: a dotted path ("data.args.order"), "" for the body's text */
  field: string;
  /** the text around the match, with "…" where it was cut */
  snippet: string;
}

function windowAround(text: string, at: number, length: number): string {
  const start = Math.max(0, at - BEFORE);
  const end = Math.min(text.length, at + length + AFTER);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

/** The snippet of `q` in a stored body (canonical JSON text). */
export function contentSnippet(body: string, q: string): ContentSnippet {
  const needle = q.trim().toLowerCase();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  // an explicit stack: a deep body must not overflow the call stack
  const stack: Array<[string, unknown]> = [["", value]];
  while (stack.length > 0) {
    const [path, v] = stack.pop()!;
    if (typeof v === "string" || typeof v === "number") {
      const text = String(v);
      const at = text.toLowerCase().indexOf(needle);
      if (at >= 0) return { field: path, snippet: windowAround(text, at, needle.length) };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([pathOf(path, i), v[i]]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([pathOf(path, entries[i][0]), entries[i][1]]);
    }
  }
  const escaped = JSON.stringify(q.trim()).slice(1, -1).toLowerCase();
  const at = body.toLowerCase().indexOf(escaped);
  return { field: "", snippet: windowAround(body, Math.max(0, at), at >= 0 ? escaped.length : 0) };
}
