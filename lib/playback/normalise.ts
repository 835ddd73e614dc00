/**
 * What a request may change from run to run without meaning anything, masked before two
 * requests are compared. Each rule names the client it was seen on; `--ignore POINTER`
 * removes more fields and `--mask REGEX` masks more text.
 *
 * - Claude Code 2.1 (`/v1/messages?beta=true`): `metadata.user_id` holds the session and
 *   installation ids; `cache_control` breakpoints move between turns.
 * - Codex 0.17x (`/v1/responses`): `client_metadata`, `prompt_cache_key` (the session), the
 *   `id` of each input item, and reasoning items' `encrypted_content`.
 * - Codex 0.171: "Chunk ID: 6 hex" and "Wall time: N seconds" in `function_call_output`,
 *   `<current_date>` in `<environment_context>`.
 * - Both: today's date, the working directory, home and `CODEX_HOME` (mapped, not masked:
 *   lib/playback/paths.ts).
 * - Any client: `user`; a redaction placeholder's hash (the recording and the replay redact
 *   with different keys).
 */

export interface NormaliseOptions {
  /** JSON Pointers into the request body to leave out of the comparison. */
  ignore?: readonly string[];
  /** Text matching any of these is masked in every string. */
  masks?: readonly RegExp[];
}

const DROPPED_TOP = new Set(["metadata", "client_metadata", "prompt_cache_key", "user"]);
const DROPPED_ANYWHERE = new Set(["cache_control"]);

const TEXT_MASKS: Array<[RegExp, string]> = [
  [/\[redacted:([a-z-]+):[0-9a-f]{12}\]/g, "[redacted:$1]"],
  [/\b\d{4}-\d{2}-\d{2}\b/g, "<date>"],
  [/\b\d{4}\/\d{2}\/\d{2}\b/g, "<date>"],
  [/Wall time: [0-9.]+ ?(seconds|s|ms)/g, "Wall time: <t>"],
  [/Chunk ID: [0-9a-f]+/g, "Chunk ID: <id>"],
];

function maskText(s: string, masks: readonly RegExp[]): string {
  let out = s;
  for (const [re, to] of TEXT_MASKS) out = out.replace(re, to);
  for (const re of masks) out = out.replace(new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g"), "<masked>");
  return out;
}

function walk(v: unknown, depth: number, inInput: boolean, masks: readonly RegExp[]): unknown {
  if (typeof v === "string") return maskText(v, masks);
  if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1, inInput, masks));
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) {
    if (depth === 0 && DROPPED_TOP.has(k)) continue;
    if (DROPPED_ANYWHERE.has(k)) continue;
    // Responses input items: their ids are the client's, per run (call_id is the model's, kept)
    if (inInput && depth === 2 && (k === "id" || k === "encrypted_content")) continue;
    Object.defineProperty(out, k, {
      value: walk(child, depth + 1, inInput || (depth === 0 && k === "input"), masks),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function unescapePointer(p: string): string[] {
  if (p === "" || p === "/") return [];
  return p
    .replace(/^\//, "")
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function removeAt(v: unknown, path: string[]): void {
  let cur = v;
  for (let i = 0; i < path.length - 1; i++) {
    if (cur === null || typeof cur !== "object") return;
    cur = (cur as Record<string, unknown>)[path[i]];
  }
  if (cur === null || typeof cur !== "object" || path.length === 0) return;
  const last = path[path.length - 1];
  if (Array.isArray(cur)) {
    if (/^\d+$/.test(last)) cur[Number(last)] = null;
  } else if (Object.prototype.hasOwnProperty.call(cur, last)) delete (cur as Record<string, unknown>)[last];
}

/** The request body as compared: what varies masked, ignored pointers removed. */
export function normaliseRequestBody(body: unknown, opts: NormaliseOptions = {}): unknown {
  const out = walk(body, 0, false, opts.masks ?? []);
  for (const p of opts.ignore ?? []) removeAt(out, unescapePointer(p));
  return out;
}
