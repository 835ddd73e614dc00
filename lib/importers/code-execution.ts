/**
 * A code executor's run of the code blocks an agent wrote (AG2's `exitcode: N (execution …)`
 * replies, Magentic-One's Executor "exited with Unix exit code: N"): one `execute_code` tool
 * call whose arguments are the fenced blocks of the message it ran, and its result, failed
 * when the exit code is not 0. Both multi-agent importers write it here, the same way.
 */
import type { JournalBuilder } from "./builder";
import { compact } from "./json-utils";
import { addStepToolCall } from "./model-call";

const CODE_BLOCK = /```([\w+-]*)[^\n]*\n([\s\S]*?)```/g;

/** The fenced code blocks of a message: what a code executor runs (a block without a language is Python). */
export function codeBlocks(text: string): Array<{ language: string; code: string }> {
  return [...text.matchAll(CODE_BLOCK)].map((m) => ({ language: m[1] || "python", code: m[2] }));
}

export interface CodeExecution {
  /** When the run was asked for and when it answered (ns). */
  start: bigint;
  end: bigint;
  step: string;
  /** The call's id. */
  id: string;
  /** The message whose code blocks ran. */
  code: string;
  /** The executor's reply. */
  reply: string;
  exitCode: number;
  /** More facts for the result (`latencyMs`, the executor's name). */
  extra?: Record<string, unknown>;
}

/** Adds the call and its result to `step`; answers whether the code failed. */
export function addCodeExecution(b: JournalBuilder, x: CodeExecution): boolean {
  const call = { id: x.id, name: "execute_code", args: { blocks: codeBlocks(x.code) } };
  addStepToolCall(b, { t: x.start, step: x.step, key: `t:${call.id}`, call });
  const failed = x.exitCode !== 0;
  b.add({
    t: x.end,
    type: "tool.result",
    step: x.step,
    parentKey: `t:${call.id}`,
    after: `t:${call.id}`,
    data: compact({
      call: call.id,
      status: failed ? "error" : "ok",
      result: x.reply,
      error: failed ? x.reply.split("\n", 1)[0] : undefined,
      exitCode: x.exitCode,
      ...x.extra,
    }),
  });
  return failed;
}
