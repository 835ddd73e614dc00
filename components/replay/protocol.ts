/**
 * What the replay worker answers (replay.worker.ts, called through Comlink). The worker
 * owns the run's replay (closures and snapshots cannot cross threads); the page holds two
 * columns a frame and asks for the rows on screen and one frame's payloads and state.
 */
import type { EventKind } from "@/lib/graph/kind";
import type { Divergence, ForkChange, ForkSpec, Provenance, ReplayFrame, ReplaySummary } from "@/lib/replay";
import type { RunState } from "@/lib/state";
import type { FrameMode } from "@/lib/live/mode";

/** What one row of the side-by-side list shows; built in the worker for the rows on screen. */
export interface FrameRow {
  index: number;
  eventIndex: number;
  seq: number;
  /** The replayed event (the recorded one, or the replay's version of it). */
  type: string;
  label: string;
  kind: EventKind;
  provenance: Provenance;
  stale: boolean;
  substituted: boolean;
  note: string | null;
  /** The replay shows something other than what was recorded here (or inserted a frame). */
  simulated: boolean;
  /** The recorded event in the left column; null where the replay inserted a frame. */
  recorded: { type: string; label: string; kind: EventKind } | null;
  /** How the recorded event came to be: the agent's (recorded), a what-if edit (simulated), a live action's (live). */
  mode: FrameMode;
}

/**
 * What the page keeps of every frame: its seq and its event's type (the recorded one; the
 * replay's for a frame the replay inserted), as typed arrays. The rows themselves are
 * built by the worker for the frames on screen (`rows`), so a long run costs the page 10
 * bytes a frame.
 */
export interface FrameColumns {
  count: number;
  /** seq of frame i at [i] (the array may be longer than `count`). */
  seq: Float64Array;
  /** index into `typeNames` of frame i's event type. */
  type: Uint16Array;
  typeNames: readonly string[];
}

/** What one page of events added to the reconstruct while the run loads. */
export interface ReplayProgress {
  key: string;
  /** The frames so far are void: the replay folded again from the start (see `load`). */
  restart: boolean;
  /** The seqs and type ids of the frames this page added. */
  seqs: Float64Array;
  types: Uint16Array;
  typeNames: string[];
  divergences: Divergence[];
  /** Events folded so far. */
  loaded: number;
  done: boolean;
  /** The reconstruct's summary so far (its `divergences` and `blocked` left empty: the page keeps the divergences). */
  summary: ReplaySummary;
  chain: "recorder" | "server";
  /** Some frame so far is not the agent's recording (a live action's branch). */
  branch: boolean;
}

export interface ReplayResult {
  /** Identifies the replay the frames belong to (the fork spec as JSON, or "reconstruct"). */
  key: string;
  frames: FrameColumns;
  divergences: Divergence[];
  changes: ForkChange[];
  summary: ReplaySummary;
  /** The fork asked for could not be applied (the replay is then a reconstruct). */
  forkError: string | null;
  /** Which hash chain the replay verified. */
  chain: "recorder" | "server";
  /** Events that carry a hash of that chain (0: there is no chain to verify). */
  hashed: number;
  /** Time the fold took in the worker, ms. */
  ms: number;
  /** Some frame is not the agent's recording (a live action's branch): rows show each frame's mode. */
  branch: boolean;
}

/** `replay`'s answer: frames null when they streamed in with the load's progress and stand. */
export type ReplayAnswer = Omit<ReplayResult, "frames"> & {
  frames: { seq: Float64Array; type: Uint16Array; typeNames: string[] } | null;
};

export interface FrameView {
  key: string;
  index: number;
  frame: ReplayFrame;
  /** The replay's run state after the frame. */
  state: RunState;
  /** In a fork, the recorded run's (reconstructed) state at the same event. */
  recordedState: RunState | null;
  recordedStateHash: string | null;
}

/** The key of a replay: "reconstruct", or the fork spec as JSON. */
export const forkKey = (fork: ForkSpec | null): string => (fork === null ? "reconstruct" : JSON.stringify(fork));
