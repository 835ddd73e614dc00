/**
 * Magentic-One logs as the `autogen-magentic-one` package (AutoGen 0.4 preview, 2024) wrote
 * them: `log.jsonl`, one line per event, `{timestamp, source, message, type:
 * "OrchestrationEvent"}` for what an agent or the orchestrator said and `{timestamp,
 * prompt_tokens, completion_tokens, type: "LLMCallEvent"}` for each model call. Runs are
 * appended to the same file: a run starts with a `UserProxy` message (unless the
 * orchestrator had just asked the user, `Orchestrator (-> UserProxy)`) or after an
 * `Orchestrator (termination condition)` line. Run ids are `magentic-one-<start time>-<8
 * hex of the SHA-256 of the run's lines>`.
 *
 * - The first `UserProxy` message → `input`; later ones (answers to the orchestrator) too.
 * - Each `LLMCallEvent` → a model call (tokens as usage, model `unknown`: the log names
 *   none) in a step of its own. The calls logged before a message are that message's: the
 *   last one answers with the message's text, the earlier ones' answers are not in the log
 *   (the orchestrator's fact sheet before its plan); `agent` is the speaker, `Orchestrator`
 *   for its `(thought)`, `(final answer)`… sources. The log stamps the end of a call only:
 *   its request is placed at the line before it (one agent speaks at a time).
 * - The orchestrator's lines without a model call (`Orchestrator (-> Coder)` instructions,
 *   `Next speaker …`, `Request satisfied.`) → `context` with their source.
 * - A message that starts with the code executor's "The script ran, then exited with Unix
 *   exit code: N" → an `execute_code` tool call (args: the fenced code blocks of the latest
 *   message that had some) in a tool step of its speaker, from the line before it to the
 *   message, `error` when N ≠ 0.
 * - `Orchestrator (final answer)` → `run.end.output`; the termination condition's text →
 *   `run.end.stopReason`. A run with a final answer succeeded, one that ended without one
 *   failed, and one the log stops in before any termination line is `cancelled`.
 */
import { JournalBuilder } from "./builder";
import { addCodeExecution } from "./code-execution";
import { ImportError } from "./import-error";
import { compact, contentId, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { jsonLines } from "./lines";
import { addModelCall } from "./model-call";
import type { ImportOptions, ImportResult, ImportedRun } from "./types";

const EXIT = /^The script ran, then exited with Unix exit code: (-?\d+)/;
const TERMINATION = "Orchestrator (termination condition)";

/** `Orchestrator (thought)` → `Orchestrator`; an agent's own name as it is. */
function agentOf(source: string): string {
  return source.replace(/\s*\(.*\)\s*$/, "") || source;
}

/** The runs of one log: split where a run starts (see above). */
function splitRuns(lines: UnknownRecord[]): UnknownRecord[][] {
  const runs: UnknownRecord[][] = [];
  let current: UnknownRecord[] = [];
  let lastSource = "";
  for (const l of lines) {
    const source = str(l.source) ?? "";
    const isMessage = l.type === "OrchestrationEvent";
    if (isMessage && source === "UserProxy" && current.length > 0 && lastSource !== "Orchestrator (-> UserProxy)") {
      runs.push(current);
      current = [];
    }
    current.push(l);
    if (isMessage) lastSource = source;
    if (isMessage && source === TERMINATION) {
      runs.push(current);
      current = [];
      lastSource = "";
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function importRun(lines: UnknownRecord[], warnings: string[], fileName?: string): ImportedRun {
  const times = lines.map((l) => isoToNanos(l.timestamp));
  if (times.some((t) => t === undefined)) throw new ImportError("a Magentic-One log line has no ISO `timestamp`");
  const at = (i: number) => times[i] as bigint;
  const b = new JournalBuilder();
  let pending: number[] = [];
  let calls = 0;
  let executions = 0;
  let lastCode = "";
  let input: string | undefined;
  let output: string | undefined;
  let stopReason: string | undefined;
  const agents: string[] = [];
  let unknownTypes = 0;

  lines.forEach((l, i) => {
    const t = at(i);
    const before = i > 0 ? at(i - 1) : t;
    if (l.type === "LLMCallEvent") {
      pending.push(i);
      return;
    }
    if (l.type !== "OrchestrationEvent") {
      unknownTypes++;
      return;
    }
    const source = str(l.source) ?? "unknown";
    const text = str(l.message) ?? "";
    const agent = agentOf(source);
    if (source === "UserProxy" && pending.length === 0) {
      b.add({ t, type: "input", data: { source: "user", content: text, from: source } });
      input ??= text;
      return;
    }
    if (source === TERMINATION) stopReason = text;
    if (source === "Orchestrator (final answer)") output = text;
    const exit = EXIT.exec(text);
    if (exit && pending.length === 0) {
      executions++;
      const step = `exec-${executions}`;
      if (!agents.includes(agent)) agents.push(agent);
      b.add({ t: before, type: "step.start", step, key: `s:${step}`, data: { name: source, kind: "tool", agent } });
      const failed = addCodeExecution(b, {
        start: before,
        end: t,
        step,
        id: step,
        code: lastCode,
        reply: text,
        exitCode: Number(exit[1]),
        extra: { latencyMs: Number(t - before) / 1e6 },
      });
      b.add({ t, type: "step.end", step, parentKey: `s:${step}`, data: { status: failed ? "error" : "ok" } });
      return;
    }
    if (pending.length === 0) {
      b.add({ t, type: "context", data: { messages: [{ role: "assistant", content: text, source }] } });
      return;
    }
    if (!agents.includes(agent)) agents.push(agent);
    pending.forEach((li, j) => {
      calls++;
      const step = `call-${calls}`;
      const last = j === pending.length - 1;
      const usage = compact({ inputTokens: toNumber(lines[li].prompt_tokens), outputTokens: toNumber(lines[li].completion_tokens) });
      addModelCall(b, {
        step,
        t: li > 0 ? at(li - 1) : at(li),
        tResponse: at(li),
        name: source,
        stepData: { agent },
        call: `m${calls}`,
        model: "unknown",
        messages: [],
        text: last ? text : "",
        toolCalls: [],
        response: { usage },
      });
      b.add({ t: last ? t : at(li), type: "step.end", step, parentKey: `s:${step}`, data: { status: "ok" } });
    });
    pending = [];
    if (/```/.test(text)) lastCode = text;
  });
  for (const li of pending) {
    calls++;
    const step = `call-${calls}`;
    addModelCall(b, {
      step,
      t: li > 0 ? at(li - 1) : at(li),
      tResponse: at(li),
      name: "unknown",
      call: `m${calls}`,
      model: "unknown",
      messages: [],
      text: "",
      toolCalls: [],
      response: { usage: compact({ inputTokens: toNumber(lines[li].prompt_tokens), outputTokens: toNumber(lines[li].completion_tokens) }) },
    });
    b.add({ t: at(li), type: "step.end", step, parentKey: `s:${step}`, data: { status: "ok" } });
  }
  if (unknownTypes > 0) warnings.push(`${unknownTypes} line(s) of a type other than OrchestrationEvent and LLMCallEvent were skipped`);

  const runText = lines.map((l) => JSON.stringify(l)).join("\n");
  const startIso = str(lines[0].timestamp) ?? "start";
  const runId = makeRunId("magentic-one", `${startIso.replace(/[^0-9T]/g, "").slice(0, 15)}-${contentId(runText).slice(0, 8)}`);
  const status = output !== undefined ? "succeeded" : stopReason !== undefined ? "failed" : "cancelled";
  const events = b.build({
    runId,
    start: {
      t: at(0),
      data: {
        workflow: { name: "magentic-one" },
        agent: { name: agents.join(", ") || "magentic-one" },
        tags: ["magentic-one"],
        source: compact({ format: "magentic-one", file: fileName }),
        input: input ?? null,
      },
    },
    end: {
      t: at(lines.length - 1),
      data: compact({
        status,
        output,
        stopReason,
        error:
          status === "cancelled"
            ? "the log stops before the orchestrator's termination condition"
            : status === "failed"
              ? stopReason
              : undefined,
      }),
    },
  });
  return { runId, events };
}

export function importMagenticOne(body: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const lines = jsonLines(body, warnings);
  if (!lines.some((l) => l.type === "OrchestrationEvent")) throw new ImportError("a Magentic-One log needs OrchestrationEvent lines");
  const runs = splitRuns(lines).map((r) => importRun(r, warnings, opts.fileName));
  return { format: "magentic-one", runs, warnings };
}
