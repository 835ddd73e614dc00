/**
 * Answer a tool call from a recorded run, or say how it diverges (lib/playback README):
 *
 * - its effect is the recording's: a tool the recording never called, or one the policy
 *   gates (`requireApproval`), is a write; a tool recorded as a write anywhere is a write;
 * - a call is answered only by the latest recorded call with canonically equal arguments
 *   that the call ledger confirms (an ok result, or reconciled as succeeded): a read when
 *   reads are reused, a write when confirmed writes are reused (a resume); a failed or
 *   unknown read is read again, and a write is never answered otherwise (the resume plan's
 *   reuse and skip are the same rule);
 * - anything else diverges: the recorded seq it is measured against (the equal call, else
 *   the tool's latest), a kind, and the JSON diff of the arguments (lib/compare).
 */
import { jsonDiff, type DiffLine } from "../compare";
import type { JsonValue } from "../journal/types";
import { groupOf } from "../semantics";
import { recordedAnswer, type ToolAnswer } from "./answer";
import type { Recording, RecordedTool } from "./recording";

export interface PlaybackRules {
  /** answer reads from the recording when the arguments are canonically equal */
  reuseReads: boolean;
  /** answer a write from an equal recorded one the call ledger confirms */
  reuseConfirmedWrites: boolean;
  /** tools the policy gates (requireApproval): always writes */
  gated: ReadonlySet<string>;
}

export type DivergenceKind =
  /** the recording never called this tool */
  | "unrecorded-tool"
  /** the recording has the tool, never with these arguments (or none with an outcome) */
  | "arguments-differ"
  /** an equal call was recorded, but the ledger does not confirm it (it failed, or nobody knows) */
  | "not-confirmed"
  /** a confirmed equal call was recorded, but this kind of call is not answered from the recording here */
  | "reuse-off";

export interface PlaybackDivergence {
  kind: DivergenceKind;
  /** seq of the recorded call it is measured against (the equal one, else the tool's latest), null when none */
  recordedSeq: number | null;
  /** the asked arguments against that call's, as JSON diff lines ([] when equal or none) */
  diff: DiffLine[];
}

export type ToolPlayback =
  | { kind: "recorded"; effect: "read" | "write"; recorded: RecordedTool; answer: ToolAnswer }
  | { kind: "diverges"; effect: "read" | "write"; gated: boolean; divergence: PlaybackDivergence };

/** The effect a call of `tool` has on playback (see the file comment). */
export function playbackEffect(rec: Recording, tool: string, gated: ReadonlySet<string>): "read" | "write" {
  const history = rec.byTool.get(tool) ?? [];
  if (history.length === 0 || gated.has(tool)) return "write";
  return history.some((h) => h.effect === "write") ? "write" : "read";
}

/** Answer `ask` from the recording, or say how it diverges. */
export function playToolCall(rec: Recording, ask: { tool: string; args: JsonValue }, rules: PlaybackRules): ToolPlayback {
  const history = rec.byTool.get(ask.tool) ?? [];
  const effect = playbackEffect(rec, ask.tool, rules.gated);
  const key = history.length === 0 ? "" : groupOf(ask.tool, ask.args);
  const equal = history.filter((h) => h.argsKey === key);
  const diverges = (kind: DivergenceKind): ToolPlayback => {
    const against = equal.at(-1) ?? history.at(-1) ?? null;
    return {
      kind: "diverges",
      effect,
      gated: rules.gated.has(ask.tool),
      divergence: { kind, recordedSeq: against?.seq ?? null, diff: against ? jsonDiff(against.args, ask.args) : [] },
    };
  };
  if (history.length === 0) return diverges("unrecorded-tool");
  if (equal.length === 0) return diverges("arguments-differ");
  const hit = equal.filter((h) => h.confirmed).at(-1);
  if (!hit) return diverges("not-confirmed");
  if (!(effect === "read" ? rules.reuseReads : rules.reuseConfirmedWrites)) return diverges("reuse-off");
  return { kind: "recorded", effect, recorded: hit, answer: recordedAnswer(hit) };
}
