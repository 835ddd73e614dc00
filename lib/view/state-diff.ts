/**
 * The difference between two run states as lines of text (RFC 6902 operations, which is
 * what state patches are written in), from jsondiffpatch. Never HTML.
 */
import { create } from "jsondiffpatch";
import { format as toJsonPatch } from "jsondiffpatch/formatters/jsonpatch";

export interface DiffLine {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  /** JSON text of the new value (add, replace), cut to `valueLimit` characters. */
  value?: string;
  /** JSON text of the old value (remove, replace), cut likewise. */
  old?: string;
  from?: string;
}

const differ = create({
  // arrays of objects with ids (messages, documents, items) diff by id, not by position
  objectHash: (obj: object, index?: number) => {
    const o = obj as Record<string, unknown>;
    const id = o.id ?? o.key ?? o.name;
    return typeof id === "string" || typeof id === "number" ? `${String(id)}` : `$$index:${index}`;
  },
  arrays: { detectMove: true, includeValueOnMove: false },
  cloneDiffValues: false,
});

function jsonText(v: unknown, limit: number): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? "undefined";
  } catch {
    s = String(v);
  }
  return s.length > limit ? `${s.slice(0, limit)}… (${(s.length - limit).toLocaleString("en-US")} more characters)` : s;
}

function getAt(doc: unknown, path: string): unknown {
  if (path === "") return doc;
  let cur: unknown = doc;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur === null || typeof cur !== "object") return undefined;
    cur = Object.prototype.hasOwnProperty.call(cur, key) ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return cur;
}

export function stateDiff(before: unknown, after: unknown, valueLimit = 300): DiffLine[] {
  const delta = differ.diff(before, after);
  if (!delta) return [];
  const ops = toJsonPatch(delta) as Array<{ op: DiffLine["op"]; path: string; value?: unknown; from?: string }>;
  return ops.map((o) => {
    const line: DiffLine = { op: o.op, path: o.path };
    if (o.from !== undefined) line.from = o.from;
    if (o.op === "add" || o.op === "replace") line.value = jsonText(o.value, valueLimit);
    if (o.op === "remove" || o.op === "replace") line.old = jsonText(getAt(before, o.path), valueLimit);
    return line;
  });
}

/** One diff line as plain text, e.g. `~ /order/status: "open" → "refunded"`. */
export function diffLineText(l: DiffLine): string {
  switch (l.op) {
    case "add":
      return `+ ${l.path || "/"}: ${l.value}`;
    case "remove":
      return `- ${l.path || "/"}: ${l.old}`;
    case "replace":
      return `~ ${l.path || "/"}: ${l.old} → ${l.value}`;
    case "move":
      return `↷ ${l.from} → ${l.path}`;
    default:
      return `${l.op} ${l.path}`;
  }
}
