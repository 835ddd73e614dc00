/**
 * Public types of the replay engine. Everything here is plain data (JSON-serialisable,
 * except that run state may hold bigint), so a replay computed in a worker, the CLI or
 * the server can be handed to the UI as it is.
 */
import type { ChainVerdict } from "../journal/chain";
import type { Fidelity, JournalEvent, JsonValue, RunId, Seq } from "../journal/types";
import type { ForkOverride } from "./fork-override";

/**
 * Where a frame of the replayed stream comes from:
 * - `recorded`: taken from the journal as it is;
 * - `simulated`: derived by the replay (an override applied, a stop the fork's policy
 *   now triggers, a checkpoint of the fork's own state);
 * - `blocked`: a tool call the replay refused to perform (every `write` call, and any call
 *   the fork no longer allows); its recorded result, if any, is substituted;
 * - `stale`: recorded, but downstream of the fork's change: not what would have happened.
 */
export type Provenance = "recorded" | "simulated" | "blocked" | "stale";
export const PROVENANCES: readonly Provenance[] = ["recorded", "simulated", "blocked", "stale"];

export interface ReplayFrame {
  /** Position in the replayed stream (0-based; the scrubber's unit). */
  index: number;
  /** Position of the recorded event this frame came from, in the run's seq order. */
  eventIndex: number;
  /** seq of that recorded event (a frame the replay inserts carries the seq it stands at). */
  seq: Seq;
  provenance: Provenance;
  /** Downstream of the fork's change. A blocked write call keeps `blocked` and is flagged here. */
  stale: boolean;
  /** The event as replayed: the recorded one, or the replay's version of it. */
  event: JournalEvent;
  /** The event as recorded; null for a frame the replay inserted. */
  recorded: JournalEvent | null;
  /** A tool.result taken from the journal in place of a tool the replay did not call. */
  substituted: boolean;
  /** For people: why the frame is blocked, simulated or stale. */
  note: string | null;
  /** Hash of the replay's rebuilt run state after this frame. */
  stateHash: string;
}

export type DivergenceKind =
  | "gap"
  | "chain"
  | "state-hash"
  | "state-patch"
  | "approval-state"
  | "approval"
  | "max-steps"
  | "past-stop"
  | "stop-condition"
  /** a write retried while the call ledger held an earlier one open (effect.retry-after-unknown) */
  | "retry-after-unknown"
  /** the call's args break its tool contract (tool.args-invalid) */
  | "args-invalid"
  /** the call breaks one of the policy's invariants (policy.<kind>); the reason names it */
  | "invariant";

/** A point where what the run recorded disagrees with what the replay derives. */
export interface Divergence {
  seq: Seq;
  kind: DivergenceKind;
  reason: string;
  /** What the replay derived. */
  expected: JsonValue;
  /** What the journal recorded. */
  actual: JsonValue;
  /** False when it follows from an earlier divergence (`causedBy`). */
  meaningful: boolean;
  causedBy: Seq | null;
}

export type ChangeKind = "overridden" | "state" | "state-patch" | "approval" | "approval-state" | "stop" | "stop-condition";

/** A deterministic decision or state that comes out differently in the fork. */
export interface ForkChange {
  seq: Seq;
  kind: ChangeKind;
  reason: string;
  /** The recorded run's value (as the reconstruct replay derives it). */
  recorded: JsonValue;
  /** The fork's value. */
  forked: JsonValue;
  /**
   * True when the fork had already diverged before this event: the change assumes the
   * rest of the run went as recorded, which it would not have. Shown, never presented
   * as what would have happened.
   */
  hypothetical: boolean;
}

export type { ForkOverride };

export interface ForkSpec {
  seq: number;
  override: ForkOverride;
}

export interface ReplayOptions {
  /** The run to replay when the events hold several (default: the first run seen). */
  run?: string;
  /** Fidelity as stored with the run; inferred from the events when absent. */
  fidelity?: Fidelity;
  fork?: ForkSpec;
  /** Events between kept fold snapshots (seek cost is at most this many steps). Default 256. */
  snapshotEvery?: number;
  /**
   * Chain verdicts already computed (ingest stores one per event): return "ok", "fail" or
   * "none" for a seq, or undefined to have the replay verify that event itself.
   */
  chainVerdict?: (seq: number) => ChainVerdict | undefined;
  /**
   * Whether the event at a seq is stored redacted (a secret replaced by a placeholder, as
   * GET /api/runs/{run}/events says with `redactions`): a state it sets or patches is not
   * the recorder's, so state hashes are not checked until one is replaced whole.
   */
  redacted?: (seq: number) => boolean;
  /**
   * The policy attached to the run (`retrace policy attach`, `retrace import --policy`; the
   * run page's `judgedBy`), judged in place of the one run.start recorded, as the findings
   * were. The events and their hash chain stay as recorded.
   */
  attachedPolicy?: JsonValue;
}

interface ForkSummary {
  seq: number;
  override: ForkOverride;
  changes: ForkChange[];
  /** The first change that is not hypothetical, or null when the fork changes nothing. */
  firstChange: ForkChange | null;
  /** seq of the first frame marked stale, or null. */
  firstStale: number | null;
  /** seq at which the fork's run stops (a stop it now triggers), or null. */
  stoppedAt: number | null;
}

/** The replay's result as plain data (the CLI prints it; the run page can show it). */
export interface ReplaySummary {
  run: RunId;
  fidelity: Fidelity;
  bestEffort: boolean;
  bestEffortReason: string | null;
  events: number;
  frames: number;
  provenance: Record<Provenance, number>;
  /** Frames tagged blocked: the write calls (and disallowed calls) not performed. */
  blocked: number[];
  divergences: Divergence[];
  firstMeaningful: Divergence | null;
  fork: ForkSummary | null;
}
