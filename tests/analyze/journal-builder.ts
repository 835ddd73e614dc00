/**
 * Hand-written journals for focused tests: give the events' types and data, get a run
 * with seq, ts and (optionally) a valid hash chain filled in.
 */
import { computeEventHash } from "../../lib/journal/chain";
import type { JournalEvent, JsonObject, Seq } from "../../lib/journal/types";
import type { RunId } from "../../lib/journal/types";

export interface Spec {
  type: string;
  data?: JsonObject;
  /** Explicit seq (default: previous + 1). */
  seq?: number;
  /** Explicit timestamp (default: one second after the previous event). */
  ts?: string;
  [extra: string]: unknown;
}

export const T0 = Date.UTC(2026, 10, 7, 11, 0, 0, 0);

export function journal(specs: Spec[], options: { run?: string; chain?: boolean } = {}): JournalEvent[] {
  const run = (options.run ?? "run-1") as RunId;
  let seq = -1;
  const out = specs.map((spec, i) => {
    const { type, data, seq: s, ts, ...extra } = spec;
    seq = s ?? seq + 1;
    return { run, seq: seq as Seq, ts: ts ?? new Date(T0 + i * 1000).toISOString(), type, ...extra, data: data ?? {} } as JournalEvent;
  });
  if (options.chain) chain(out);
  return out;
}

/** Fills in a valid chain, in place (each event chained to the one before it in the list). */
export function chain(events: JournalEvent[]): JournalEvent[] {
  let prev = "";
  for (const e of events) {
    e.hash = computeEventHash(prev, e);
    prev = e.hash;
  }
  return events;
}

export const start = (policy: JsonObject = {}): Spec => ({
  type: "run.start",
  data: {
    workflow: { name: "w", version: "1" },
    agent: { name: "a", version: "1" },
    versions: { prompts: {}, policies: {}, tools: {}, models: {} },
    policy,
  },
});

export const writeCall = (call: string, tool: string, args: JsonObject, key?: string): Spec => ({
  type: "tool.call",
  data: { call, tool, args, effect: "write", ...(key !== undefined ? { idempotencyKey: key } : {}) },
});

export const result = (call: string, status: string, extra: JsonObject = {}): Spec => ({
  type: "tool.result",
  data: { call, status, ...extra },
});
