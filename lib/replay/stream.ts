/**
 * `createReplayStream`: the replay's fold driven a chunk at a time, so a page can show the
 * first frames of a long run while the rest is still arriving. Each `push` folds the next
 * events (seq order, continuing the last chunk) and returns only what they added; the
 * stream keeps the fold every `snapshotEvery` events, never the frames' states. Folding a
 * run in chunks of any size gives exactly the frames, divergences and changes of one pass
 * (tests/replay/stream.test.ts), because both are the same `replayStep` over the same
 * events; `createReplay` is this stream fed the whole run.
 */
import type { Fidelity, JournalEvent, RunId } from "../journal/types";
import { createFidelityScan, type FidelityVerdict } from "./fidelity";
import { INITIAL_FOLD, replayStep, type FoldState, type ReplayContext } from "./fold";
import type { Divergence, ForkChange, ForkSpec, Provenance, ReplayFrame, ReplaySummary } from "./types";

export interface ReplayChunk {
  /** Events folded so far, this chunk included. */
  events: number;
  frames: ReplayFrame[];
  divergences: Divergence[];
  changes: ForkChange[];
}

interface ReplayStream {
  readonly every: number;
  /** Events folded so far. */
  readonly events: number;
  /** The fold after the last event pushed. */
  readonly fold: FoldState;
  /** `snapshots[k]`: the fold before event `k * every` (the first is the initial fold). */
  readonly snapshots: readonly FoldState[];
  /** The seq of the last event pushed (−1 before any). */
  readonly lastSeq: number;
  /** Folds the next events: in seq order, each after the last seq already pushed. */
  push(events: readonly JournalEvent[]): ReplayChunk;
  /** Whether the run can be replayed exactly, from what has been pushed so far. */
  fidelity(given?: Fidelity): FidelityVerdict;
}

export function createReplayStream(ctx: ReplayContext, snapshotEvery: number): ReplayStream {
  const every = Math.max(1, Math.floor(snapshotEvery));
  const snapshots: FoldState[] = [];
  const scan = createFidelityScan();
  let fold = INITIAL_FOLD;
  let count = 0;
  let lastSeq = -1;
  return {
    every,
    get events() {
      return count;
    },
    get fold() {
      return fold;
    },
    snapshots,
    get lastSeq() {
      return lastSeq;
    },
    push(events) {
      // checked first, so a bad chunk folds none of its events: a chunk boundary that
      // reordered or repeated the run would fold another run
      let prev = lastSeq;
      for (const event of events) {
        if (!(event.seq > prev)) throw new RangeError(`event seq ${event.seq} does not follow seq ${prev}`);
        prev = event.seq;
      }
      const chunk: ReplayChunk = { events: count, frames: [], divergences: [], changes: [] };
      for (const event of events) {
        if (count % every === 0) snapshots.push(fold);
        const out = replayStep(fold, event, ctx);
        fold = out.fold;
        for (const f of out.frames) chunk.frames.push(f.frame);
        for (const d of out.divergences) chunk.divergences.push(d);
        for (const c of out.changes) chunk.changes.push(c);
        scan.push(event);
        lastSeq = event.seq;
        count++;
      }
      chunk.events = count;
      return chunk;
    },
    fidelity: (given) => scan.verdict(given),
  };
}

/** A replay's summary from what it counted (`createReplay` and the paged replay count differently). */
export function replaySummary(p: {
  run: RunId;
  verdict: FidelityVerdict;
  events: number;
  frames: number;
  provenance: Record<Provenance, number>;
  blocked: number[];
  divergences: readonly Divergence[];
  firstMeaningful: Divergence | null;
  fork: ForkSpec | undefined;
  changes: readonly ForkChange[];
  firstStale: number | null;
  stoppedAt: number | null;
}): ReplaySummary {
  return {
    run: p.run,
    fidelity: p.verdict.fidelity,
    bestEffort: p.verdict.bestEffort,
    bestEffortReason: p.verdict.reason,
    events: p.events,
    frames: p.frames,
    provenance: p.provenance,
    blocked: p.blocked,
    divergences: [...p.divergences],
    firstMeaningful: p.firstMeaningful,
    fork: p.fork
      ? {
          seq: p.fork.seq,
          override: p.fork.override,
          changes: [...p.changes],
          firstChange: p.changes.find((c) => !c.hypothetical) ?? null,
          firstStale: p.firstStale,
          stoppedAt: p.stoppedAt,
        }
      : null,
  };
}
