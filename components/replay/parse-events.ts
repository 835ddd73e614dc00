/**
 * Pages of GET /api/runs/{run}/events as the server sends them (text) → journal events.
 * Parsed exactly: an integer beyond 2^53 stays a bigint, so state hashes and the chain
 * verify in the browser as they did at ingest.
 */
import { parseJsonExact } from "@/lib/journal/exact-json";
import type { JournalEvent } from "@/lib/journal/types";

/** One event as the events API sends it: the stored event and the recorder's hash. */
interface PageRow {
  seq: number;
  recordedHash: string | null;
  redactions: number;
  event: JournalEvent;
}

interface Page {
  events: PageRow[];
  nextAfter: number | null;
}

export function parsePage(text: string): Page {
  return parseJsonExact(text) as Page;
}

/** Where the next page starts, read from the end of a page's text without parsing it. */
export function nextAfterOf(text: string): number | null {
  const m = /"nextAfter":(null|\d+)\}\s*$/.exec(text.slice(-40));
  if (m) return m[1] === "null" ? null : Number(m[1]);
  return parsePage(text).nextAfter;
}

/**
 * The events, each with the hash the replay verifies. The recorder's chain covers what
 * the recorder sent; when Retrace redacted nothing, the stored events are that, and the
 * replay checks the recorder's chain (so a tampered journal shows its break). Once
 * anything was redacted, the recorder's hashes cannot verify on what is stored, and the
 * replay checks Retrace's own chain over the stored events instead.
 */
export function eventsFromPages(pages: readonly string[]): {
  events: JournalEvent[];
  chain: "recorder" | "server";
  redacted: ReadonlySet<number>;
} {
  const rows = pages.flatMap((p) => parsePage(p).events);
  const chain = rows.every((r) => r.redactions === 0) ? "recorder" : "server";
  // events stored with a secret replaced: the state they set is not the recorder's (ReplayOptions.redacted)
  const redacted = new Set(rows.filter((r) => r.redactions > 0).map((r) => r.seq));
  const events = rows.map((r) => eventOf(r, chain));
  return { events, chain, redacted };
}

/** The event the replay folds: with the recorder's hash when that chain is checked. */
export function eventOf(r: PageRow, chain: "recorder" | "server"): JournalEvent {
  if (chain === "server") return r.event;
  const { hash: _server, ...rest } = r.event;
  void _server;
  return (r.recordedHash ? { ...rest, hash: r.recordedHash } : rest) as JournalEvent;
}
