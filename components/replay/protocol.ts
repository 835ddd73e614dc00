/**
 * What the replay worker answers (replay.worker.ts, called through Comlink). The worker
 * owns the run's events and the Replay (closures and snapshots cannot cross threads); the
 * page holds compact rows and asks for one frame's payloads and state at a time.
 */
import type { EventKind } from "@/lib/graph/kind";
import type { Divergence, ForkChange, ForkSpec, Provenance, ReplayFrame, ReplaySummary } from "@/lib/replay";
import type { RunState } from "@/lib/state";
import type { FrameMode } from "@/lib/live/mode";

/** What one row of the side-by-side list shows; built in the worker, once per replay. */
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

/** What one page of events added to the reconstruct while the run loads. */
export interface ReplayProgress {
  key: string;
  /** The rows so far are void: the replay folded again from the start (see `load`). */
  restart: boolean;
  rows: FrameRow[];
  divergences: Divergence[];
  /** Events folded so far. */
  loaded: number;
  done: boolean;
  /** The reconstruct's summary so far (its `divergences` and `blocked` left empty: the page keeps the divergences). */
  summary: ReplaySummary;
  chain: "recorder" | "server";
}

export interface ReplayResult {
  /** Identifies the replay the rows belong to (the fork spec as JSON, or "reconstruct"). */
  key: string;
  rows: FrameRow[];
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
}

/** `replay`'s answer: rows null when they streamed in with the load's progress and stand. */
export type ReplayAnswer = Omit<ReplayResult, "rows"> & { rows: FrameRow[] | null };

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
