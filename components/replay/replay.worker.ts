/**
 * The replay worker: holds one run's events and its current Replay, so folding a long run
 * (hashing every event, rebuilding every state) never blocks the page. Comlink exposes
 * `load`, `replay` and `view`; the page keeps only the answers it still needs.
 */
import { expose } from "comlink";
import type { Fidelity, JournalEvent } from "@/lib/journal/types";
import { createReplay, ReplayError, type ForkSpec, type Replay } from "@/lib/replay";
import { buildRows } from "./frame-rows";
import { eventsFromPages } from "./parse-events";
import { forkKey, type FrameView, type ReplayResult } from "./protocol";

let run = "";
let fidelity: Fidelity | undefined;
let events: JournalEvent[] = [];
let chain: "recorder" | "server" = "server";
let redactedSeqs: ReadonlySet<number> = new Set();
const redacted = (seq: number) => redactedSeqs.has(seq);
let hashed = 0;
let current: { key: string; replay: Replay; forked: boolean } | null = null;

function replayOf(fork: ForkSpec | null): { replay: Replay; forkError: string | null } {
  if (fork !== null) {
    try {
      return { replay: createReplay(events, { run, fidelity, fork, redacted }), forkError: null };
    } catch (e) {
      if (!(e instanceof ReplayError)) throw e;
      return { replay: createReplay(events, { run, fidelity, redacted }), forkError: e.message };
    }
  }
  return { replay: createReplay(events, { run, fidelity, redacted }), forkError: null };
}

const api = {
  /** Parses the event pages exactly and picks the hash chain to verify. */
  load(runId: string, pages: string[], runFidelity: Fidelity | undefined): { events: number; chain: "recorder" | "server" } {
    run = runId;
    fidelity = runFidelity;
    const parsed = eventsFromPages(pages);
    events = parsed.events;
    chain = parsed.chain;
    redactedSeqs = parsed.redacted;
    hashed = events.filter((ev) => typeof ev.hash === "string").length;
    current = null;
    return { events: events.length, chain };
  },

  /** Folds the run once for this fork (a reconstruct when it is null or cannot apply). */
  replay(fork: ForkSpec | null): ReplayResult {
    const t0 = performance.now();
    const { replay, forkError } = replayOf(fork);
    const key = forkError === null ? forkKey(fork) : forkKey(null);
    current = { key, replay, forked: forkError === null && fork !== null };
    const summary = replay.summary();
    return {
      key,
      rows: buildRows(replay),
      divergences: [...replay.divergences],
      changes: [...replay.changes],
      summary,
      forkError,
      chain,
      hashed,
      ms: performance.now() - t0,
    };
  },

  /** One frame's payloads and state; null when the replay it belongs to was replaced. */
  view(key: string, index: number): FrameView | null {
    if (!current || current.key !== key) return null;
    const view = current.replay.seek(index);
    return {
      key,
      index,
      frame: view.frame,
      state: view.state,
      recordedState: current.forked ? view.fold.base.state : null,
      recordedStateHash: current.forked ? view.fold.base.stateHash : null,
    };
  },
};

export type ReplayWorkerApi = typeof api;

expose(api);
