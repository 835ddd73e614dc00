/**
 * A recorded stream re-emitted with its text rewritten (a replay's places, lib/playback/
 * paths.ts). Streams split strings across events (a tool call's arguments arrive in pieces,
 * a path may be cut in two), so each string that grows by deltas (a "channel") is joined,
 * rewritten whole, and sent in its first piece (the others empty); every other string is
 * rewritten where it stands. Events nothing changed in keep their recorded bytes.
 */
import type { WireFormat } from "./types";
import { isRecord } from "../importers/json-utils";

type Json = Record<string, unknown>;

interface Piece {
  holder: Json;
  key: string;
}

/** The channel a delta belongs to and where its piece of text is, if this event is a delta. */
function deltaPieces(format: WireFormat, e: Json): Array<{ channel: string; piece: Piece }> {
  const out: Array<{ channel: string; piece: Piece }> = [];
  const add = (channel: string, holder: unknown, key: string) => {
    if (isRecord(holder) && typeof holder[key] === "string") out.push({ channel, piece: { holder, key } });
  };
  if (format === "anthropic-messages" && e.type === "content_block_delta" && isRecord(e.delta)) {
    for (const key of ["text", "partial_json", "thinking"]) add(`${String(e.index)}:${key}`, e.delta, key);
  } else if (format === "openai-chat") {
    for (const c of Array.isArray(e.choices) ? e.choices : []) {
      if (!isRecord(c) || !isRecord(c.delta)) continue;
      add(`${String(c.index)}:content`, c.delta, "content");
      for (const t of Array.isArray(c.delta.tool_calls) ? c.delta.tool_calls : [])
        if (isRecord(t)) add(`${String(c.index)}:tool:${String(t.index)}`, t.function, "arguments");
    }
  } else if (format === "openai-responses" && typeof e.type === "string" && e.type.endsWith(".delta")) {
    add(`${e.type}:${String(e.item_id ?? e.output_index)}:${String(e.content_index ?? "")}`, e, "delta");
  } else if (format === "gemini") {
    const cand = Array.isArray(e.candidates) ? e.candidates[0] : undefined;
    const parts = isRecord(cand) && isRecord(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts : [];
    for (const p of parts) if (isRecord(p) && p.thought !== true) add("text", p, "text");
  }
  return out;
}

function mapDeep(v: unknown, map: (s: string) => string, skip: Set<unknown>): unknown {
  if (typeof v === "string") return map(v);
  if (Array.isArray(v)) return v.map((x) => mapDeep(x, map, skip));
  if (!isRecord(v)) return v;
  for (const k of Object.keys(v)) if (!(skip.has(v) && typeof v[k] === "string")) v[k] = mapDeep(v[k], map, skip);
  return v;
}

interface Block {
  text: string;
  event?: string;
  json?: Json;
}

/** Splits an event-stream text into its blocks (each with its blank line). */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  const re = /[\s\S]*?(?:\r?\n\r?\n|$)/g;
  for (const m of text.matchAll(re)) {
    if (m[0] === "") break;
    const block: Block = { text: m[0] };
    const lines = m[0].split(/\r?\n/);
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
    const event = lines.find((l) => l.startsWith("event:"));
    if (event) block.event = event.slice(6).replace(/^ /, "");
    try {
      const parsed: unknown = data.length > 0 ? JSON.parse(data.join("\n")) : undefined;
      if (isRecord(parsed)) block.json = parsed;
    } catch {
      // [DONE] and keep-alives stay as they are
    }
    out.push(block);
  }
  return out;
}

/**
 * The stream's chunks with `map` applied to its text; the same chunks when `map` changes
 * nothing. Rewritten streams are sent one event per chunk.
 */
export function mapStream(
  format: WireFormat,
  chunks: Array<{ atMs: number; text: string }>,
  map: (s: string) => string,
): Array<{ atMs: number; text: string }> {
  const all = chunks.map((c) => c.text).join("");
  const list = blocks(all);
  const channels = new Map<string, Piece[]>();
  for (const b of list)
    if (b.json)
      for (const { channel, piece } of deltaPieces(format, b.json)) channels.set(channel, [...(channels.get(channel) ?? []), piece]);
  const skip = new Set<unknown>();
  const rewritten = new Set<Json>();
  for (const pieces of channels.values()) {
    const whole = pieces.map((p) => p.holder[p.key] as string).join("");
    const mapped = map(whole);
    for (const p of pieces) skip.add(p.holder);
    if (mapped === whole) continue;
    pieces.forEach((p, i) => {
      p.holder[p.key] = i === 0 ? mapped : "";
      rewritten.add(p.holder);
    });
  }
  let changed = false;
  const out = list.map((b) => {
    if (!b.json) return b.text;
    const before = JSON.stringify(b.json);
    const after = JSON.stringify(mapDeep(b.json, map, skip));
    if (after === before && !contains(b.json, rewritten)) return b.text;
    changed = true;
    return `${b.event !== undefined ? `event: ${b.event}\n` : ""}data: ${after}\n\n`;
  });
  return changed ? out.map((text) => ({ atMs: 0, text })) : chunks;
}

function contains(v: unknown, set: Set<Json>): boolean {
  if (isRecord(v)) return set.has(v) || Object.values(v).some((x) => contains(x, set));
  return Array.isArray(v) && v.some((x) => contains(x, set));
}
