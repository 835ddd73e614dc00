/**
 * Langfuse trace export (`{trace, observations}`) → one run `langfuse-<trace.id>`.
 * Observations become steps; a GENERATION with a model or token usage is a model call, a
 * TOOL (or a SPAN whose output is a LangChain `ToolMessage`) a tool call, joined to the
 * response that requested it by call id, else by tool name and arguments. Inputs and outputs are often JSON inside strings, sometimes twice.
 */
import { canonicalJson } from "../canonical";
import { setOwn } from "../journal/own-keys";
import { JournalBuilder } from "./builder";
import {
  asArray,
  compact,
  contentId,
  decodeJsonString,
  firstStr,
  isoToNanos,
  isRecord,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import { normalizeArgs, normalizeMessages, type JournalMessage } from "./messages";
import { addNodes, latencyMs, modelVersions, type ErrorInfo, type ModelCallInfo, type StepNode, type ToolCallInfo } from "./nodes";
import { linkToolCallsToRequests } from "./tool-links";
import type { ImportOptions, ImportResult } from "./types";

const KINDS: Record<string, string> = {
  SPAN: "internal",
  TOOL: "tool",
  AGENT: "agent",
  CHAIN: "chain",
  RETRIEVER: "retriever",
  EMBEDDING: "embedding",
  EVALUATOR: "evaluator",
  GUARDRAIL: "guardrail",
  EVENT: "event",
};

function usageOf(o: UnknownRecord): Record<string, number> | undefined {
  const u = isRecord(o.usageDetails) ? o.usageDetails : isRecord(o.usage) ? o.usage : {};
  const out: Record<string, number> = {};
  const map: Array<[string, unknown]> = [
    ["inputTokens", u.input ?? o.inputUsage ?? o.promptTokens],
    ["outputTokens", u.output ?? o.outputUsage ?? o.completionTokens],
    ["totalTokens", u.total ?? o.totalUsage],
    ["cacheReadTokens", u.input_cached_tokens ?? u.cache_read_input_tokens],
    ["reasoningTokens", u.output_reasoning_tokens ?? u.reasoning_tokens],
  ];
  for (const [k, v] of map) {
    const n = toNumber(v);
    if (n !== undefined) out[k] = n;
  }
  const input = out.inputTokens ?? 0;
  const output = out.outputTokens ?? 0;
  return input > 0 || output > 0 ? out : undefined;
}

function messagesOf(input: unknown): unknown[] | undefined {
  if (Array.isArray(input)) return input;
  if (isRecord(input)) {
    // an OpenAI Responses request: {instructions, input: items or text}
    if (input.input !== undefined && (Array.isArray(input.input) || typeof input.input === "string")) {
      const items = Array.isArray(input.input) ? input.input : [{ role: "user", content: input.input }];
      return typeof input.instructions === "string" ? [{ role: "system", content: input.instructions }, ...items] : items;
    }
    if (Array.isArray(input.messages))
      return input.system !== undefined ? [{ role: "system", content: input.system }, ...input.messages] : input.messages;
    const msgs: unknown[] = [];
    if (input.system !== undefined) msgs.push({ role: "system", content: input.system });
    if (input.prompt !== undefined) msgs.push({ role: "user", content: input.prompt });
    if (msgs.length > 0) return msgs;
  }
  if (typeof input === "string") return [{ role: "user", content: input }];
  return undefined;
}

/** OpenAI Responses output items (or chat messages) → one answer: text, reasoning and tool calls as objects. */
function itemsOutput(items: unknown[], id: string): NonNullable<ModelCallInfo["output"]> {
  const msgs = normalizeMessages(items, `${id}-`).filter((m) => m.role === "assistant");
  const text = msgs
    .map((m) => m.content)
    .filter((t) => t !== "")
    .join("\n");
  const reasoning = msgs.flatMap((m) => (m.reasoning ? [m.reasoning] : [])).join("\n");
  const toolCalls = msgs.flatMap((m) => m.toolCalls ?? []);
  return compact({ text: text || undefined, reasoning: reasoning || undefined, toolCalls: toolCalls.length > 0 ? toolCalls : undefined });
}

/** The request's messages in the one message shape (Responses items, chat, Anthropic, LangChain). */
function requestMessages(input: unknown, id: string): JournalMessage[] | undefined {
  const list = messagesOf(input);
  return list === undefined ? undefined : normalizeMessages(list, `${id}-`);
}

/**
 * Koog writes an answer that only called tools as an assistant message whose `content` is the
 * JSON text of OpenAI `tool_calls` (`[{id, type: "function", function: {name, arguments}}]`):
 * that message with its calls as `tool_calls`, else the message as it is.
 */
function koogToolCalls(m: unknown): unknown {
  if (!isRecord(m) || m.role !== "assistant" || typeof m.content !== "string" || !m.content.startsWith("[{")) return m;
  const calls = decodeJsonString(m.content);
  const all = Array.isArray(calls) && calls.length > 0 && calls.every((c) => isRecord(c) && c.type === "function" && isRecord(c.function));
  return all ? { ...m, content: "", tool_calls: calls } : m;
}

/** Vercel AI SDK `ai.generateText` output when the model only called tools: `[{toolCallId, toolName, input}]`. */
function aiSdkToolCalls(output: unknown[]): NonNullable<ModelCallInfo["output"]>["toolCalls"] | undefined {
  if (output.length === 0 || !output.every((c) => isRecord(c) && typeof c.toolCallId === "string")) return undefined;
  return output.filter(isRecord).map((c) => ({
    id: String(c.toolCallId),
    name: firstStr(c.toolName) ?? "unknown",
    args: decodeJsonString(c.input ?? c.args ?? {}),
  }));
}

function outputOf(output: unknown, id: string): ModelCallInfo["output"] {
  // "None": Python's str(None), what the OpenAI instrumentation under agno writes for an
  // answer that only called tools (the calls are on the wrapping generation)
  if (output === undefined || output === null || output === "None") return undefined;
  if (typeof output === "string") return { text: output };
  // a Responses object ({object: "response", output: [items]}) or a list of items / messages
  if (isRecord(output) && Array.isArray(output.output)) return itemsOutput(output.output, id);
  // an OpenAI chat completion (`{id: "chatcmpl-…", choices: [{message}]}`): its first choice's message
  if (isRecord(output) && Array.isArray(output.choices) && isRecord(output.choices[0]) && isRecord(output.choices[0].message))
    return itemsOutput([output.choices[0].message], id);
  const sdkCalls = Array.isArray(output) ? aiSdkToolCalls(output) : undefined;
  if (sdkCalls) return { toolCalls: sdkCalls };
  if (Array.isArray(output) && output.some((o) => isRecord(o) && (typeof o.type === "string" || typeof o.role === "string")))
    return itemsOutput(output.map(koogToolCalls), id);
  // one message: OpenAI chat (`tool_calls`), Anthropic (`content` blocks: text, tool_use,
  // thinking), LangChain Python's dict (`additional_kwargs.tool_calls`)
  if (isRecord(output) && typeof output.role === "string") return itemsOutput([output], id);
  // a Gemini candidate (Google ADK): `{content: {role: "model", parts: [...]}, finish_reason}`
  if (isRecord(output) && isRecord(output.content) && Array.isArray(output.content.parts)) return itemsOutput([output.content], id);
  if (isRecord(output)) {
    const text = firstStr(output.text, output.content);
    const calls = asArray(output.toolCalls ?? output.tool_calls).filter(isRecord);
    const toolCalls = calls.map((c, j) => {
      const fn = isRecord(c.function) ? c.function : {};
      return {
        id: firstStr(c.toolCallId, c.id) ?? `${id}-${j}`,
        name: firstStr(c.toolName, c.name, fn.name) ?? "unknown",
        args: decodeJsonString(c.args ?? c.input ?? fn.arguments ?? {}),
      };
    });
    const out: NonNullable<ModelCallInfo["output"]> = {};
    if (text !== undefined) out.text = text;
    if (toolCalls.length > 0) out.toolCalls = toolCalls;
    return Object.keys(out).length > 0 ? out : { text: JSON.stringify(output) };
  }
  return { text: JSON.stringify(output) };
}

function params(o: UnknownRecord): Record<string, unknown> | undefined {
  const p = isRecord(o.modelParameters) ? o.modelParameters : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (v !== null && v !== undefined && k !== "finishReason") setOwn(out, k, decodeJsonString(v));
  return Object.keys(out).length > 0 ? out : undefined;
}

function toolNames(meta: unknown): string[] | undefined {
  const list = isRecord(meta) ? asArray(meta.tools) : [];
  const names = list.map((t) => decodeJsonString(t)).flatMap((t) => (isRecord(t) && typeof t.name === "string" ? [t.name] : []));
  return names.length > 0 ? names : undefined;
}

/**
 * An observation's duration in milliseconds. Langfuse's API documents `latency` in seconds,
 * but exports disagree (some tools write milliseconds there), so the observation's own
 * `startTime` and `endTime` decide; `latency` is read, as seconds, only when the end time is
 * missing. No end time and no latency: no duration, never a made-up 0.
 */
function observationLatencyMs(o: UnknownRecord, start: bigint): number | undefined {
  const end = isoToNanos(o.endTime);
  if (end !== undefined && isoToNanos(o.startTime) !== undefined) return latencyMs(start, end);
  const seconds = toNumber(o.latency);
  return seconds !== undefined ? seconds * 1000 : undefined;
}

/**
 * A LangChain tool run as the Langfuse LangChain handler records it: a SPAN named after the
 * tool whose output is the `ToolMessage`, serialised (JS: `{lc, type: "constructor", id: [...,
 * "ToolMessage"], kwargs: {tool_call_id, content, status}}`) or as a dict (Python: `{type:
 * "tool", tool_call_id, content, status}`). That message names the call.
 */
function langChainToolMessage(output: unknown): UnknownRecord | undefined {
  if (!isRecord(output)) return undefined;
  // LangChain Python's handler writes the message as a dict: {type: "tool", tool_call_id, content, status}
  if (output.type === "tool" && typeof output.tool_call_id === "string") return output;
  if (!Array.isArray(output.id) || output.id[output.id.length - 1] !== "ToolMessage") return undefined;
  const kw = isRecord(output.kwargs) ? output.kwargs : undefined;
  return kw && typeof kw.tool_call_id === "string" ? kw : undefined;
}

/**
 * BeeAI's instrumentation writes each event of a model or tool call as an observation of its
 * own, `backend.openai.chat.<event>-<n>` / `tool.search.wikipedia.<event>-<n>`: the `start`
 * is the call, `success` carries a tool's answer, `error` says it failed, `finish` closes it.
 */
const BEEAI_EVENT = /^((?:backend|tool)\.[\w.-]+)\.(start|success|finish|error)-(\d+)$/;

/** A BeeAI report (anything but the start) of the same call as `start`: its answer and failure folded into the call. */
function foldBeeAiReports(nodes: StepNode[]): void {
  const starts = new Map<string, StepNode>();
  for (const n of nodes) {
    const m = BEEAI_EVENT.exec(n.name);
    if (m && m[2] === "start" && (n.model || n.tool)) starts.set(`${m[1]}-${m[3]}`, n);
  }
  for (const n of nodes) {
    const m = BEEAI_EVENT.exec(n.name);
    const call = m && m[2] !== "start" ? starts.get(`${m[1]}-${m[3]}`) : undefined;
    if (!call || !m) continue;
    if (m[2] === "success" && call.tool && call.tool.result == null && n.info?.output != null) call.tool.result = n.info.output;
    // the tool's name is the emitter's path (`tool.search.wikipedia` → `search.wikipedia`)
    if (call.tool && call.tool.tool === call.name) call.tool.tool = m[1].replace(/^tool\./, "");
    if (m[2] === "error" || n.status === "error") {
      const message = n.errors[0]?.message ?? "error";
      if (call.tool) Object.assign(call.tool, { status: "error", error: call.tool.error ?? message });
      if (call.model) call.model.error ??= message;
    }
  }
}

function observationToNode(o: UnknownRecord, traceStart: bigint): StepNode | undefined {
  const id = str(o.id);
  if (!id) return undefined;
  const start = isoToNanos(o.startTime) ?? traceStart;
  const end = isoToNanos(o.endTime) ?? start;
  const type = str(o.type) ?? "SPAN";
  const level = str(o.level) ?? "DEFAULT";
  const meta = decodeJsonString(o.metadata);
  const attrs = isRecord(meta) && isRecord(meta.attributes) ? meta.attributes : {};
  const input = decodeJsonString(o.input);
  const output = decodeJsonString(o.output);
  const usage = usageOf(o);
  const latency = observationLatencyMs(o, start);
  // BeeAI writes each event of a call as an observation of its own: only the start is the call
  const beeai = BEEAI_EVENT.exec(str(o.name) ?? "")?.[2];
  const lifecycle = beeai !== undefined && beeai !== "start" ? beeai : undefined;
  const toolMessage = type === "SPAN" ? langChainToolMessage(output) : undefined;
  // a SPAN the instrumentation marked as a tool run (OpenInference kind, GenAI call id or operation)
  const toolSpan =
    type === "SPAN" &&
    (attrs["openinference.span.kind"] === "TOOL" ||
      attrs["gen_ai.operation.name"] === "execute_tool" ||
      typeof attrs["gen_ai.tool.call.id"] === "string");
  const isTool = lifecycle === undefined && (type === "TOOL" || toolMessage !== undefined || toolSpan);
  // Google ADK leaves the observation's output `{}` and keeps the tool's answer in an attribute
  const adkResponse =
    isRecord(output) && Object.keys(output).length === 0 ? decodeJsonString(attrs["gcp.vertex.agent.tool_response"]) : undefined;
  const isModelCall = type === "GENERATION" && lifecycle === undefined && (str(o.model) !== undefined || usage !== undefined);
  const errors: ErrorInfo[] = [];
  if (level === "ERROR") errors.push({ t: end, message: str(o.statusMessage) ?? "observation level ERROR", code: "ERROR" });
  const marks: StepNode["marks"] = [];
  if (level === "WARNING") marks.push({ t: end, type: "note", data: { text: str(o.statusMessage) ?? "observation level WARNING", level } });
  const node: StepNode = {
    id,
    parentId: str(o.parentObservationId),
    name: str(o.name) ?? type.toLowerCase(),
    kind: lifecycle
      ? "internal"
      : type === "GENERATION"
        ? isModelCall
          ? "llm"
          : "chain"
        : isTool
          ? "tool"
          : (KINDS[type] ?? type.toLowerCase()),
    start,
    end,
    status: level === "ERROR" ? "error" : "ok",
    info: {
      observationType: type,
      level: level !== "DEFAULT" ? level : undefined,
      prompt: str(o.promptName) ? { name: o.promptName, version: o.promptVersion ?? undefined } : undefined,
      input: isModelCall || isTool ? undefined : input,
      output: isModelCall || isTool ? undefined : output,
      metadata: isRecord(meta) && Object.keys(meta).length > 0 && !isModelCall ? meta : undefined,
    },
    errors,
    marks,
  };
  if (isModelCall) {
    const m: ModelCallInfo = {
      call: id,
      model: str(o.model) ?? "unknown",
      messages: requestMessages(input, id),
      params: params(o),
      tools: toolNames(meta),
      output: outputOf(output, id),
      finishReason: isRecord(o.modelParameters) ? (str(o.modelParameters.finishReason) ?? undefined) : undefined,
      usage,
      latencyMs: latency,
      error: level === "ERROR" ? (str(o.statusMessage) ?? "error") : undefined,
      requestExtra: { prompt: str(o.promptName) ? { name: o.promptName, version: o.promptVersion ?? undefined } : undefined },
      responseExtra: {
        cost: isRecord(o.costDetails) && Object.keys(o.costDetails).length > 0 ? o.costDetails : undefined,
        completionStartTime: str(o.completionStartTime),
      },
    };
    node.model = m;
  } else if (isTool) {
    const failed = level === "ERROR" || toolMessage?.status === "error";
    const t: ToolCallInfo = {
      call: firstStr(attrs["ai.toolCall.id"], attrs["gen_ai.tool.call.id"], toolMessage?.tool_call_id) ?? id,
      tool: firstStr(attrs["ai.toolCall.name"], attrs["gen_ai.tool.name"], attrs["tool.name"], toolMessage?.name, o.name) ?? "tool",
      args: normalizeArgs(input),
      status: failed ? "error" : "ok",
      result: toolMessage ? toolMessage.content : (adkResponse ?? output),
      error: failed ? (str(o.statusMessage) ?? (toolMessage ? toolMessage.content : undefined) ?? "error") : undefined,
      latencyMs: latency,
    };
    node.tool = t;
  } else if (type === "RETRIEVER" && Array.isArray(output)) {
    node.retrieval = {
      query: input ?? null,
      documents: output.map((d, i) => {
        const rec: UnknownRecord = isRecord(d) ? d : { content: d };
        return { ...rec, id: firstStr(rec.id) ?? `${id}-${i}` };
      }),
    };
  }
  return node;
}

/**
 * A call the model asked for without an id (Gemini's `function_call`; messages.ts names it
 * `<observation>-call-<n>`) takes the id of the tool step that ran it: the first tool of that
 * name and those arguments, started after the request did, whose id no response requested
 * (Google ADK stamps its own `adk-…` id on the call).
 */
function adoptToolIds(nodes: StepNode[]): void {
  const requested = new Set(nodes.flatMap((n) => (n.model?.output?.toolCalls ?? []).map((c) => c.id)));
  const free = nodes.filter((n) => n.tool && !requested.has(n.tool.call));
  for (const n of nodes) {
    for (const c of n.model?.output?.toolCalls ?? []) {
      if (!c.id.startsWith(`${n.id}-`)) continue;
      const args = canonicalJson(c.args ?? {});
      const at = free.findIndex((t) => t.tool!.tool === c.name && t.start >= n.start && canonicalJson(t.tool!.args ?? {}) === args);
      if (at < 0) continue;
      c.id = free[at].tool!.call;
      free.splice(at, 1);
    }
  }
}

/**
 * A tool step that names the call it answers but recorded its arguments as one text that is
 * not JSON (LangChain Python's handler writes `str(dict)`: `{'query': 'example'}`) takes the
 * arguments the model sent for that call; the recorded text stays in `recordedInput`.
 */
function requestedArguments(nodes: StepNode[]): void {
  const asked = new Map(nodes.flatMap((n) => (n.model?.output?.toolCalls ?? []).map((c) => [c.id, c.args] as const)));
  for (const n of nodes) {
    const t = n.tool;
    const args = t?.args;
    if (!t || !isRecord(args) || Object.keys(args).length !== 1 || typeof args.input !== "string") continue;
    const requested = asked.get(t.call);
    if (!isRecord(requested) || "input" in requested) continue;
    t.callExtra = { ...t.callExtra, recordedInput: args.input };
    t.args = requested;
  }
}

export function importLangfuse(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const root = isRecord(value) ? value : {};
  const trace = isRecord(root.trace) ? root.trace : root;
  const traceId = str(trace.id);
  const all = [...asArray(root.observations), ...asArray(trace.observations)].filter(isRecord);
  const seen = new Set<string>();
  const observations = all.filter((o) => {
    const id = str(o.id);
    if (!id || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const traceStart = isoToNanos(trace.timestamp) ?? observations.map((o) => isoToNanos(o.startTime)).find((t) => t !== undefined) ?? 0n;
  const nodes = observations.flatMap((o) => {
    const n = observationToNode(o, traceStart);
    return n ? [n] : [];
  });
  // TOOL observations that name no call id (OpenAI Agents, Claude Agent SDK) take the id of
  // the call a model response requested, so the call and its result join the request
  foldBeeAiReports(nodes);
  linkToolCallsToRequests(nodes, [], { startedBefore: true });
  adoptToolIds(nodes);
  requestedArguments(nodes);
  const builder = new JournalBuilder();
  const input = decodeJsonString(trace.input);
  if (input !== undefined && input !== null) builder.add({ t: traceStart, type: "input", data: { source: "user", content: input } });
  const summary = addNodes(builder, nodes);
  const failed = summary.roots.some((r) => r.status === "error");

  const tags = ["langfuse", ...asArray(trace.tags).filter((t): t is string => typeof t === "string")];
  const startData: Record<string, unknown> = {
    workflow: {
      name: str(trace.name) ?? "langfuse-trace",
      ...(firstStr(trace.version, trace.release) ? { version: firstStr(trace.version, trace.release) } : {}),
    },
    tags,
    source: {
      format: "langfuse",
      ...(opts.fileName ? { file: opts.fileName } : {}),
      traceId,
      projectId: str(trace.projectId),
      sessionId: str(trace.sessionId),
    },
  };
  const models = modelVersions(summary.modelCalls);
  if (models) startData.versions = { models };
  if (str(trace.environment)) startData.environment = str(trace.environment);
  if (str(trace.userId)) startData.initiator = { kind: "user", id: str(trace.userId) };
  if (input !== undefined && input !== null) startData.input = input;

  const endData: Record<string, unknown> = { status: failed ? "failed" : "succeeded" };
  const output = decodeJsonString(trace.output);
  if (output !== undefined && output !== null) endData.output = output;
  const scores = asArray(trace.scores).filter(isRecord);
  if (scores.length > 0)
    endData.scores = scores.map((s) => ({
      name: s.name,
      value: s.value,
      source: s.source,
      comment: s.comment ?? undefined,
      timestamp: s.timestamp,
    }));

  let endT = traceStart;
  for (const n of nodes) if (n.end > endT) endT = n.end;
  const id = traceId ?? contentId(text);
  if (!traceId) warnings.push("the trace has no id; the run id was derived from the file's content");
  const runId = makeRunId("langfuse", id);
  return {
    format: "langfuse",
    runs: [{ runId, events: builder.build({ runId, start: { data: startData, t: traceStart }, end: { data: endData, t: endT } }) }],
    warnings,
  };
}
