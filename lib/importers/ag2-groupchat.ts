/**
 * AG2 (AutoGen 0.2 lineage) group chats saved as a JSON object whose `history` is the chat's
 * message list, each message `{content, role, name}` with the speaker in `name` (AG2's
 * `ChatResult.chat_history`; tested on CaptainAgent group chats as the Who&When benchmark
 * stores them, with `question`, `question_ID`, `system_prompt` {agent → prompt},
 * `is_correct` and the failure annotation `mistake_agent` / `mistake_step` /
 * `mistake_reason`). One run per file, `ag2-<question_ID | file stem>-<8 hex of the file's
 * SHA-256>`.
 *
 * - The first message is the one the chat was started with: the run's `input`.
 * - A code executor is a speaker with any message that starts with AG2's `exitcode: N
 *   (execution …)`. Each such reply is a code execution: a `tool.call` (`execute_code`, its
 *   arguments the fenced code blocks of the message it answers) with its `tool.result`,
 *   failed when the exit code is not 0. The call sits in the step of the latest model call
 *   (the executor ran that message's code), or in a step of the executor's own when the
 *   code came with the first message. The executor's other replies (AG2's "There is no code
 *   from the last 1 message for me to execute…") are `context` messages.
 * - Every other message is an agent's model call, in a step of its own whose `agent` is the
 *   speaker: the request holds the agent's system prompt (from `system_prompt`) and the
 *   messages since that agent's previous call (`messagesSince` names it).
 * - No times, models or token counts exist in the file: times are synthetic, the model is
 *   `unknown`.
 */
import { JournalBuilder } from "./builder";
import { addCodeExecution } from "./code-execution";
import { asArray, compact, contentId, fileStem, firstStr, isRecord, makeRunId, str, type UnknownRecord } from "./json-utils";
import { normalizeMessages } from "./messages";
import { addModelCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

const EXIT_CODE = /^exitcode:\s*(-?\d+)/;

function textOf(m: UnknownRecord): string {
  return typeof m.content === "string" ? m.content : m.content == null ? "" : JSON.stringify(m.content);
}

function speakerOf(m: UnknownRecord, i: number): string {
  return firstStr(m.name) ?? firstStr(m.role) ?? `speaker-${i}`;
}

export function importAg2GroupChat(value: unknown, body: string, opts: ImportOptions = {}): ImportResult {
  const doc: UnknownRecord = isRecord(value) ? value : {};
  const history = asArray(doc.history).filter(isRecord);
  const systemPrompts = isRecord(doc.system_prompt) ? doc.system_prompt : {};
  const id = firstStr(doc.question_ID, doc.question_id) ?? fileStem(opts.fileName) ?? "chat";
  const runId = makeRunId("ag2", `${id}-${contentId(body).slice(0, 8)}`);

  const executors = new Set(history.filter((m) => EXIT_CODE.test(textOf(m))).map(speakerOf));
  const b = new JournalBuilder();
  let openStep: string | undefined;
  const closeStep = () => {
    if (openStep) b.add({ t: 0n, type: "step.end", step: openStep, parentKey: `s:${openStep}`, data: { status: "ok" } });
    openStep = undefined;
  };
  /** the latest message that was not an executor's: the code an executor runs */
  let lastSpoken = "";
  const lastCall = new Map<string, { call: string; index: number }>();
  let calls = 0;
  let executions = 0;
  const agents: string[] = [];

  history.forEach((m, i) => {
    const speaker = speakerOf(m, i);
    const text = textOf(m);
    if (i === 0) {
      b.add({ t: 0n, type: "input", data: { source: "user", content: text, from: speaker } });
      lastSpoken = text;
      return;
    }
    if (executors.has(speaker)) {
      const exit = EXIT_CODE.exec(text);
      if (!exit) {
        b.add({ t: 0n, type: "context", data: { messages: [{ role: "user", content: text, source: speaker }] } });
        return;
      }
      executions++;
      if (!openStep) {
        openStep = `exec-${executions}`;
        b.add({ t: 0n, type: "step.start", step: openStep, key: `s:${openStep}`, data: { name: speaker, kind: "tool", agent: speaker } });
      }
      addCodeExecution(b, {
        start: 0n,
        end: 0n,
        step: openStep,
        id: `exec-${executions}`,
        code: lastSpoken,
        reply: text,
        exitCode: Number(exit[1]),
        extra: { tool: speaker },
      });
      return;
    }
    closeStep();
    calls++;
    const step = `turn-${calls}`;
    const callId = `m${calls}`;
    if (!agents.includes(speaker)) agents.push(speaker);
    const previous = lastCall.get(speaker);
    const from = previous ? previous.index + 1 : 0;
    const system = str(systemPrompts[speaker]);
    // what this agent had not seen at its previous call; its own messages are the assistant's
    const messages = normalizeMessages([
      ...(system ? [{ role: "system", content: system }] : []),
      ...history.slice(from, i).map((p, j) => {
        const who = speakerOf(p, from + j);
        return { role: who === speaker ? "assistant" : "user", content: textOf(p), name: who };
      }),
    ]);
    addModelCall(b, {
      step,
      t: 0n,
      name: speaker,
      stepData: { agent: speaker },
      call: callId,
      model: "unknown",
      messages,
      request: { messagesSince: previous?.call },
      text,
      toolCalls: [],
    });
    lastCall.set(speaker, { call: callId, index: i });
    openStep = step;
    lastSpoken = text;
  });
  closeStep();

  const correct = typeof doc.is_correct === "boolean" ? doc.is_correct : undefined;
  const startData: Record<string, unknown> = {
    workflow: { name: "ag2-groupchat" },
    agent: { name: agents.join(", ") || "ag2" },
    tags: ["ag2", "ag2-groupchat"],
    source: compact({ format: "ag2-groupchat", file: opts.fileName, questionId: firstStr(doc.question_ID), level: doc.level ?? undefined }),
    input: history.length > 0 ? textOf(history[0]) : null,
  };
  if (typeof doc.question === "string") startData.instruction = doc.question;
  const endData = compact({
    status: correct === undefined ? "succeeded" : correct ? "succeeded" : "failed",
    groundTruth: doc.ground_truth ?? undefined,
    attribution:
      doc.mistake_agent !== undefined
        ? compact({ agent: doc.mistake_agent, step: doc.mistake_step, reason: doc.mistake_reason })
        : undefined,
  });
  const events = b.build({ runId, synthetic: true, start: { data: startData }, end: { data: endData } });
  return {
    format: "ag2-groupchat",
    runs: [{ runId, events }],
    warnings: [
      "AG2 chat histories have no timestamps, models or token counts: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds",
    ],
  };
}
