/**
 * OpenCode session export (`opencode export <sessionID>`, 1.x) → one run
 * `opencode-<session id>`: `{info, messages: [{info, parts}]}`.
 *
 * - a user message is an `input` (its text parts) and the next request's messages;
 * - an assistant message holds one or more model calls, each from a `step-start` part to
 *   its `step-finish` (finish reason, `tokens`, `cost`): the text, `reasoning` and `tool`
 *   parts between them are that call's output; the first call's latency runs from the
 *   message's `time.created` to its answer (its first tool starting, else its last text
 *   part ending), later calls of the message have none (no request time is recorded);
 * - a `tool` part is a tool call (`callID`, `tool`, `state.input`) with its result
 *   (`state.output`; status `error` with `state.error`), its own `time.start`/`end`;
 * - the assistant message's `path.cwd` and the session's `version` are run facts.
 */
import { JournalBuilder } from "./builder";
import { asArray, compact, firstStr, isRecord, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { contentText, normalizeArgs, type JournalMessage, type MessageToolCall } from "./messages";
import { addModelCall, addStepToolCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

const ms = (v: unknown): bigint | undefined => {
  const n = toNumber(v);
  return n !== undefined && Number.isFinite(n) ? BigInt(Math.round(n)) * 1_000_000n : undefined;
};

function usageOf(t: unknown): Record<string, number> | undefined {
  if (!isRecord(t)) return undefined;
  const cache = isRecord(t.cache) ? t.cache : {};
  const out = compact({
    inputTokens: toNumber(t.input),
    outputTokens: toNumber(t.output),
    reasoningTokens: toNumber(t.reasoning),
    cacheReadTokens: toNumber(cache.read),
    cacheCreationTokens: toNumber(cache.write),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

interface Step {
  parts: UnknownRecord[];
  finish?: UnknownRecord;
}

/** An assistant message's parts cut into model calls at `step-start`. */
function stepsOf(parts: UnknownRecord[]): Step[] {
  const steps: Step[] = [];
  let cur: Step | undefined;
  for (const p of parts) {
    if (p.type === "step-start" || !cur) steps.push((cur = { parts: [] }));
    if (p.type === "step-start") continue;
    if (p.type === "step-finish") {
      cur.finish = p;
      cur = undefined;
      continue;
    }
    cur.parts.push(p);
  }
  return steps.filter((s) => s.parts.length > 0 || s.finish);
}

export function importOpenCode(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const root = isRecord(value) ? value : {};
  const info = isRecord(root.info) ? root.info : {};
  const messages = asArray(root.messages).filter(isRecord);
  const sessionId = str(info.id) ?? "session";
  const runId = makeRunId("opencode", sessionId);
  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  let cwd: string | undefined;
  let last = ms(isRecord(info.time) ? info.time.created : undefined) ?? 0n;
  let n = 0;

  for (const m of messages) {
    const mi = isRecord(m.info) ? m.info : {};
    const parts = asArray(m.parts).filter(isRecord);
    const time = isRecord(mi.time) ? mi.time : {};
    const created = (last = ms(time.created) ?? last);
    if (mi.role === "user") {
      const content = parts
        .filter((p) => p.type === "text" && p.synthetic !== true)
        .map((p) => String(p.text ?? ""))
        .join("\n");
      pending.push({ role: "user", content });
      input ??= content;
      b.add({ t: created, type: "input", data: { source: "user", content } });
      continue;
    }
    if (mi.role !== "assistant") continue;
    cwd ??= isRecord(mi.path) ? str(mi.path.cwd) : undefined;
    const model = firstStr(mi.modelID) ?? "unknown";
    if (model !== "unknown") models[model] = firstStr(mi.providerID) ? `${String(mi.providerID)}/${model}` : model;
    const completed = ms(time.completed);
    const steps = stepsOf(parts);
    steps.forEach((s, k) => {
      const sid = `opencode-${n++}`;
      const call = `${String(mi.id ?? sid)}${steps.length > 1 ? `#${k}` : ""}`;
      const texts = s.parts.filter((p) => p.type === "text").map((p) => String(p.text ?? ""));
      const reasoning = s.parts.filter((p) => p.type === "reasoning").map((p) => String(p.text ?? ""));
      const tools = s.parts.filter((p) => p.type === "tool");
      const toolCalls: MessageToolCall[] = tools.map((p, j) => {
        const st = isRecord(p.state) ? p.state : {};
        return { id: firstStr(p.callID, p.id) ?? `${sid}-call-${j}`, name: firstStr(p.tool) ?? "unknown", args: normalizeArgs(st.input) };
      });
      // a call starts when its message is created (the first) or at its first part; its answer
      // is in when its first tool starts running, else when its last text part ends
      const partTime = (p: UnknownRecord, k2: "start" | "end") =>
        isRecord(p.time) ? ms(p.time[k2]) : isRecord(p.state) && isRecord(p.state.time) ? ms(p.state.time[k2]) : undefined;
      const t0 = k === 0 ? created : (s.parts.map((p) => partTime(p, "start")).find((x) => x !== undefined) ?? last);
      const toolStarts = tools.map((p) => partTime(p, "start")).filter((x): x is bigint => x !== undefined);
      const textEnds = s.parts
        .filter((p) => p.type !== "tool")
        .map((p) => partTime(p, "end"))
        .filter((x): x is bigint => x !== undefined);
      const answered =
        toolStarts.length > 0
          ? toolStarts.reduce((a, x) => (x < a ? x : a))
          : textEnds.length > 0
            ? textEnds.reduce((a, x) => (x > a ? x : a))
            : k === steps.length - 1
              ? completed
              : undefined;
      const text = texts.join("\n");
      const tResp = answered !== undefined && answered >= t0 ? answered : t0;
      addModelCall(b, {
        step: sid,
        t: t0,
        tResponse: tResp,
        name: model,
        stepData: { agent: str(mi.agent) },
        call,
        model,
        messages: pending,
        text,
        reasoning: reasoning.join("\n"),
        toolCalls,
        response: {
          finishReason: str(s.finish?.reason),
          usage: usageOf(s.finish?.tokens),
          cost: toNumber(s.finish?.cost),
          // the message's creation is the request's time for its first call only
          latencyMs: k === 0 && answered !== undefined && answered >= t0 ? Number(answered - t0) / 1e6 : undefined,
        },
      });
      pending = [];
      const assistant: JournalMessage = { role: "assistant", content: text };
      if (toolCalls.length > 0) assistant.toolCalls = toolCalls;
      pending.push(assistant);
      if (text) output = text;
      let failed = false;
      let end = tResp;
      tools.forEach((p, j) => {
        const st = isRecord(p.state) ? p.state : {};
        const c = toolCalls[j];
        const tt = isRecord(st.time) ? st.time : {};
        const ts = ms(tt.start) ?? tResp;
        const te = ms(tt.end) ?? ts;
        if (te > end) end = te;
        const key = `t:${sid}:${j}`;
        addStepToolCall(b, { t: ts, step: sid, key, call: c });
        const status = str(st.status) ?? "";
        if (status !== "completed" && status !== "error")
          return void warnings.push(`tool call ${c.id} (${c.name}) was ${status || "not finished"} when the session was exported`);
        const isError = status === "error";
        failed ||= isError;
        const result = isError ? contentText(st.error) : contentText(st.output);
        pending.push({ role: "tool", content: result, toolCallId: c.id, name: c.name });
        b.add({
          t: te,
          type: "tool.result",
          step: sid,
          parentKey: key,
          after: key,
          data: compact({
            call: c.id,
            status: isError ? "error" : "ok",
            result,
            error: isError ? result : undefined,
            latencyMs: te >= ts ? Number(te - ts) / 1e6 : undefined,
          }),
        });
      });
      b.add({ t: end, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: failed ? "error" : "ok" } });
      last = end;
    });
  }

  const { min, max } = b.span();
  const startData: Record<string, unknown> = {
    workflow: { name: "opencode" },
    agent: compact({ name: "opencode", version: str(info.version) }),
    tags: ["opencode"],
    source: compact({ format: "opencode", file: opts.fileName, sessionId, title: str(info.title), cwd: cwd ?? str(info.directory) }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  return {
    format: "opencode",
    runs: [
      {
        runId,
        events: b.build({ runId, start: { data: startData, t: min }, end: { data: compact({ status: "succeeded", output }), t: max } }),
      },
    ],
    warnings,
  };
}
