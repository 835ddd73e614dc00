/**
 * mini-swe-agent trajectory (`*.traj.json`) → one run `mini-<instance id or file stem>-<8 hex
 * of the file's SHA-256>`. Three shapes are read:
 *
 * - 2.x: `{info: {mini_version, exit_status, submission, model_stats, config}, messages,
 *   trajectory_format}` whose assistant messages carry OpenAI `tool_calls` answered by `tool`
 *   messages (`tool_call_id`), or (text-based models) `extra.actions` answered by the `user`
 *   messages after them; `extra.response.usage` and `extra.cost` per model call, an `exit`
 *   message with the exit status and submission;
 * - 1.x: the same envelope, assistant text with one ```bash block, the next `user` message
 *   its observation (`<returncode>N</returncode>`);
 * - the bare message list of early versions and of `mini` (no `info`).
 *
 * Each assistant message is a step: a model call, and a tool call per action joined to its
 * observation (status `error` for a non-zero return code or an exception, `timeout` for a
 * timed-out command). An assistant message without an action is answered by a format error,
 * recorded as an `error` event. Times come from `extra.timestamp` (seconds since the epoch,
 * written when a response or an observation arrived) when the file has them; a model call's
 * request time is never written, so no latency is given. Without any timestamp, events get
 * the synthetic time 1970-01-01T00:00:00.000Z + seq ms (said in a warning).
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { asArray, compact, contentId, fileStem, firstStr, isRecord, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { chatToolCalls, contentText, type JournalMessage } from "./messages";
import type { ImportOptions, ImportResult } from "./types";

const ACTION_BLOCK = /```(?:bash|mswea_bash_command)\s*\n([\s\S]*?)\n```/g;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>|'returncode':\s*(-?\d+)/;
const SUBMIT_MARKER = /\becho\s+['"]?(COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|\w*SWE_AGENT_FINAL_OUTPUT)\b/;
const TIMED_OUT = /^\s*The last command[\s\S]*timed out/;

interface Action {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  command: string;
}

function statusOf(exit: string | undefined): "succeeded" | "failed" | "cancelled" | undefined {
  if (exit === undefined) return undefined;
  if (/^submitted/i.test(exit)) return "succeeded";
  if (/interrupt|cancel/i.test(exit)) return "cancelled";
  return "failed";
}

const extraOf = (m: UnknownRecord): UnknownRecord => (isRecord(m.extra) ? m.extra : {});

/** Seconds since the epoch (a float) → nanoseconds; undefined when the message has none. */
function timeOf(m: UnknownRecord): bigint | undefined {
  const s = toNumber(extraOf(m).timestamp) ?? toNumber(m.timestamp);
  return s !== undefined && s > 0 ? BigInt(Math.round(s * 1e6)) * 1000n : undefined;
}

/** The actions an assistant message asked for: its tool calls, its parsed `extra.actions`, or its ```bash blocks. */
function actionsOf(m: UnknownRecord, i: number): Action[] {
  const calls = chatToolCalls(m.tool_calls, `m${i}-`);
  if (calls.length > 0) {
    return calls.map((c) => ({ id: c.id, tool: c.name, args: c.args, command: firstStr(c.args.command) ?? "" }));
  }
  const parsed = asArray(extraOf(m).actions).filter(isRecord);
  const commands =
    parsed.length > 0
      ? parsed.map((a) => firstStr(a.command) ?? "")
      : [...contentText(m.content).matchAll(ACTION_BLOCK)].map((x) => x[1].trim());
  // 0.x/1.x run a reply only when it has exactly one block; any other count is a format error
  if (parsed.length === 0 && commands.length !== 1) return [];
  return commands.map((command, j) => ({
    id: firstStr(parsed[j]?.tool_call_id) ?? `m${i}-a${j}`,
    tool: "bash",
    args: { command },
    command,
  }));
}

function resultStatus(m: UnknownRecord, text: string): { status: "ok" | "error" | "timeout"; error?: string } {
  const extra = extraOf(m);
  const exception = firstStr(extra.exception_info);
  if (TIMED_OUT.test(text) || /timed out|timeout/i.test(exception ?? ""))
    return { status: "timeout", error: exception ?? "the command timed out" };
  if (exception) return { status: "error", error: exception };
  const rcMatch = RETURN_CODE.exec(text);
  const rc = toNumber(extra.returncode) ?? (rcMatch ? Number(rcMatch[1] ?? rcMatch[2]) : undefined);
  if (rc !== undefined && rc !== 0) return { status: "error", error: `exit code ${rc}` };
  return { status: "ok" };
}

function usageOf(extra: UnknownRecord): Record<string, number> | undefined {
  const response = isRecord(extra.response) ? extra.response : {};
  const u = isRecord(response.usage) ? response.usage : {};
  const details = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const out = compact({
    inputTokens: toNumber(u.prompt_tokens),
    outputTokens: toNumber(u.completion_tokens),
    cacheReadTokens: toNumber(details.cached_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

export function importMiniSweAgent(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const root = isRecord(value) ? value : {};
  const messages = (Array.isArray(value) ? value : asArray(root.messages)).filter(isRecord);
  const info = isRecord(root.info) ? root.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : {};
  const config = isRecord(info.config) ? info.config : {};
  const modelCfg = isRecord(config.model) ? config.model : {};
  const configModel = firstStr(modelCfg.model_name);
  const version = firstStr(info.mini_version);

  const instanceId = firstStr(root.instance_id, info.instance_id) ?? fileStem(opts.fileName)?.replace(/\.traj$/, "");
  if (!instanceId) warnings.push("no instance id or file name: the run id was derived from the file's content");
  const runId = makeRunId("mini", instanceId ? `${instanceId}-${contentId(text).slice(0, 8)}` : contentId(text));

  const synthetic = !messages.some((m) => timeOf(m) !== undefined);
  if (synthetic) warnings.push("the trajectory has no timestamps: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds");
  let t = messages.map(timeOf).find((x) => x !== undefined) ?? 0n;

  const b = new JournalBuilder();
  const history: JournalMessage[] = [];
  const models: Record<string, string> = {};
  let input: string | undefined;
  let exitMessage: UnknownRecord | undefined;
  let lastCommand: string | undefined;
  let n = 0;
  let unanswered = 0;

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    t = timeOf(m) ?? t;
    const role = str(m.role) ?? "";
    const content = contentText(m.content);
    if (role === "exit") {
      exitMessage = m;
      continue;
    }
    if (role !== "assistant") {
      // system prompt and task: before the first model call
      history.push({ role: role === "system" ? "system" : "user", content });
      if (role === "user" && input === undefined) {
        input = content;
        b.add({ t, type: "input", data: { source: "user", content } });
      }
      continue;
    }
    const sid = `step-${++n}`;
    const extra = extraOf(m);
    const response = isRecord(extra.response) ? extra.response : {};
    const model = firstStr(response.model, configModel) ?? "unknown";
    if (model !== "unknown") models[model] = model;
    const actions = actionsOf(m, i);
    const reasoning = firstStr(m.reasoning_content);
    b.add({
      t,
      type: "step.start",
      step: sid,
      key: `s${n}`,
      data: { name: actions[0]?.command.split(/\s+/)[0] || "respond", kind: "agent" },
    });
    b.add({
      t,
      type: "model.request",
      step: sid,
      key: `m${n}`,
      parentKey: `s${n}`,
      data: { call: `m${n}`, model, messages: [...history] },
    });
    const toolCalls = actions.map((a) => ({ id: a.id, name: a.tool, args: a.args }));
    b.add({
      t,
      type: "model.response",
      step: sid,
      parentKey: `m${n}`,
      data: compact({
        call: `m${n}`,
        output: compact({ text: content, reasoning, toolCalls: toolCalls.length > 0 ? toolCalls : undefined }),
        usage: usageOf(extra),
        cost: toNumber(extra.cost),
      }),
    });
    const assistant: JournalMessage = { role: "assistant", content };
    if (toolCalls.length > 0) assistant.toolCalls = toolCalls;
    history.push(assistant);
    if (actions.length > 0) lastCommand = actions[actions.length - 1].command;

    // the observations: the messages up to the next assistant (or exit) message
    const answers: UnknownRecord[] = [];
    while (i + 1 < messages.length && messages[i + 1].role !== "assistant" && messages[i + 1].role !== "exit") answers.push(messages[++i]);
    const used = new Set<UnknownRecord>();
    let failed = false;
    let tEnd = t;
    actions.forEach((a, j) => {
      b.add({
        t,
        type: "tool.call",
        step: sid,
        key: `t${n}-${j}`,
        parentKey: `s${n}`,
        data: { call: a.id, tool: a.tool, args: a.args, ...inferEffect(a.tool, a.args) },
      });
      const byId = answers.find((r) => r.role === "tool" && r.tool_call_id === a.id);
      // the submit command's output is the submission, written as the `exit` message after it
      const exitNext = j === actions.length - 1 && answers.length === 0 && messages[i + 1]?.role === "exit" ? messages[i + 1] : undefined;
      const r = byId ?? (answers.some((x) => x.role === "tool") ? undefined : answers[j]) ?? exitNext;
      if (!r) {
        unanswered++;
        return;
      }
      used.add(r);
      const rt = timeOf(r) ?? t;
      if (rt > tEnd) tEnd = rt;
      const out = contentText(r.content);
      const { status, error } = r === exitNext ? { status: "ok" as const, error: undefined } : resultStatus(r, out);
      if (status !== "ok") failed = true;
      b.add({ t: rt, type: "tool.result", step: sid, parentKey: `t${n}-${j}`, data: compact({ call: a.id, status, result: out, error }) });
      history.push({ role: "tool", content: out, toolCallId: a.id });
    });
    if (actions.length === 0 && answers.length > 0) {
      // no action to run: mini-swe-agent answers with its format error template
      const feedback = contentText(answers[0].content);
      failed = true;
      b.add({
        t: timeOf(answers[0]) ?? t,
        type: "error",
        step: sid,
        parentKey: `s${n}`,
        data: { message: feedback.split(/\r?\n\r?\n/)[0] || "format error", code: "format_error" },
      });
    }
    // feedback that answers no action (format errors, limits) is still part of the next prompt
    for (const r of answers) if (!used.has(r)) history.push({ role: "user", content: contentText(r.content) });
    for (const r of answers) t = timeOf(r) ?? t;
    b.add({ t: tEnd, type: "step.end", step: sid, parentKey: `s${n}`, after: `s${n}`, data: { status: failed ? "error" : "ok" } });
  }
  if (unanswered > 0)
    warnings.push(`${unanswered} command(s) have no recorded output (the last action of a submitted run is not echoed back)`);

  const exitExtra = exitMessage ? extraOf(exitMessage) : {};
  const exit = firstStr(info.exit_status, exitExtra.exit_status);
  const submission = firstStr(info.submission, exitExtra.submission);
  // the bare message list has no exit status: a run whose last command is the submit marker submitted
  const submitted = lastCommand !== undefined && SUBMIT_MARKER.test(lastCommand);
  const status = statusOf(exit) ?? (submitted ? "succeeded" : "failed");
  if (!exit) {
    warnings.push(
      `the file records no exit status: the run is marked ${status} because its last command ${submitted ? "is" : "is not"} the submit marker`,
    );
  }
  const usage = compact({ cost: toNumber(stats.instance_cost), apiCalls: toNumber(stats.api_calls) });
  const startData: Record<string, unknown> = {
    workflow: compact({ name: "mini-swe-agent", version }),
    agent: compact({ name: "mini-swe-agent", version }),
    tags: ["mini-swe-agent"],
    source: compact({ format: "mini-swe-agent", file: opts.fileName, trajectoryFormat: str(root.trajectory_format) }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (instanceId) startData.task = instanceId;
  if (input !== undefined) startData.input = input;
  const endData = compact({
    status,
    exitStatus: exit,
    output: submission,
    usage: Object.keys(usage).length > 0 ? usage : undefined,
  });
  const tExit = exitMessage ? timeOf(exitMessage) : undefined;
  return {
    format: "mini-swe-agent",
    runs: [{ runId, events: b.build({ runId, synthetic, start: { data: startData }, end: { data: endData, t: tExit } }) }],
    warnings,
  };
}
