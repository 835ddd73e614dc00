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
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { linesOfText, type JsonLinesFile } from "./lines";
import { contentText, normalizeArgs, normalizeMessage, type JournalMessage, type MessageToolCall } from "./messages";
import { addModelCall, type ModelCall, addStepToolCall } from "./model-call";
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
  return importCopilotEvents(linesOfText(text, warnings), opts, warnings);
}

/** `events.jsonl` already split into lines (`warnings`: what reading them noticed). */
export function importCopilotEvents(file: JsonLinesFile, opts: ImportOptions = {}, warnings: string[] = []): ImportResult {
  const events = file.records;
  const start = events.find((e) => e.type === "session.start");
  const sd = start ? data(start) : {};
  const sessionId = firstStr(sd.sessionId) ?? file.contentId();
  if (!start) warnings.push("no session.start event: the session id, version and working directory are not known");
  const runId = makeRunId("copilot", sessionId);
  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  /** what each agent (the main one: "", a sub-agent: its `agentId`) has said and asked since its last call */
  interface AgentState {
    pending: JournalMessage[];
    model: string;
    /** its last call, written once its usage (a record before or after it) is known */
    call?: ModelCall;
    pendingUsage?: { t: bigint; u: UnknownRecord; duration?: number };
    lastCall?: { step: string; m: UnknownRecord };
  }
  const states = new Map<string, AgentState>();
  const stateOf = (id: string): AgentState => {
    let st = states.get(id);
    if (!st) states.set(id, (st = { pending: [], model: firstStr(sd.selectedModel) ?? "unknown" }));
    return st;
  };
  let input: unknown;
  let output: string | undefined;
  let last = isoToNanos(start?.timestamp) ?? 0n;
  let n = 0;
  /** tool call id → the step that requested it and the key of its tool.call */
  const calls = new Map<string, { step: string; key: string; name: string; t: bigint; agent: string }>();
  /** sub-agent id → its step; tool call id → the sub-agent it started */
  const agents = new Map<string, string>();
  const byTool = new Map<string, string>();
  const steps: Array<{ step: string; failed: boolean; end: bigint }> = [];
  let open: { step: string; failed: boolean; end: bigint } | undefined;
  const applyUsage = (c: ModelCall, x: { t: bigint; u: UnknownRecord; duration?: number }) => {
    const mm = firstStr(x.u.model);
    if (mm) {
      models[mm] = mm;
      c.model = c.name = mm;
    }
    // the usage is written when the answer is in; less its duration, when it was asked
    const answered = x.t < c.t ? x.t : c.t;
    c.tResponse = answered;
    c.t = x.duration !== undefined && x.duration >= 0 ? answered - BigInt(Math.round(x.duration * 1e6)) : answered;
    c.response = { ...c.response, usage: usageOf(x.u, {}) ?? c.response?.usage, cost: toNumber(x.u.cost), latencyMs: x.duration };
  };
  const flushCall = (st: AgentState) => {
    if (!st.call) return;
    if (st.call.tResponse === undefined) st.call.tResponse = st.call.t;
    addModelCall(b, st.call);
    st.call = undefined;
  };
  const unknownTypes = new Set<string>();
  const SKIP =
    /^(session\.(idle|title_changed|mode_changed|plan_changed|usage_checkpoint|tools_updated|truncation|compaction_start|compaction_complete|resume|snapshot_rewind|context_changed|handoff|workspace_file_changed)|assistant\.(turn_end|intent|message_delta|reasoning_delta|streaming_delta)|hook\.|skill\.|pending_messages\.|system\.notification|user\.message_delta|permission\.|elicitation\.|tool\.(user_requested|execution_partial_result|execution_progress)|subagent\.(selected|configured))/;

  for (const e of events) {
    const t = (last = isoToNanos(e.timestamp) ?? last);
    const d = data(e);
    const type = str(e.type) ?? "";
    // a sub-agent's events carry its `agentId` (older versions: `parentToolCallId` in the data)
    const agentId = firstStr(e.agentId, d.parentToolCallId ? byTool.get(String(d.parentToolCallId)) : undefined) ?? "";
    const st = stateOf(agentId);
    const agentKey = agentId && agents.has(agentId) ? `s:${String(agents.get(agentId))}` : undefined;
    switch (type) {
      case "session.start":
        continue;
      case "session.model_change":
        st.model = firstStr(d.newModel) ?? st.model;
        continue;
      case "user.message": {
        const content = contentText(d.content);
        st.pending.push({ role: "user", content });
        // a sub-agent's prompt is its first request's message, not the user's input
        if (agentId) continue;
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
        const m = firstStr(d.model) ?? st.model;
        if (m !== "unknown") models[m] = m;
        flushCall(st);
        const call: ModelCall = (st.call = {
          step: sid,
          t,
          tResponse: t,
          name: m,
          parentKey: agentKey,
          call: firstStr(d.messageId, e.id) ?? sid,
          model: m,
          messages: st.pending,
          text: textOut,
          reasoning: str(d.reasoningText),
          toolCalls,
          response: { usage: usageOf(undefined, d) },
        });
        if (st.pendingUsage) applyUsage(call, st.pendingUsage);
        st.pendingUsage = undefined;
        st.pending = [{ role: "assistant", content: textOut, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
        if (textOut && !agentKey) output = textOut;
        toolCalls.forEach((c, k) => {
          const key = `t:${sid}:${k}`;
          calls.set(c.id, { step: sid, key, name: c.name, t, agent: agentId });
          addStepToolCall(b, { t, step: sid, key, call: c });
        });
        open = { step: sid, failed: false, end: t };
        steps.push(open);
        st.lastCall = { step: sid, m: d };
        continue;
      }
      case "assistant.turn_start":
        // a new request: the previous call is complete
        flushCall(st);
        continue;
      case "session.usage_record":
      case "assistant.usage": {
        // one request's usage: model, tokens, cost and its duration (ms). 1.0.x writes a
        // `session.usage_record` before the message it paid for; older versions an
        // `assistant.usage` after it
        const u = type === "session.usage_record" ? (isRecord(d.usage) ? d.usage : {}) : d;
        const duration = toNumber(u.duration);
        const usage = { t, u, duration };
        if (st.call && st.call.response?.latencyMs === undefined && !isRecord(st.call.response?.usage)) applyUsage(st.call, usage);
        else st.pendingUsage = usage;
        continue;
      }
      case "system.message":
        st.pending.push({ role: "system", content: contentText(d.content) });
        continue;
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
        stateOf(c.agent).pending.push({ role: "tool", content: ok ? result : (err ?? result), toolCallId: id, name: c.name });
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
        const stp = steps.find((x) => x.step === c.step);
        if (stp) {
          if (!ok) stp.failed = true;
          if (t > stp.end) stp.end = t;
        }
        continue;
      }
      case "subagent.started": {
        const id = firstStr(d.toolCallId) ?? "";
        const c = calls.get(id);
        const sid = `copilot-agent-${id || n++}`;
        const aid = firstStr(e.agentId) ?? id;
        agents.set(aid, sid);
        byTool.set(id, aid);
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
        const sid = agents.get(firstStr(e.agentId) ?? byTool.get(firstStr(d.toolCallId) ?? "") ?? "");
        flushCall(st);
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
        if (!SKIP.test(type)) unknownTypes.add(type.slice(0, 60));
    }
  }
  for (const st of states.values()) flushCall(st);
  for (const s of steps)
    b.add({
      t: s.end,
      type: "step.end",
      step: s.step,
      parentKey: `s:${s.step}`,
      after: `s:${s.step}`,
      data: { status: s.failed ? "error" : "ok" },
    });
  if (unknownTypes.size > 0)
    warnings.push(`events of types this importer does not read were left out: ${[...unknownTypes].slice(0, 10).join(", ")}`);
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

/**
 * The legacy session file (0.0.340: `history-session-state/session_<id>_<ms>.json`): the
 * OpenAI chat messages in `chatMessages`, and a `timeline` of what the terminal showed, each
 * entry timed: `user` prompts, `copilot` texts, `tool_call_completed` (by `callId`, its
 * `result.type` `success` or `failure`). The messages are the calls; the timeline gives their
 * times and the tools' outcomes. A call is timed when the last thing before it happened (the
 * prompt or a tool's completion) and answered when its text was shown; a call that only asked
 * for tools, and a tool's start, have no time of their own, so no latency is written.
 */
function importLegacy(v: UnknownRecord, text: string, opts: ImportOptions): ImportResult {
  const warnings: string[] = [];
  const sessionId = firstStr(v.sessionId) ?? contentId(text);
  const runId = makeRunId("copilot", sessionId);
  const t0 = isoToNanos(v.startTime) ?? 0n;
  const timeline = asArray(v.timeline).filter(isRecord);
  const timed = (type: string) => timeline.filter((e) => e.type === type).map((e) => isoToNanos(e.timestamp));
  const userTimes = timed("user");
  const copilotTimes = timed("copilot");
  const completed = new Map<string, UnknownRecord>();
  for (const e of timeline) if (e.type === "tool_call_completed" && typeof e.callId === "string") completed.set(e.callId, e);
  if (timeline.length === 0) warnings.push("the session file has no timeline: every event carries the session's start time");
  const b = new JournalBuilder();
  const msgs = asArray(v.chatMessages).filter(isRecord);
  const results = new Map<string, UnknownRecord>();
  for (const m of msgs) if (m.role === "tool" && typeof m.tool_call_id === "string") results.set(m.tool_call_id, m);
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  let n = 0;
  let users = 0;
  let texts = 0;
  let cursor = t0;
  const at = (t: bigint | undefined) => (t !== undefined && t > cursor ? (cursor = t) : cursor);
  for (const m of msgs) {
    if (m.role !== "assistant") {
      if (m.role === "user") {
        input ??= contentText(m.content);
        b.add({ t: at(userTimes[users++]), type: "input", data: { source: "user", content: contentText(m.content) } });
      }
      pending.push(...normalizeMessage(m));
      continue;
    }
    const sid = `copilot-${n++}`;
    const [am] = normalizeMessage(m, `${sid}-`);
    const toolCalls = am?.toolCalls ?? [];
    const asked = cursor;
    const answered = am?.content ? at(copilotTimes[texts++]) : asked;
    addModelCall(b, {
      step: sid,
      t: asked,
      tResponse: answered,
      name: "unknown",
      call: sid,
      model: "unknown",
      messages: pending,
      text: am?.content ?? "",
      toolCalls,
    });
    pending = am ? [am] : [];
    if (am?.content) output = am.content;
    let failed = false;
    let end = answered;
    toolCalls.forEach((c, k) => {
      const key = `t:${sid}:${k}`;
      addStepToolCall(b, { t: answered, step: sid, key, call: c });
      const r = results.get(c.id);
      const done = completed.get(c.id);
      if (!r && !done) return;
      const content = r ? contentText(r.content) : "";
      const outcome = done && isRecord(done.result) ? done.result : undefined;
      // the timeline says whether the tool failed; without it, an `Error:` answer does
      const isError = outcome ? outcome.type === "failure" : /^(Error|error):/.test(content);
      failed ||= isError;
      const tDone = isoToNanos(done?.timestamp);
      const tr = tDone !== undefined && tDone > answered ? tDone : answered;
      if (tr > end) end = tr;
      b.add({
        t: tr,
        type: "tool.result",
        step: sid,
        parentKey: key,
        after: key,
        data: compact({
          call: c.id,
          status: isError ? "error" : "ok",
          result: content,
          error: isError ? (str(outcome?.log) ?? content) : undefined,
        }),
      });
    });
    at(end);
    b.add({ t: end, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: failed ? "error" : "ok" } });
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
      {
        runId,
        events: b.build({ runId, start: { data: startData, t: t0 }, end: { data: compact({ status: "succeeded", output }), t: cursor } }),
      },
    ],
    warnings,
  };
}
