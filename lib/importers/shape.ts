/**
 * What a file looks like, in words, for the one error an unsupported file gets ("a JSON
 * array of objects with keys id, name, …", "NDJSON whose lines have keys type, payload"),
 * and the first complete lines of an NDJSON head, which detection matches line formats on.
 * Only the head is read; a cut last line is ignored. Keys are attacker-controlled text: they
 * are shortened, and the caller redacts the message like every other error.
 */

const MAX_KEYS = 12;
const MAX_KEY_CHARS = 40;
/** Lines parsed from a head for detection and description. */
const HEAD_LINES = 50;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The complete JSON-object lines at the start of `text` (at most `max`), until one is not. */
export function ndjsonHead(text: string, max = HEAD_LINES): Obj[] {
  const out: Obj[] = [];
  let at = 0;
  while (out.length < max) {
    const nl = text.indexOf("\n", at);
    // the last line of a head may be cut: only lines that end are read
    if (nl < 0) {
      const rest = text.slice(at).trim();
      if (rest && out.length > 0) {
        try {
          const v: unknown = JSON.parse(rest);
          if (isObj(v)) out.push(v);
        } catch {
          /* cut */
        }
      }
      break;
    }
    const line = text.slice(at, nl).trim();
    at = nl + 1;
    if (!line) continue;
    if (!line.startsWith("{")) break;
    try {
      const v: unknown = JSON.parse(line);
      if (!isObj(v)) break;
      out.push(v);
    } catch {
      break;
    }
  }
  return out;
}

/** Keys most lines (or items) share first, then in the order first seen. */
function keyList(objects: Obj[]): string {
  const count = new Map<string, number>();
  for (const o of objects) for (const k of Object.keys(o)) count.set(k, (count.get(k) ?? 0) + 1);
  const keys = [...count.keys()].sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0));
  return listOf(keys);
}

function listOf(keys: Iterable<string>): string {
  const all = [...keys];
  if (all.length === 0) return "no keys";
  const shown = all.slice(0, MAX_KEYS).map((k) => (k.length > MAX_KEY_CHARS ? `${k.slice(0, MAX_KEY_CHARS)}…` : k));
  return `keys ${shown.join(", ")}${all.length > MAX_KEYS ? `, … (${all.length} in all)` : ""}`;
}

/** The member names a zip's local file headers give in the bytes at hand. */
export function zipMembers(bytes: Uint8Array, max = 20): string[] {
  const names: string[] = [];
  const dec = new TextDecoder();
  for (let i = 0; i + 30 <= bytes.length && names.length < max; i++) {
    if (bytes[i] !== 0x50 || bytes[i + 1] !== 0x4b || bytes[i + 2] !== 0x03 || bytes[i + 3] !== 0x04) continue;
    const nameLen = bytes[i + 26] | (bytes[i + 27] << 8);
    if (i + 30 + nameLen > bytes.length) break;
    names.push(dec.decode(bytes.subarray(i + 30, i + 30 + nameLen)));
    i += 29 + nameLen;
  }
  return names;
}

export const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** A description of bytes that are not text a format reads, or undefined when they are text. */
export function describeBinary(head: Uint8Array): string | undefined {
  if (isZip(head)) {
    const names = zipMembers(head);
    return `a ZIP archive${names.length > 0 ? ` with members ${names.slice(0, MAX_KEYS).join(", ")}${names.length > MAX_KEYS ? ", …" : ""}` : ""}`;
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip data";
  const n = Math.min(head.length, 4096);
  for (let i = 0; i < n; i++) if (head[i] === 0) return "binary data (it holds NUL bytes), not text";
  return undefined;
}

/** What a text that is no known format looks like, in a few words. */
export function describeText(text: string, rootKeys?: Set<string>): string {
  const s = text.replace(/^\uFEFF/, "").trimStart();
  if (s.length === 0) return "an empty file";
  if (s.includes("\uFFFD") && !/^[[{]/.test(s)) return "binary data, not UTF-8 text";
  if (s.startsWith("{")) {
    const lines = ndjsonHead(s);
    if (lines.length >= 2) return `NDJSON whose lines have ${keyList(lines)}`;
    if (lines.length === 1 && !/\n\s*\S/.test(s.slice(s.indexOf("\n") >= 0 ? s.indexOf("\n") : s.length))) {
      return `a JSON object with ${keyList(lines)}`;
    }
    return `a JSON object with ${listOf(rootKeys ?? [])}`;
  }
  if (s.startsWith("[")) {
    let items: unknown[] | undefined;
    try {
      const v: unknown = JSON.parse(s);
      if (Array.isArray(v)) items = v;
    } catch {
      /* a cut head: the scanner's keys stand in for the items' */
    }
    if (items) {
      if (items.length === 0) return "an empty JSON array";
      const objs = items.filter(isObj);
      if (objs.length === items.length) return `a JSON array of objects with ${keyList(objs.slice(0, 200))}`;
      const kinds = new Set(items.map((x) => (Array.isArray(x) ? "arrays" : x === null ? "nulls" : `${typeof x}s`)));
      return `a JSON array of ${[...kinds].join(" and ")}`;
    }
    return `a JSON array of objects with ${listOf(rootKeys ?? [])}`;
  }
  const first = s.slice(0, 200);
  if (/^[^\n,]*,[^\n]*\n/.test(first)) return "text that is not JSON (comma-separated lines?)";
  if (/^\s*</.test(first)) return "markup (HTML or XML), not JSON";
  return "text that is not JSON";
}
