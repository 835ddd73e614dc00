/**
 * `openPagedReplay`: the replay of a run too long to hold, for the replay page's worker.
 * It folds the run a chunk at a time (`createReplayStream`) and keeps, for the whole run,
 * only the fold every `every` events and a few numbers a frame (its event, its seq); never
 * the events or the frames. A frame is rebuilt by folding its block (the `every` events
 * after a snapshot) again, over that block's events as the caller fetched them again:
 * memory is the snapshots plus 12 bytes a frame, whatever the payloads weigh.
 *
 * A rebuilt frame equals the one the pass made (both are `replayStep` from the same
 * fold over the same events; tests/replay/paged.test.ts), and `refold` refuses a block
 * whose events are not the ones pushed there.
 */
import type { Fidelity, JournalEvent, RunId } from "../journal/types";
import { replayStep, type FoldState, type FrameOut, type ReplayContext } from "./fold";
import type { ForkPlan } from "./plan";
import { DEFAULT_SNAPSHOT_EVERY, type ReplayView } from "./replay";
import { createReplayStream, replaySummary, type ReplayChunk } from "./stream";
import { PROVENANCES, type Divergence, type ForkChange, type Provenance, type ReplayOptions, type ReplaySummary } from "./types";

/** A typed array that grows by doubling (a column of a long run). */
class Column<A extends Float64Array | Int32Array> {
  private data: A;
  length = 0;
  constructor(private readonly make: (n: number) => A) {
    this.data = make(1024);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  at(i: number): number {
    return this.data[i];
  }
  /** A copy of [from, to), to send to another thread. */
  slice(from: number, to = this.length): A {
    return this.data.slice(from, to) as A;
  }
}

/** One block rebuilt: its frames (with the state after each) and the fold after each of its events. */
export interface RefoldedBlock {
  block: number;
  /** Event indices [from, to). */
  from: number;
  to: number;
  frames: readonly FrameOut[];
  /** `folds[i]`: the fold after event `from + i`. */
  folds: readonly FoldState[];
}

export interface PagedReplay {
  readonly run: RunId;
  /** Events a block holds (the snapshot interval). */
  readonly every: number;
  readonly events: number;
  readonly frames: number;
  readonly divergences: readonly Divergence[];
  readonly changes: readonly ForkChange[];
  readonly firstMeaningful: Divergence | null;
  /** Folds the next events (seq order, after the last pushed); returns what they added. */
  push(events: readonly JournalEvent[]): ReplayChunk;
  frameSeq(index: number): number;
  frameEventIndex(index: number): number;
  /** The seqs of frames [from, to), as a copy. */
  frameSeqs(from: number, to?: number): Float64Array;
  eventSeq(eventIndex: number): number;
  /** The block frame `index` belongs to. */
  blockOfFrame(index: number): number;
  /** Event indices [from, to) of a block, and the seqs of its events. */
  blockRange(block: number): { from: number; to: number; seqs: number[] };
  /** Rebuilds a block from its snapshot over its events (those pushed there, fetched again). */
  refold(block: number, events: readonly JournalEvent[]): RefoldedBlock;
  /** The view of a frame, from its block rebuilt (`refold`). */
  viewIn(refolded: RefoldedBlock, index: number): ReplayView;
  /** Index of the first frame with this seq, or −1. */
  frameIndexOfSeq(seq: number): number;
  /**
   * The summary so far. `lists: false` leaves its divergences, blocked seqs and fork
   * changes empty: a load reports progress after every page, and copying lists that grow
   * with the run each time would make a run with many divergences quadratic.
   */
  summary(opts?: { lists?: boolean }): ReplaySummary;
}

export function openPagedReplay(
  run: RunId,
  options: Omit<ReplayOptions, "run" | "snapshotEvery"> & { plan: ForkPlan | null; snapshotEvery?: number; fidelity?: Fidelity },
): PagedReplay {
  const ctx: ReplayContext = {
    plan: options.plan,
    chainVerdict: options.chainVerdict,
    redacted: options.redacted,
    attached: options.attachedPolicy,
  };
  // a rebuilt block re-steps events whose divergences are known: skip the chain hashing
  const seekCtx: ReplayContext = { ...ctx, verifyChain: false };
  const stream = createReplayStream(ctx, options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY);
  const every = stream.every;
  const frameEvent = new Column((n) => new Int32Array(n));
  const frameSeq = new Column((n) => new Float64Array(n));
  const eventSeq = new Column((n) => new Float64Array(n));
  const divergences: Divergence[] = [];
  const changes: ForkChange[] = [];
  const provenance = Object.fromEntries(PROVENANCES.map((p) => [p, 0])) as Record<Provenance, number>;
  const blocked: number[] = [];
  let firstMeaningful: Divergence | null = null;
  let firstStale: number | null = null;

  const checkFrame = (index: number) => {
    if (!Number.isInteger(index) || index < 0 || index >= frameSeq.length)
      throw new RangeError(`frame ${index} is outside 0…${frameSeq.length - 1}`);
  };
  const blockRange = (block: number) => {
    const from = block * every;
    if (!Number.isInteger(block) || block < 0 || from >= eventSeq.length) throw new RangeError(`block ${block} is not folded`);
    const to = Math.min(from + every, eventSeq.length);
    const seqs: number[] = [];
    for (let i = from; i < to; i++) seqs.push(eventSeq.at(i));
    return { from, to, seqs };
  };

  const replay: PagedReplay = {
    run,
    every,
    get events() {
      return eventSeq.length;
    },
    get frames() {
      return frameSeq.length;
    },
    divergences,
    changes,
    get firstMeaningful() {
      return firstMeaningful;
    },
    push(chunk) {
      const out = stream.push(chunk);
      for (const e of chunk) eventSeq.push(e.seq);
      for (const f of out.frames) {
        frameEvent.push(f.eventIndex);
        frameSeq.push(f.seq);
        provenance[f.provenance]++;
        if (f.provenance === "blocked") blocked.push(f.seq);
        if (firstStale === null && f.stale) firstStale = f.seq;
      }
      for (const d of out.divergences) {
        divergences.push(d);
        if (firstMeaningful === null && d.meaningful) firstMeaningful = d;
      }
      for (const c of out.changes) changes.push(c);
      return out;
    },
    frameSeq: (index) => (checkFrame(index), frameSeq.at(index)),
    frameEventIndex: (index) => (checkFrame(index), frameEvent.at(index)),
    frameSeqs: (from, to) => frameSeq.slice(from, to),
    eventSeq: (i) => eventSeq.at(i),
    blockOfFrame: (index) => (checkFrame(index), Math.floor(frameEvent.at(index) / every)),
    blockRange,
    refold(block, events) {
      const { from, to, seqs } = blockRange(block);
      if (events.length !== to - from || events.some((e, i) => e.seq !== seqs[i]))
        throw new RangeError(`block ${block} needs the events of seqs ${seqs[0]}…${seqs[seqs.length - 1]} as they were folded`);
      let fold = stream.snapshots[block];
      const frames: FrameOut[] = [];
      const folds: FoldState[] = [];
      for (const e of events) {
        const out = replayStep(fold, e, seekCtx);
        fold = out.fold;
        folds.push(fold);
        for (const f of out.frames) frames.push(f);
      }
      return { block, from, to, frames, folds };
    },
    viewIn(refolded, index) {
      checkFrame(index);
      const hit = refolded.frames.find((f) => f.frame.index === index);
      if (!hit) throw new RangeError(`frame ${index} is not in block ${refolded.block}`);
      return {
        frame: hit.frame,
        state: hit.state,
        recordedState: refolded.folds[hit.frame.eventIndex - refolded.from].base.state,
        fold: refolded.folds[hit.frame.eventIndex - refolded.from],
      };
    },
    frameIndexOfSeq(seq) {
      let lo = 0;
      let hi = frameSeq.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (frameSeq.at(mid) < seq) lo = mid + 1;
        else hi = mid;
      }
      return lo < frameSeq.length && frameSeq.at(lo) === seq ? lo : -1;
    },
    summary(opts) {
      const lists = opts?.lists ?? true;
      return replaySummary({
        run,
        verdict: stream.fidelity(options.fidelity),
        events: eventSeq.length,
        frames: frameSeq.length,
        provenance: { ...provenance },
        blocked: lists ? [...blocked] : [],
        divergences: lists ? divergences : [],
        firstMeaningful,
        fork: options.fork,
        changes: lists ? changes : [],
        firstStale,
        stoppedAt: stream.fold.stoppedAt,
      });
    },
  };
  return replay;
}
