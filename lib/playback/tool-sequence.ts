/**
 * The one in-order tool-call matcher of a replay: a replayed agent's tool calls against the
 * recorded ones, each recorded call answering once. The recorder SDK's replay
 * (lib/recorder `replayAgainst`) and the MCP proxy's replay (lib/mcp `McpReplayer`) call
 * it; `playToolCall` (play-tool.ts) is the continuation's rule (the latest equal confirmed
 * call, asked any number of times), not a replay's.
 *
 * A call is equal to a recorded one when the tool is the same and the arguments are
 * canonically equal (lib/semantics `groupOf`, as `indexRecording` keys them). Two orders:
 *
 * - `recorded` (default): each call stands for the next recorded call, in seq order, so a
 *   divergence is at the exact seq where the replay departs:
 *   - equal: answered, no divergence;
 *   - the same tool with other arguments: it still stands for that call (consumed; the
 *     caller decides whether its recorded answer is given), `arguments-differ` at its seq
 *     with the first differing argument's pointer (`/args/…`);
 *   - another tool (`other-tool`, or `unrecorded-tool` when the recording never called it):
 *     nothing consumed, at the next recorded call's seq (`/tool`);
 *   - none left: `extra-call` at run.end's seq.
 * - `first-equal`: each call is answered by the earliest equal recorded call not answered
 *   yet, wherever it is. For a client that issues calls concurrently (an MCP client), whose
 *   calls arrive in another order than recorded. A call no unanswered equal call answers
 *   consumes nothing and diverges: `unrecorded-tool` at the next unanswered call's seq
 *   (`/tool`); `arguments-differ` at the tool's first unanswered call (`/args/…`);
 *   `repeated` when every equal call was already answered (at the tool's first unanswered
 *   call, else at run.end's seq).
 *
 * `missing()` names the first recorded call no asked call stood for (`missing-call`);
 * `placeOf()` says where a call would stand without asking it.
 * Every divergence has the request matcher's shape (model-request.ts), kind `tool-call`,
 * its `path` a JSON Pointer into the recorded `tool.call` event's data (`/tool`, `/args/…`,
 * "" for a whole call) and `recorded` / `replayed` the values at `/args/…`, else the whole
 * calls `{tool, args}` (another tool's arguments are not comparable); `reason` says which
 * case it is.
 */
import type { JsonValue } from "../journal/types";
import { groupOf } from "../semantics";
import { differences, pointerOf, valueAt, type RequestDivergence } from "./model-request";
import type { RecordedTool } from "./recording";

export type ToolCallOrder = "recorded" | "first-equal";

export type ToolDivergenceReason = "unrecorded-tool" | "other-tool" | "arguments-differ" | "repeated" | "extra-call" | "missing-call";

export interface ToolCallDivergence extends RequestDivergence {
  kind: "tool-call";
  reason: ToolDivergenceReason;
}

export interface ToolStep {
  /** The recorded call this call stands for (null: none). With a divergence only in `recorded` order (arguments differ). */
  recorded: RecordedTool | null;
  divergence: ToolCallDivergence | null;
}

export interface ToolSequenceOptions {
  /** See the file comment; default `recorded`. */
  order?: ToolCallOrder;
}

function whole(x: RecordedTool | { tool: string; args: JsonValue }): { tool: string; args: JsonValue } {
  return { tool: x.tool, args: x.args };
}

export class ToolCallSequence {
  /** The recorded calls in seq order. */
  private readonly calls: readonly RecordedTool[];
  private readonly answered = new Set<number>();
  private asked = 0;

  constructor(
    calls: readonly RecordedTool[],
    /** seq of run.end (or one past the last event): where a call past the last recorded one diverges. */
    private readonly endSeq: number,
    private readonly opts: ToolSequenceOptions = {},
  ) {
    this.calls = [...calls].sort((a, b) => a.seq - b.seq);
  }

  /** How many calls were asked. */
  get replayed(): number {
    return this.asked;
  }

  get recorded(): number {
    return this.calls.length;
  }

  /** Matches one asked call (see the file comment); an answered recorded call is never given again. */
  ask(tool: string, args: JsonValue): ToolStep {
    this.asked++;
    return this.opts.order === "first-equal" ? this.firstEqual(tool, args) : this.inRecordedOrder(tool, args);
  }

  /**
   * Where a call asked now would stand, without asking it (nothing answered, nothing
   * counted): the recorded call it would answer or depart from (in `recorded` order the next
   * unanswered call; in `first-equal` the earliest equal unanswered one, else the tool's
   * first unanswered one, else the next unanswered call), and that call's seq, or run.end's
   * when none is left. A call refused before it is matched (policy-guard.ts) is placed here.
   */
  placeOf(tool: string, args: JsonValue): { seq: number; recorded: RecordedTool | null } {
    let x = this.next();
    if (this.opts.order === "first-equal") {
      const key = groupOf(tool, args);
      const open = this.calls.filter((c) => c.tool === tool && !this.answered.has(c.seq));
      x = open.find((c) => c.argsKey === key) ?? open[0] ?? x;
    }
    return { seq: x?.seq ?? this.endSeq, recorded: x ?? null };
  }

  /** The first recorded call no asked call stood for, as a divergence (null: none). */
  missing(): ToolCallDivergence | null {
    const x = this.next();
    if (x === undefined) return null;
    return { seq: x.seq, kind: "tool-call", reason: "missing-call", path: "", recorded: whole(x), replayed: null };
  }

  private next(): RecordedTool | undefined {
    return this.calls.find((c) => !this.answered.has(c.seq));
  }

  private inRecordedOrder(tool: string, args: JsonValue): ToolStep {
    const x = this.next();
    if (x === undefined) return { recorded: null, divergence: this.extra("extra-call", tool, args) };
    if (x.tool !== tool) {
      const reason = this.calls.some((c) => c.tool === tool) ? "other-tool" : "unrecorded-tool";
      return { recorded: null, divergence: this.otherTool(reason, x, tool, args) };
    }
    this.answered.add(x.seq);
    if (groupOf(tool, args) === x.argsKey) return { recorded: x, divergence: null };
    return { recorded: x, divergence: this.argumentsDiffer(x, args) };
  }

  private firstEqual(tool: string, args: JsonValue): ToolStep {
    const key = groupOf(tool, args);
    const hit = this.calls.find((c) => c.tool === tool && c.argsKey === key && !this.answered.has(c.seq));
    if (hit) {
      this.answered.add(hit.seq);
      return { recorded: hit, divergence: null };
    }
    const ofTool = this.calls.filter((c) => c.tool === tool);
    if (ofTool.length === 0) {
      const x = this.next();
      if (x === undefined) return { recorded: null, divergence: this.extra("unrecorded-tool", tool, args) };
      return { recorded: null, divergence: this.otherTool("unrecorded-tool", x, tool, args) };
    }
    const open = ofTool.find((c) => !this.answered.has(c.seq));
    if (ofTool.some((c) => c.argsKey === key)) {
      if (open === undefined) return { recorded: null, divergence: this.extra("repeated", tool, args) };
      return { recorded: null, divergence: { ...this.argumentsDiffer(open, args), reason: "repeated" } };
    }
    return { recorded: null, divergence: this.argumentsDiffer(open ?? ofTool[ofTool.length - 1], args) };
  }

  private argumentsDiffer(x: RecordedTool, args: JsonValue): ToolCallDivergence {
    const first = differences(x.args, args, 1)[0] ?? [];
    return {
      seq: x.seq,
      kind: "tool-call",
      reason: "arguments-differ",
      path: `/args${pointerOf(first)}`,
      recorded: valueAt(x.args, first) ?? null,
      replayed: valueAt(args, first) ?? null,
    };
  }

  /** Another tool than the recorded call's: the two whole calls, their arguments not comparable. */
  private otherTool(reason: ToolDivergenceReason, x: RecordedTool, tool: string, args: JsonValue): ToolCallDivergence {
    return { seq: x.seq, kind: "tool-call", reason, path: "/tool", recorded: whole(x), replayed: whole({ tool, args }) };
  }

  private extra(reason: ToolDivergenceReason, tool: string, args: JsonValue): ToolCallDivergence {
    return { seq: this.endSeq, kind: "tool-call", reason, path: "", recorded: null, replayed: whole({ tool, args }) };
  }
}
