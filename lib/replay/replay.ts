/**
 * `createReplay`: folds a run once (eagerly, as one chunk of `createReplayStream`: frames,
 * divergences and fork changes are ready on return) and keeps the fold state every
 * `snapshotEvery` events. The run state of any frame is then recomputed from the nearest snapshot, so the UI can scrub a long
 * run without the replay holding one state per event.
 */
import { groupByRun, orderEvents } from "../semantics";
import type { Fidelity, JournalEvent, RunId } from "../journal/types";
import type { RunState } from "../state";
import { INITIAL_FOLD, replayStep, type FoldState, type FrameOut, type ReplayContext } from "./fold";
import { buildForkPlan, ReplayError, type ForkPlan } from "./plan";
import { createReplayStream, replaySummary, type ReplayChunk } from "./stream";
import {
  PROVENANCES,
  type Divergence,
  type ForkChange,
  type Provenance,
  type ReplayFrame,
  type ReplayOptions,
  type ReplaySummary,
} from "./types";

export const DEFAULT_SNAPSHOT_EVERY = 256;

/** One frame with the run state after it and the fold after its event. */
export interface ReplayView {
  frame: ReplayFrame;
  /** The replay's state after the frame (the fork's, when forked). */
  state: RunState;
  /** The recorded run's rebuilt state after the frame's event (equals `state` without a fork). */
  recordedState: RunState;
  fold: FoldState;
}

export interface Replay {
  readonly run: RunId;
  /** The run's events in seq order (for a repeated seq, the first). */
  readonly events: readonly JournalEvent[];
  /** The replayed stream. */
  readonly frames: readonly ReplayFrame[];
  /** Where the journal disagrees with the reconstruction (the recorded run, fork or not). */
  readonly divergences: readonly Divergence[];
  readonly firstMeaningful: Divergence | null;
  /** What the fork changes (empty without a fork). */
  readonly changes: readonly ForkChange[];
  readonly fidelity: Fidelity;
  readonly bestEffort: boolean;
  readonly bestEffortReason: string | null;
  /** Frame index of the cursor; −1 before the first frame. */
  readonly position: number;
  /** Moves the cursor one frame on; null at the end. */
  step(): ReplayView | null;
  /** Moves the cursor to a frame. */
  seek(index: number): ReplayView;
  /** The run state after a frame (the cursor does not move). */
  stateAt(index: number): RunState;
  /** The view of a frame (the cursor does not move). */
  viewAt(index: number): ReplayView;
  /** Index of the first frame with this seq, or −1. */
  frameIndexOfSeq(seq: number): number;
  summary(): ReplaySummary;
}

/** Replays one run of `events` (which may hold several runs; see `options.run`). */
export function createReplay(input: readonly JournalEvent[], options: ReplayOptions = {}): Replay {
  const runs = groupByRun(input);
  const run = options.run ?? runs.keys().next().value;
  if (run === undefined) throw new ReplayError("there are no events to replay");
  const runEvents = runs.get(run);
  if (!runEvents) throw new ReplayError(`no run "${run}" in the journal (runs: ${[...runs.keys()].slice(0, 5).join(", ")})`);
  const events = orderEvents(runEvents);
  const growing = openReplay(run as RunId, { ...options, plan: options.fork ? buildForkPlan(events, options.fork) : null });
  growing.push(events);
  return growing.replay;
}

/** A replay that grows as its run's events arrive in chunks (`push`, in seq order). */
interface GrowingReplay {
  /** Reads what has been pushed so far: its frames and divergences grow with each push. */
  readonly replay: Replay;
  push(events: readonly JournalEvent[]): ReplayChunk;
}

/**
 * Opens the replay of one run whose events will be pushed in seq order. A fork needs its
 * plan, which is resolved against the whole run (`buildForkPlan`), so a streamed replay is
 * a reconstruct unless the caller has every event already.
 */
export function openReplay(
  run: RunId,
  options: Omit<ReplayOptions, "run" | "fork"> & { plan: ForkPlan | null; fork?: ReplayOptions["fork"] },
): GrowingReplay {
  const ctx: ReplayContext = {
    plan: options.plan,
    chainVerdict: options.chainVerdict,
    redacted: options.redacted,
    attached: options.attachedPolicy,
  };
  // Seeking re-steps events whose divergences are already known: skip the chain hashing.
  const seekCtx: ReplayContext = { ...ctx, verifyChain: false };
  const stream = createReplayStream(ctx, options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY);
  const events: JournalEvent[] = [];
  const frames: ReplayFrame[] = [];
  const divergences: Divergence[] = [];
  const changes: ForkChange[] = [];
  const every = stream.every;
  const snapshots = stream.snapshots;
  const fidelity = () => stream.fidelity(options.fidelity);
  let firstMeaningful: Divergence | null = null;

  const checkIndex = (index: number) => {
    if (!Number.isInteger(index) || index < 0 || index >= frames.length)
      throw new RangeError(`frame ${index} is outside 0…${frames.length - 1}`);
  };

  /** Frames of one event, folded from the nearest snapshot before it. */
  const eventOutput = (eventIndex: number): { fold: FoldState; frames: readonly FrameOut[] } => {
    const snap = Math.floor(eventIndex / every);
    let f = snapshots[snap];
    for (let i = snap * every; i < eventIndex; i++) f = replayStep(f, events[i], seekCtx).fold;
    const out = replayStep(f, events[eventIndex], seekCtx);
    return { fold: out.fold, frames: out.frames };
  };

  const viewFrom = (out: { fold: FoldState; frames: readonly FrameOut[] }, index: number): ReplayView => {
    const hit = out.frames.find((f) => f.frame.index === index);
    if (!hit) throw new Error(`replay fold is not deterministic: frame ${index} was not reproduced`);
    return { frame: hit.frame, state: hit.state, recordedState: out.fold.base.state, fold: out.fold };
  };

  let position = -1;
  let cursor: { fold: FoldState; frames: readonly FrameOut[]; eventIndex: number } = { fold: INITIAL_FOLD, frames: [], eventIndex: -1 };

  const replay: Replay = {
    run,
    events,
    frames,
    divergences,
    get firstMeaningful() {
      return firstMeaningful;
    },
    changes,
    get fidelity() {
      return fidelity().fidelity;
    },
    get bestEffort() {
      return fidelity().bestEffort;
    },
    get bestEffortReason() {
      return fidelity().reason;
    },
    get position() {
      return position;
    },
    step() {
      const next = position + 1;
      if (next >= frames.length) return null;
      const eventIndex = frames[next].eventIndex;
      if (eventIndex !== cursor.eventIndex) {
        const out = replayStep(cursor.fold, events[eventIndex], seekCtx);
        cursor = { fold: out.fold, frames: out.frames, eventIndex };
      }
      position = next;
      return viewFrom(cursor, next);
    },
    seek(index) {
      checkIndex(index);
      const eventIndex = frames[index].eventIndex;
      if (eventIndex !== cursor.eventIndex) cursor = { ...eventOutput(eventIndex), eventIndex };
      position = index;
      return viewFrom(cursor, index);
    },
    stateAt(index) {
      return replay.viewAt(index).state;
    },
    viewAt(index) {
      checkIndex(index);
      const eventIndex = frames[index].eventIndex;
      return viewFrom(eventIndex === cursor.eventIndex ? cursor : eventOutput(eventIndex), index);
    },
    frameIndexOfSeq(seq) {
      // Frames are in seq order: binary search for the first one at `seq`.
      let lo = 0;
      let hi = frames.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (frames[mid].seq < seq) lo = mid + 1;
        else hi = mid;
      }
      return lo < frames.length && frames[lo].seq === seq ? lo : -1;
    },
    summary() {
      const provenance = Object.fromEntries(PROVENANCES.map((p) => [p, 0])) as Record<Provenance, number>;
      const blocked: number[] = [];
      for (const f of frames) {
        provenance[f.provenance]++;
        if (f.provenance === "blocked") blocked.push(f.seq);
      }
      return replaySummary({
        run,
        verdict: fidelity(),
        events: events.length,
        frames: frames.length,
        provenance,
        blocked,
        divergences,
        firstMeaningful,
        fork: options.fork,
        changes,
        firstStale: frames.find((f) => f.stale)?.seq ?? null,
        stoppedAt: stream.fold.stoppedAt,
      });
    },
  };
  return {
    replay,
    push(chunk) {
      const out = stream.push(chunk);
      for (const e of chunk) events.push(e);
      for (const f of out.frames) frames.push(f);
      for (const d of out.divergences) {
        divergences.push(d);
        if (firstMeaningful === null && d.meaningful) firstMeaningful = d;
      }
      for (const c of out.changes) changes.push(c);
      return out;
    },
  };
}
