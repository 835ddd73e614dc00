/**
 * Tool calls answered in recorded order: a replayed agent's tool calls against the recorded
 * ones, one at a time. Unlike `playToolCall` (the latest equal call, for a continuation),
 * a replay asks the same call again and again (a status polled three times) and must get
 * each recorded answer at its place, so the calls are consumed in seq order:
 *
 * - the next recorded call with the same tool and canonically equal arguments (lib/semantics
 *   `groupOf`, as `indexRecording` keys them) answers, with no divergence;
 * - the same tool with other arguments still stands for it (consumed; the caller decides
 *   whether its recorded answer is given), and diverges at its `tool.call` seq with the
 *   first differing argument's pointer (`/args/…`);
 * - another tool, or none left, is a call the recording does not have at this place: nothing
 *   is consumed, and it diverges at the next recorded call's seq (`/tool`), or at run.end's;
 * - `missing()` names the first recorded call the replay never made.
 *
 * Each divergence has the matcher's shape (model-request.ts) with kind `tool-call`.
 */
import type { JsonValue } from "../journal/types";
import { groupOf } from "../semantics";
import { differences, pointerOf, valueAt, type RequestDivergence } from "./model-request";
import type { RecordedTool } from "./recording";

export interface ToolStep {
  /** The recorded call this call stands for (null: none at this place). */
  recorded: RecordedTool | null;
  divergence: RequestDivergence | null;
}

export class ToolCallSequence {
  private next = 0;
  private asked = 0;

  constructor(
    private readonly calls: readonly RecordedTool[],
    /** seq of run.end (or one past the last event): where a call past the last recorded one diverges. */
    private readonly endSeq: number,
  ) {}

  /** How many calls were asked. */
  get replayed(): number {
    return this.asked;
  }

  get recorded(): number {
    return this.calls.length;
  }

  /** Matches one asked call against the next recorded one (see the file comment). */
  ask(tool: string, args: JsonValue): ToolStep {
    this.asked++;
    const x = this.calls[this.next];
    const replayed = { tool, args };
    if (x === undefined) return { recorded: null, divergence: { seq: this.endSeq, kind: "tool-call", path: "", recorded: null, replayed } };
    if (x.tool !== tool)
      return {
        recorded: null,
        divergence: { seq: x.seq, kind: "tool-call", path: "/tool", recorded: { tool: x.tool, args: x.args }, replayed },
      };
    this.next++;
    if (groupOf(tool, args) === x.argsKey) return { recorded: x, divergence: null };
    const first = differences(x.args, args, 1)[0] ?? [];
    return {
      recorded: x,
      divergence: {
        seq: x.seq,
        kind: "tool-call",
        path: `/args${pointerOf(first)}`,
        recorded: valueAt(x.args, first) ?? null,
        replayed: valueAt(args, first) ?? null,
      },
    };
  }

  /** The first recorded call no asked call stood for, as a divergence (null: none). */
  missing(): RequestDivergence | null {
    const x = this.calls[this.next];
    if (x === undefined) return null;
    return { seq: x.seq, kind: "tool-call", path: "", recorded: { tool: x.tool, args: x.args }, replayed: null };
  }
}
