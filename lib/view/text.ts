/**
 * Payload text is shown as text, and what would hide or reorder it is made visible:
 * bidirectional controls (which can make `gpj.exe` read as `exe.jpg`), zero-width
 * characters and other invisibles become visible markers such as ⟨U+202E⟩. Long strings
 * are cut for display; the full value stays available to copy.
 */

// bidi embeddings/overrides/isolates, zero-width and joiners, BOM, soft hyphen, word joiner,
// the Mongolian vowel separator, and C0/C1 controls other than tab and newline: matching
// control characters is the point here
const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]/g;

type TextSegment = { kind: "text"; text: string } | { kind: "invisible"; code: string; label: string };

const NAMES: Record<number, string> = {
  0x200b: "zero-width space",
  0x200c: "zero-width non-joiner",
  0x200d: "zero-width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0xfeff: "byte order mark",
  0x00ad: "soft hyphen",
  0x061c: "Arabic letter mark",
};

export function hasInvisibles(s: string): boolean {
  INVISIBLE.lastIndex = 0;
  return INVISIBLE.test(s);
}

export function revealInvisibles(s: string): TextSegment[] {
  const out: TextSegment[] = [];
  let last = 0;
  INVISIBLE.lastIndex = 0;
  for (let m = INVISIBLE.exec(s); m; m = INVISIBLE.exec(s)) {
    if (m.index > last) out.push({ kind: "text", text: s.slice(last, m.index) });
    const cp = m[0].charCodeAt(0);
    const code = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
    out.push({ kind: "invisible", code, label: NAMES[cp] ?? "control character" });
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ kind: "text", text: s.slice(last) });
  return out;
}

/** The first `limit` characters, not splitting a surrogate pair. */
export function truncate(s: string, limit: number): { text: string; cut: number } {
  if (s.length <= limit) return { text: s, cut: 0 };
  let end = limit;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return { text: s.slice(0, end), cut: s.length - end };
}

/**
 * The same as one string, for places that hold plain text only (list rows, graph nodes,
 * canvas labels, titles): each invisible becomes ⟨U+XXXX⟩, so a bidi override cannot
 * reorder what is shown and a zero-width character cannot hide in a name.
 */
export function visibleText(s: string | null | undefined): string {
  if (s === null || s === undefined) return "";
  if (!hasInvisibles(s)) return s;
  return revealInvisibles(s)
    .map((seg) => (seg.kind === "text" ? seg.text : `⟨${seg.code}⟩`))
    .join("");
}
