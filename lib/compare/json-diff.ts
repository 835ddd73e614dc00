/**
 * The one jsondiffpatch wrapper: the difference between two JSON values (event payloads in
 * compare and replay, run states in the inspector) as lines of text, from its delta:
 * `~ /args/amountCents: 23000 → 24000`, `+ /note: "x"`, `- /error: "boom"`. Paths are JSON
 * Pointers; an item removed from an array is named by its index in the old array, an item
 * added by its index in the new one. Values are cut, and nothing is ever HTML.
 *
 * Payload keys are data whatever their name: jsondiffpatch reads `right[name]` and writes
 * `delta[name]`, so a key Object.prototype also has (`__proto__`, `constructor`,
 * `toString`…) would be read from the prototype or set it. Such keys are escaped before
 * diffing (copy-on-write: a value without one is not copied) and unescaped in the lines.
 */
import { create, type Delta } from "jsondiffpatch";
import { bigintAsDigits } from "../journal/exact-json";
import { setOwn } from "../journal/own-keys";

export interface DiffLine {
  op: "add" | "remove" | "replace" | "move";
  path: string;
  /** JSON text of the new value (add, replace). */
  value?: string;
  /** JSON text of the old value (remove, replace, move). */
  old?: string;
  /** For a move, the old index. */
  from?: string;
}

const differ = create({
  // arrays of objects with ids (messages, documents, tool calls) diff by id, not by position
  objectHash: (item: object, index?: number) => {
    const o = item as { [key: string]: unknown };
    const id = o.id ?? o.key ?? o.name;
    return typeof id === "string" || typeof id === "number" ? `id:${String(id)}` : `index:${index ?? 0}`;
  },
  arrays: { detectMove: true, includeValueOnMove: false },
  cloneDiffValues: false,
});

const ESCAPE = "\u0000";
const needsEscape = (k: string) => k in Object.prototype || k.startsWith(ESCAPE);

/** `v` with every key that needs it escaped (`to`) or unescaped (`from`); the same value when none does. */
function rekeyed(v: unknown, dir: "to" | "from"): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const r = rekeyed(v[i], dir);
      if (r !== v[i]) (copy ??= v.slice())[i] = r;
    }
    return copy ?? v;
  }
  const entries = Object.entries(v);
  const changed = entries.some(([k, c]) => (dir === "to" ? needsEscape(k) : k.startsWith(ESCAPE)) || rekeyed(c, dir) !== c);
  if (!changed) return v;
  const out: Record<string, unknown> = {};
  for (const [k, c] of entries) setOwn(out, dir === "to" ? (needsEscape(k) ? ESCAPE + k : k) : unescapeKey(k), rekeyed(c, dir));
  return out;
}

const unescapeKey = (k: string) => (k.startsWith(ESCAPE) ? k.slice(1) : k);

/** JSON text of a value (a bigint as a string of its exact digits), cut to `limit` characters. */
export function jsonText(v: unknown, limit = 300): string {
  let s: string;
  try {
    s = JSON.stringify(rekeyed(v, "from"), bigintAsDigits) ?? "undefined";
  } catch {
    s = String(v);
  }
  return s.length > limit ? `${s.slice(0, limit)}… (${(s.length - limit).toLocaleString("en-US")} more characters)` : s;
}

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

function isArrayDelta(d: object): d is { _t: "a"; [k: string]: unknown } {
  return (d as { _t?: unknown })._t === "a";
}

function walk(delta: Delta, path: string, out: DiffLine[], limit: number): void {
  if (delta === undefined) return;
  if (Array.isArray(delta)) {
    if (delta.length === 1) out.push({ op: "add", path, value: jsonText(delta[0], limit) });
    else if (delta.length === 2) out.push({ op: "replace", path, old: jsonText(delta[0], limit), value: jsonText(delta[1], limit) });
    else if (delta.length === 3 && delta[2] === 0) out.push({ op: "remove", path, old: jsonText(delta[0], limit) });
    else if (delta.length === 3 && delta[2] === 3)
      out.push({ op: "move", path: `${path.slice(0, path.lastIndexOf("/"))}/${String(delta[1])}`, from: path });
    // text diffs (delta[2] === 2) are not enabled in this differ
    return;
  }
  if (isArrayDelta(delta)) {
    const removed = Object.keys(delta)
      .filter((k) => k.startsWith("_") && k !== "_t")
      .sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)));
    const changed = Object.keys(delta)
      .filter((k) => !k.startsWith("_"))
      .sort((x, y) => Number(x) - Number(y));
    for (const k of removed) walk(delta[k] as Delta, `${path}/${k.slice(1)}`, out, limit);
    for (const k of changed) walk(delta[k] as Delta, `${path}/${k}`, out, limit);
    return;
  }
  for (const k of Object.keys(delta)) walk((delta as { [key: string]: Delta })[k], `${path}/${escape(unescapeKey(k))}`, out, limit);
}

/** The changes from `before` to `after`, in document order; [] when they are equal. */
export function jsonDiff(before: unknown, after: unknown, valueLimit = 300): DiffLine[] {
  const delta = differ.diff(rekeyed(before, "to"), rekeyed(after, "to"));
  const out: DiffLine[] = [];
  walk(delta, "", out, valueLimit);
  return out;
}

/** One diff line as plain text. */
export function diffLineText(l: DiffLine): string {
  const path = l.path || "/";
  switch (l.op) {
    case "add":
      return `+ ${path}: ${l.value}`;
    case "remove":
      return `- ${path}: ${l.old}`;
    case "replace":
      return `~ ${path}: ${l.old} → ${l.value}`;
    case "move":
      return `↷ ${l.from} → ${path}`;
  }
}
