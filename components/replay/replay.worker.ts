/**
 * The replay worker: holds one run's events and its current Replay, so folding a long run
 * (hashing every event, rebuilding every state) never blocks the page. Answers each
 * request with its id; the page drops answers it no longer needs.
 */
import type { Fidelity, JournalEvent } from "@/lib/journal/types";
import { createReplay, ReplayError, type ForkSpec, type Replay } from "@/lib/replay";
import { buildRows } from "./frame-rows";
import { eventsFromPages } from "./parse-events";
import { forkKey, type WorkerRequest, type WorkerResponse } from "./protocol";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerResponse): void;
};

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

scope.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const req = e.data;
  try {
    if (req.kind === "load") {
      run = req.run;
      fidelity = req.fidelity;
      const parsed = eventsFromPages(req.pages);
      events = parsed.events;
      chain = parsed.chain;
      redactedSeqs = parsed.redacted;
      hashed = events.filter((ev) => typeof ev.hash === "string").length;
      current = null;
      scope.postMessage({ kind: "loaded", id: req.id, events: events.length, chain });
      return;
    }
    if (req.kind === "replay") {
      const t0 = performance.now();
      const { replay, forkError } = replayOf(req.fork);
      const key = forkError === null ? forkKey(req.fork) : forkKey(null);
      current = { key, replay, forked: forkError === null && req.fork !== null };
      const summary = replay.summary();
      const ms = performance.now() - t0;
      scope.postMessage({
        kind: "replayed",
        id: req.id,
        key,
        rows: buildRows(replay),
        divergences: [...replay.divergences],
        changes: [...replay.changes],
        summary,
        forkError,
        chain,
        hashed,
        ms,
      });
      return;
    }
    if (!current || current.key !== req.key) return; // superseded by a newer replay
    const view = current.replay.seek(req.index);
    scope.postMessage({
      kind: "view",
      id: req.id,
      key: req.key,
      index: req.index,
      frame: view.frame,
      state: view.state,
      recordedState: current.forked ? view.fold.base.state : null,
      recordedStateHash: current.forked ? view.fold.base.stateHash : null,
    });
  } catch (err) {
    scope.postMessage({ kind: "error", id: req.id, message: err instanceof Error ? err.message : String(err) });
  }
};
