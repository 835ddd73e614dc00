/**
 * The replay worker: fetches one run's events page by page, folds the reconstruct as each
 * page arrives (the page shows the first frames while the rest loads), and holds the
 * current Replay, so folding a long run (hashing every event, rebuilding every state)
 * never blocks the page. Comlink exposes `load`, `replay` and `view`; the page keeps only
 * the answers it still needs.
 */
import { expose } from "comlink";
import type { Fidelity, JournalEvent, RunId } from "@/lib/journal/types";
import { createReplay, openReplay, ReplayError, type ForkSpec, type GrowingReplay, type Replay } from "@/lib/replay";
import { buildRows, createRowBuilder } from "./frame-rows";
import { fetchEventPage } from "./event-pages";
import { eventOf, type PageRow } from "./parse-events";
import { forkKey, type FrameView, type ReplayAnswer, type ReplayProgress } from "./protocol";

let run = "";
let fidelity: Fidelity | undefined;
let events: JournalEvent[] = [];
let chain: "recorder" | "server" = "recorder";
let redactedSeqs = new Set<number>();
const redacted = (seq: number) => redactedSeqs.has(seq);
let hashed = 0;
let loadId = 0;
let current: { key: string; replay: Replay; forked: boolean } | null = null;
/** The reconstruct folded while loading, answered by `replay(null)` without folding again. */
let streamed: { replay: Replay; ms: number } | null = null;
/** Whether the page's rows are still the ones the load streamed (no other replay answered since). */
let pageHasStreamedRows = false;

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
  /**
   * Fetches the run's event pages and folds its reconstruct as they come, calling
   * `onProgress` after each page with the rows and divergences it added. The recorder's
   * chain is checked while nothing in the run was redacted; the first page holding a
   * redacted event switches to Retrace's own chain and folds again from the start
   * (`restart`), since the recorder's hashes cannot verify on redacted text.
   */
  async load(
    runId: string,
    runFidelity: Fidelity | undefined,
    onProgress: (p: ReplayProgress) => void,
  ): Promise<{ events: number; chain: "recorder" | "server" }> {
    const id = ++loadId;
    run = runId;
    fidelity = runFidelity;
    events = [];
    chain = "recorder";
    redactedSeqs = new Set();
    current = null;
    streamed = null;
    pageHasStreamedRows = false;
    const t0 = performance.now();
    let growing: GrowingReplay | null = null;
    let builder = createRowBuilder();
    let after = -1;
    for (;;) {
      const page = await fetchEventPage(runId, after);
      if (id !== loadId) throw new Error("superseded by a newer load");
      for (const r of page.events) if (r.redactions > 0) redactedSeqs.add(r.seq);
      const restart = chain === "recorder" && page.events.some((r) => r.redactions > 0);
      if (restart) chain = "server";
      // The pages before are fetched again for the refold rather than held all along for a
      // switch that most runs never make (they were a second copy of every event).
      const earlier = restart ? await pagesBefore(runId, after, id) : [];
      const fresh = [...earlier, ...page.events].map((r) => eventOf(r, chain));
      if (restart || growing === null) {
        growing = openReplay(runId as RunId, { plan: null, fidelity, redacted });
        builder = createRowBuilder();
        events = [];
        current = { key: forkKey(null), replay: growing.replay, forked: false };
      }
      for (const e of fresh) events.push(e);
      const out = growing.push(fresh);
      onProgress({
        key: forkKey(null),
        restart: restart && earlier.length > 0,
        rows: builder.rows(fresh, out.frames),
        divergences: out.divergences,
        loaded: out.events,
        done: page.nextAfter === null,
        summary: { ...growing.replay.summary(), divergences: [], blocked: [] },
        chain,
      });
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    hashed = events.filter((ev) => typeof ev.hash === "string").length;
    if (growing) streamed = { replay: growing.replay, ms: performance.now() - t0 };
    pageHasStreamedRows = growing !== null;
    return { events: events.length, chain };
  },

  /** Folds the run once for this fork (a reconstruct when it is null or cannot apply). */
  replay(fork: ForkSpec | null): ReplayAnswer {
    const t0 = performance.now();
    const reuse = fork === null && streamed !== null;
    const { replay, forkError } = reuse ? { replay: streamed!.replay, forkError: null } : replayOf(fork);
    const key = forkError === null ? forkKey(fork) : forkKey(null);
    current = { key, replay, forked: forkError === null && fork !== null };
    // the reconstruct's rows reached the page chunk by chunk; after a fork replaced them they are sent again
    const rowsStand = reuse && pageHasStreamedRows;
    pageHasStreamedRows = rowsStand;
    return {
      key,
      rows: rowsStand ? null : buildRows(replay),
      divergences: [...replay.divergences],
      changes: [...replay.changes],
      summary: replay.summary(),
      forkError,
      chain,
      hashed,
      ms: reuse ? streamed!.ms : performance.now() - t0,
    };
  },

  /** One frame's payloads and state; null when the replay it belongs to was replaced. */
  view(key: string, index: number): FrameView | null {
    // while the run loads, the streamed reconstruct answers for the frames folded so far
    const target = current;
    if (!target || target.key !== key) return null;
    const view = target.replay.seek(index);
    return {
      key,
      index,
      frame: view.frame,
      state: view.state,
      recordedState: target.forked ? view.fold.base.state : null,
      recordedStateHash: target.forked ? view.fold.base.stateHash : null,
    };
  },
};

/** The rows of the pages a load read before the one after `upTo` (again, as the load read them). */
async function pagesBefore(runId: string, upTo: number, id: number): Promise<PageRow[]> {
  const out: PageRow[] = [];
  let after = -1;
  while (after !== upTo) {
    const page = await fetchEventPage(runId, after);
    if (id !== loadId) throw new Error("superseded by a newer load");
    for (const r of page.events) {
      if (r.seq > upTo) return out;
      out.push(r);
      if (r.redactions > 0) redactedSeqs.add(r.seq);
    }
    if (page.nextAfter === null) break;
    after = page.nextAfter;
  }
  return out;
}

export type ReplayWorkerApi = typeof api;

expose(api);
