/**
 * GitHub Copilot CLI session → one run `copilot-<sessionId>`.
 *
 * Current `~/.copilot/session-state/<id>/events.jsonl`: one event a line, `{type, data, id,
 * timestamp, parentId}`, each chained to the one before it by `parentId` (read in the file's
 * order, which is that chain's):
 * - `session.start` gives the session id, `copilotVersion`, the selected model and
 *   `context.cwd` (run facts); `session.model_change` the model from there on;
 * - each `assistant.message` is one model call: its `content`, `reasoningText` (and
 *   `assistant.reasoning` events) as reasoning, `toolRequests` as tool calls; the request
 *   carries the user messages and tool results since the previous call; the
 *   `assistant.usage` after it gives model, tokens, cost and `duration` (ms, when written);
 * - `tool.execution_start` / `tool.execution_complete` (by `toolCallId`) give each tool's
 *   result, its failure (`success: false`, `error.message`) and its duration from the two
 *   events' times;
 * - a sub-agent (`subagent.started` for a tool call; its events carry `parentToolCallId`)
 *   is a step of kind `agent` under the step that called it, its model calls inside it;
 * - `session.error` and `abort` are errors; `session.info` / `session.warning` notes.
 *
 * Legacy `~/.copilot/history-session-state/<id>.json` (`{sessionId, startTime,
 * chatMessages, timeline}`): the OpenAI chat messages give the model calls and tool calls
 * (joined by `tool_call_id`); the file times the session's start only, so no durations.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { jsonLines } from "./lines";
import { contentText, normalizeArgs, normalizeMessage, type JournalMessage, type MessageToolCall } from "./messages";
import { addModelCall, type ModelCall } from "./model-call";
import { parseJsonExact } from "../journal/parse-line";
import { ImportError } from "./import-error";
import type { ImportOptions, ImportResult } from "./types";

function usageOf(u: UnknownRecord | undefined, m: UnknownRecord): Record<string, number> | undefined {
  const out = compact({
    inputTokens: toNumber(u?.inputTokens),
    outputTokens: toNumber(u?.outputTokens) ?? toNumber(m.outputTokens),
    cacheReadTokens: toNumber(u?.cacheReadTokens),
    cacheCreationTokens: toNumber(u?.cacheWriteTokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

const data = (e: UnknownRecord): UnknownRecord => (isRecord(e.data) ? e.data : {});

export function importCopilot(text: string, kind: "events" | "legacy", opts: ImportOptions = {}): ImportResult {
  if (kind === "legacy") {
    let value: unknown;
    try {
      value = parseJsonExact(text.replace(/^\uFEFF/, ""));
    } catch {
      throw new ImportError("the file looks like a GitHub Copilot CLI session (legacy JSON) but is not valid JSON");
    }
    return importLegacy(isRecord(value) ? value : {}, text, opts);
  }
  const warnings: string[] = [];
  const events = jsonLines(text, warnings);
  const start = events.find((e) => e.type === "session.start");
  const sd = start ? data(start) : {};
  const sessionId = firstStr(sd.sessionId) ?? contentId(text);
  if (!start) warnings.push("no session.start event: the session id, version and working directory are not known");
  const runId = makeRunId("copilot", sessionId);
  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let model = firstStr(sd.selectedModel) ?? "unknown";
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  let last = isoToNanos(start?.timestamp) ?? 0n;
  let n = 0;
  /** tool call id → the step that requested it and the key of its tool.call */
  const calls = new Map<string, { step: string; key: string; name: string; t: bigint }>();
  /** tool call id → the sub-agent step it started */
  const agents = new Map<string, string>();
  const steps: Array<{ step: string; failed: boolean; end: bigint }> = [];
  let open: { step: string; failed: boolean; end: bigint } | undefined;
  let lastCall: { step: string; m: UnknownRecord } | undefined;
  /** the model call last answered, written once its usage (which follows it) is known */
  let call: ModelCall | undefined;
  const flushCall = () => {
    if (!call) return;
    if (call.tResponse === undefined) call.tResponse = call.t;
    addModelCall(b, call);
    call = undefined;
  };
  let unknownTypes = 0;
  const SKIP =
    /^(session\.(idle|title_changed|mode_changed|plan_changed|usage_checkpoint|tools_updated|truncation|compaction_start|compaction_complete|resume|snapshot_rewind|context_changed|handoff|workspace_file_changed)|assistant\.(turn_start|turn_end|intent|message_delta|reasoning_delta|streaming_delta)|hook\.|skill\.|pending_messages\.|system\.|user\.message_delta|permission\.|elicitation\.|tool\.(user_requested|execution_partial_result|execution_progress)|subagent\.selected)/;

  for (const e of events) {
    const t = (last = isoToNanos(e.timestamp) ?? last);
    const d = data(e);
    const type = str(e.type) ?? "";
    const parentTool = firstStr(d.parentToolCallId);
    const agentKey = parentTool && agents.has(parentTool) ? `s:${String(agents.get(parentTool))}` : undefined;
    switch (type) {
      case "session.start":
        continue;
      case "session.model_change":
        model = firstStr(d.newModel) ?? model;
        continue;
      case "user.message": {
        const content = contentText(d.content);
        pending.push({ role: "user", content });
        input ??= content;
        b.add({ t, type: "input", data: { source: "user", content } });
        continue;
      }
      case "assistant.reasoning":
        continue;
      case "assistant.message": {
        const sid = `copilot-${n++}`;
        const toolCalls: MessageToolCall[] = asArray(d.toolRequests)
          .filter(isRecord)
          .map((r, k) => ({
            id: firstStr(r.toolCallId) ?? `${sid}-call-${k}`,
            name: firstStr(r.name) ?? "unknown",
            args: normalizeArgs(r.arguments),
          }));
        const textOut = contentText(d.content);
        const m = firstStr(d.model) ?? model;
        if (m !== "unknown") models[m] = m;
        flushCall();
        call = {
          step: sid,
          t,
          tResponse: t,
          name: m,
          parentKey: agentKey,
          call: firstStr(d.messageId, e.id) ?? sid,
          model: m,
          messages: pending,
          text: textOut,
          reasoning: str(d.reasoningText),
          toolCalls,
          response: { usage: usageOf(undefined, d) },
        };
        pending = [{ role: "assistant", content: textOut, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
        if (textOut && !agentKey) output = textOut;
        toolCalls.forEach((c, k) => {
          const key = `t:${sid}:${k}`;
          calls.set(c.id, { step: sid, key, name: c.name, t });
          b.add({
            t,
            type: "tool.call",
            step: sid,
            key,
            parentKey: `s:${sid}`,
            after: `r:${sid}`,
            data: { call: c.id, tool: c.name, args: c.args, ...inferEffect(c.name, c.args) },
          });
        });
        open = { step: sid, failed: false, end: t };
        steps.push(open);
        lastCall = { step: sid, m: d };
        continue;
      }
      case "assistant.usage": {
        // the usage of the call just answered: model, tokens, cost, and how long it took (ms)
        if (!call || !lastCall) continue;
        const mm = firstStr(d.model);
        if (mm) {
          models[mm] = mm;
          call.model = call.name = mm;
        }
        const duration = toNumber(d.duration);
        // the answer's time less the recorded duration is when it was asked
        if (duration !== undefined && duration >= 0) call.t = (call.tResponse ?? call.t) - BigInt(Math.round(duration * 1e6));
        call.response = { ...call.response, usage: usageOf(d, lastCall.m), cost: toNumber(d.cost), latencyMs: duration };
        continue;
      }
      case "tool.execution_start": {
        const id = firstStr(d.toolCallId);
        const c = id ? calls.get(id) : undefined;
        if (c) c.t = t;
        continue;
      }
      case "tool.execution_complete": {
        const id = firstStr(d.toolCallId) ?? "";
        const c = calls.get(id);
        if (!c) {
          warnings.push(`tool result ${id} answers no tool request in the file`);
          continue;
        }
        const ok = d.success !== false;
        const result = contentText(isRecord(d.result) ? (d.result.content ?? d.result.detailedContent) : d.result);
        const err = isRecord(d.error) ? firstStr(d.error.message, d.error.code) : str(d.error);
        pending.push({ role: "tool", content: ok ? result : (err ?? result), toolCallId: id, name: c.name });
        b.add({
          t,
          type: "tool.result",
          step: c.step,
          parentKey: c.key,
          after: c.key,
          data: compact({
            call: id,
            status: ok ? "ok" : "error",
            result,
            error: ok ? undefined : (err ?? (result || "failed")),
            latencyMs: t >= c.t ? Number(t - c.t) / 1e6 : undefined,
          }),
        });
        const st = steps.find((s) => s.step === c.step);
        if (st) {
          if (!ok) st.failed = true;
          if (t > st.end) st.end = t;
        }
        continue;
      }
      case "subagent.started": {
        const id = firstStr(d.toolCallId) ?? "";
        const c = calls.get(id);
        const sid = `copilot-agent-${id || n++}`;
        agents.set(id, sid);
        b.add({
          t,
          type: "step.start",
          step: sid,
          key: `s:${sid}`,
          parentKey: c ? `s:${c.step}` : undefined,
          after: c?.key,
          data: compact({ name: firstStr(d.agentDisplayName, d.agentName) ?? "sub-agent", kind: "agent", agent: str(d.agentName) }),
        });
        continue;
      }
      case "subagent.completed":
      case "subagent.failed": {
        const sid = agents.get(firstStr(d.toolCallId) ?? "");
        if (!sid) continue;
        const failed = type === "subagent.failed";
        if (failed)
          b.add({ t, type: "error", step: sid, parentKey: `s:${sid}`, data: { message: firstStr(d.error) ?? "the sub-agent failed" } });
        b.add({ t, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: failed ? "error" : "ok" } });
        continue;
      }
      case "session.error":
        b.add({
          t,
          type: "error",
          data: compact({
            message: firstStr(d.message) ?? "error",
            code: firstStr(d.errorType, d.statusCode !== undefined ? String(d.statusCode) : undefined),
            retryable: d.errorType === "rate_limit" ? true : undefined,
          }),
        });
        if (open) open.failed = true;
        continue;
      case "abort":
        b.add({ t, type: "error", data: compact({ message: `aborted${str(d.reason) ? `: ${String(d.reason)}` : ""}`, code: "abort" }) });
        continue;
      case "session.info":
      case "session.warning":
        b.add({ t, type: "note", data: { text: firstStr(d.message) ?? type, level: type === "session.warning" ? "warning" : "info" } });
        continue;
      case "session.shutdown":
        continue;
      default:
        if (!SKIP.test(type)) unknownTypes++;
    }
  }
  flushCall();
  for (const s of steps)
    b.add({
      t: s.end,
      type: "step.end",
      step: s.step,
      parentKey: `s:${s.step}`,
      after: `s:${s.step}`,
      data: { status: s.failed ? "error" : "ok" },
    });
  if (unknownTypes > 0) warnings.push(`${unknownTypes} event(s) of types this importer does not read were left out`);
  const context = isRecord(sd.context) ? sd.context : {};
  const { min, max } = b.span();
  const startData: Record<string, unknown> = {
    workflow: { name: "copilot-cli" },
    agent: compact({ name: "copilot-cli", version: firstStr(sd.copilotVersion) }),
    tags: ["copilot-cli"],
    source: compact({
      format: "copilot-cli",
      file: opts.fileName,
      sessionId,
      cwd: firstStr(context.cwd, sd.cwd),
      branch: str(context.branch),
      repository: str(context.repository),
      producer: str(sd.producer),
    }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  return {
    format: "copilot-cli",
    runs: [
      {
        runId,
        events: b.build({
          runId,
          start: { data: startData, t: isoToNanos(start?.timestamp) ?? min },
          end: { data: compact({ status: "succeeded", output }), t: max },
        }),
      },
    ],
    warnings,
  };
}

function importLegacy(v: UnknownRecord, text: string, opts: ImportOptions): ImportResult {
  const warnings = ["the legacy session file times only the session's start: every event carries that time, and no durations are known"];
  const sessionId = firstStr(v.sessionId) ?? contentId(text);
  const runId = makeRunId("copilot", sessionId);
  const t = isoToNanos(v.startTime) ?? 0n;
  const b = new JournalBuilder();
  const msgs = asArray(v.chatMessages).filter(isRecord);
  const results = new Map<string, UnknownRecord>();
  for (const m of msgs) if (m.role === "tool" && typeof m.tool_call_id === "string") results.set(m.tool_call_id, m);
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  let n = 0;
  for (const m of msgs) {
    if (m.role !== "assistant") {
      if (m.role === "user") {
        input ??= contentText(m.content);
        b.add({ t, type: "input", data: { source: "user", content: contentText(m.content) } });
      }
      pending.push(...normalizeMessage(m));
      continue;
    }
    const sid = `copilot-${n++}`;
    const [am] = normalizeMessage(m, `${sid}-`);
    const toolCalls = am?.toolCalls ?? [];
    addModelCall(b, { step: sid, t, name: "unknown", call: sid, model: "unknown", messages: pending, text: am?.content ?? "", toolCalls });
    pending = am ? [am] : [];
    if (am?.content) output = am.content;
    let failed = false;
    toolCalls.forEach((c, k) => {
      const key = `t:${sid}:${k}`;
      b.add({
        t,
        type: "tool.call",
        step: sid,
        key,
        parentKey: `s:${sid}`,
        after: `r:${sid}`,
        data: { call: c.id, tool: c.name, args: c.args, ...inferEffect(c.name, c.args) },
      });
      const r = results.get(c.id);
      if (!r) return;
      const content = contentText(r.content);
      const isError = /^(Error|error):/.test(content);
      failed ||= isError;
      b.add({
        t,
        type: "tool.result",
        step: sid,
        parentKey: key,
        after: key,
        data: compact({ call: c.id, status: isError ? "error" : "ok", result: content, error: isError ? content : undefined }),
      });
    });
    b.add({ t, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: failed ? "error" : "ok" } });
  }
  const startData: Record<string, unknown> = {
    workflow: { name: "copilot-cli" },
    agent: { name: "copilot-cli" },
    tags: ["copilot-cli"],
    source: compact({ format: "copilot-cli", file: opts.fileName, sessionId, legacy: true }),
  };
  if (input !== undefined) startData.input = input;
  return {
    format: "copilot-cli",
    runs: [
      { runId, events: b.build({ runId, start: { data: startData, t }, end: { data: compact({ status: "succeeded", output }), t } }) },
    ],
    warnings,
  };
}
