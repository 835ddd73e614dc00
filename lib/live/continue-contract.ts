/**
 * The continuation engine's contract (lib/live/README.md, "Continue and resume"): where it
 * starts, its policy and ports, the events it adds and its outcome, and the digest a
 * confirmation is tied to.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue, RunPolicy } from "../journal/types";
import type { ToolAnswer } from "../playback";
import type { ForkOverride } from "../replay";
import type { AskedCall, ChatMessage, ModelAnswer, ModelRequest } from "./chat-wire";

export type { ToolAnswer };

export interface ModelSetup {
  model: string;
  params: JsonObject;
  tools: string[];
  /**
   * The instruction ids of the last recorded context before the fork: the agent assembles
   * its next contexts with the same ones, so a live context without them would be reported
   * as context.instruction-omitted for something the agent never dropped.
   */
  instructions?: string[];
}

export interface ContinueStart {
  original: string;
  /** the seq the branch forks at (forkOf.seq) */
  forkSeq: number;
  /** the last original seq the branch keeps */
  upTo: number;
  /** the original's events up to `upTo`, the edited ones replaced (and marked `data.whatIf`) */
  kept: JournalEvent[];
  /** seqs the what-if edited */
  edited: number[];
  /** the branch's policy (the run's, with the fork's policy laid over it) */
  policy: RunPolicy | null;
  messages: ChatMessage[];
  pending: AskedCall[];
  setup: ModelSetup;
  override: ForkOverride | null;
}

export const STOP_REASONS = ["final-answer", "write-needs-confirmation", "read-needs-executor", "max-turns", "model-error"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface ContinuePolicy {
  /** model calls at most (a bound on the loop) */
  maxTurns: number;
  /** what a write call does: stop for a separate confirmation, or get an error result (sandbox-only mode) */
  writes: "stop" | "block";
  /** resume: a write equal to a recorded one confirmed by result or reconcile is answered from the recording */
  reuseConfirmedWrites: boolean;
  /** answer read calls from the recording when the arguments are canonically equal (else the read executor answers them all) */
  reuseReads: boolean;
}

export const DEFAULT_POLICY: ContinuePolicy = { maxTurns: 4, writes: "stop", reuseConfirmedWrites: false, reuseReads: true };

export interface ContinuePorts {
  model(req: ModelRequest): Promise<ModelAnswer>;
  /** the read executor; null when the project has none the caller may use */
  readTool: ((call: { tool: string; args: JsonValue; call: string; seq: number }) => Promise<ToolAnswer>) | null;
}

/** The fields every live event carries (docs/journal-format.md, "Live events"). */
export type ContinueMark = JsonObject & {
  action: string;
  executor: string;
  environment: string;
  actor: string;
  reason: string;
  at: string;
};

export interface AddedEvent {
  seq: number;
  type: string;
  data: JsonObject;
  parent?: number;
}

export interface ContinueOutcome {
  added: AddedEvent[];
  stop: StopReason;
  /** said in words, for the log and the decision event */
  stopDetail: string;
  modelCalls: number;
  readsFromRecording: number;
  readsFromExecutor: number;
  writesReused: number;
  writesBlocked: number;
  /** the write the continuation stopped at */
  pendingWrite: { seq: number; call: string; tool: string; args: JsonValue } | null;
  finalText: string | null;
}

/** The bound a policy puts on a turn count: at most 20, at least 1. */
export function clampTurns(n: number): number {
  return Math.max(1, Math.min(20, Math.floor(Number.isFinite(n) ? n : DEFAULT_POLICY.maxTurns)));
}

/** Ties a confirmation to what the preview showed: the fork, the first request, the executors and the bound. */
export function continueDigest(v: {
  run: string;
  seq: number;
  override: ForkOverride | null;
  first: ModelRequest;
  executor: string;
  readExecutor: string | null;
  policy: ContinuePolicy;
}): string {
  return sha256Hex(canonicalJson(v as unknown as JsonValue));
}
