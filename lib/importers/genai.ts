/**
 * Reads what a span did from its attributes, across the conventions seen in real traces:
 * OpenTelemetry GenAI (old and new names), OpenLLMetry's indexed `gen_ai.prompt.N.*`,
 * OpenInference (`llm.*`, `tool.*`, `retrieval.*`), Vercel AI SDK (`ai.*`), any-agent
 * (`gen_ai.tool.args`, `gen_ai.output`) and Google ADK (`gcp.vertex.agent.*`).
 * The first convention that has a value wins; nothing here guesses content.
 */
import { setOwn } from "../journal/own-keys";
import { decodeJsonString, firstStr, isRecord, str, toNumber } from "./json-utils";
import { contentText, normalizeArgs, normalizeMessage, normalizeMessages, type JournalMessage } from "./messages";
import type { ErrorInfo, ModelCallInfo, RetrievalInfo, StepNode, ToolCallInfo, ToolCallRequest } from "./nodes";
import { latencyMs, requestSignature } from "./nodes";
import type { Attributes, AttrValue, NormalizedSpan } from "./span";

type Rec = Record<string, unknown>;

function has(at: Attributes, key: string): boolean {
  return at[key] !== undefined && at[key] !== null;
}

function first(at: Attributes, keys: string[]): { key: string; value: AttrValue } | undefined {
  for (const k of keys) if (has(at, k)) return { key: k, value: at[k] };
  return undefined;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Flattened lists such as `gen_ai.prompt.0.role`, `gen_ai.prompt.1.content` → one record per
 * index with the rest of the key (`role`, `content`, `tool_calls.0.id`). Returns the keys read.
 */
export function indexed(at: Record<string, unknown>, prefix: string): { items: Array<Record<string, unknown>>; keys: string[] } {
  const re = new RegExp(`^${escapeRe(prefix)}(\\d+)\\.(.+)$`);
  const byIndex = new Map<number, Record<string, unknown>>();
  const keys: string[] = [];
  for (const [k, v] of Object.entries(at)) {
    const m = re.exec(k);
    if (!m) continue;
    keys.push(k);
    const i = Number(m[1]);
    const rec = byIndex.get(i) ?? {};
    rec[m[2]] = v;
    byIndex.set(i, rec);
  }
  const items = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  return { items, keys };
}

// ---------------------------------------------------------------------------------------
// Role of a span

type SpanRole = string;

// Keys that make a span an HTTP call (not merely `http.request_id`, which Mastra puts everywhere).
const HTTP_KEYS = [
  "http.method",
  "http.request.method",
  "http.url",
  "url.full",
  "http.route",
  "http.target",
  "http.status_code",
  "http.response.status_code",
];

const LLM_OPERATIONS = new Set(["chat", "generate_content", "text_completion", "completion", "call_llm", "generate", "responses"]);

/** Langfuse's observation types (`langfuse.observation.type`) → roles; span and event say nothing more. */
const LANGFUSE_ROLES: Record<string, SpanRole> = {
  generation: "llm",
  tool: "tool",
  agent: "agent",
  chain: "chain",
  retriever: "retriever",
  embedding: "embedding",
  evaluator: "chain",
  guardrail: "chain",
};

export function spanRole(span: NormalizedSpan): SpanRole {
  const at = span.attributes;
  const oi = str(at["openinference.span.kind"])?.toLowerCase();
  if (oi && oi !== "unknown") return oi;
  const lf = str(at["langfuse.observation.type"])?.toLowerCase();
  if (lf && LANGFUSE_ROLES[lf]) return LANGFUSE_ROLES[lf];
  const op = str(at["gen_ai.operation.name"])?.toLowerCase();
  if (op) {
    if (LLM_OPERATIONS.has(op)) return "llm";
    if (op.startsWith("embed")) return "embedding";
    if (op === "execute_tool") return "tool";
    if (op === "invoke_agent" || op === "create_agent") return "agent";
    if (op === "invoke_workflow") return "chain";
    if (op.includes("retriev") || op.includes("search_memory")) return "retriever";
  }
  const aiOp = firstStr(at["ai.operationId"], at["operation.name"]);
  if (aiOp?.startsWith("ai.")) {
    if (aiOp === "ai.toolCall") return "tool";
    if (/\.do(Generate|Stream)$/.test(aiOp)) return "llm";
    if (/embed/i.test(aiOp)) return "embedding";
    return "chain";
  }
  const name = span.name;
  if (/^call_llm\b/.test(name)) return "llm";
  if (/^execute_tool\b/.test(name) || has(at, "gen_ai.tool.name") || has(at, "tool.name")) return "tool";
  if (/^invoke_agent\b/.test(name)) return "agent";
  if (has(at, "llm.request.type") || has(at, "gen_ai.prompt.0.role") || has(at, "gen_ai.completion.0.role")) return "llm";
  if (has(at, "gen_ai.request.model") && usageFrom(at).usage) return "llm";
  if (HTTP_KEYS.some((k) => has(at, k))) return "http";
  if (has(at, "db.system") || has(at, "db.system.name") || has(at, "db.operation") || has(at, "db.operation.name")) return "db";
  return "internal";
}

// ---------------------------------------------------------------------------------------
// Messages

interface Message {
  role: string;
  content?: unknown;
  toolCalls?: ToolCallRequest[];
  toolCallId?: string;
  name?: string;
}

function cleanMessage(m: Message): Rec {
  const out: Rec = { role: m.role };
  if (m.content !== undefined) out.content = m.content;
  if (m.toolCalls && m.toolCalls.length > 0) out.toolCalls = m.toolCalls;
  if (m.toolCallId) out.toolCallId = m.toolCallId;
  if (m.name) out.name = m.name;
  return out;
}

function toolCallsFromIndexed(
  sub: Rec,
  prefix: string,
  idBase: string,
  nameKeys: string[],
  argKeys: string[],
  idKeys: string[],
): ToolCallRequest[] {
  return indexed(sub, prefix).items.map((tc, j) => ({
    id: firstStr(...idKeys.map((k) => tc[k])) ?? `${idBase}-${j}`,
    name: firstStr(...nameKeys.map((k) => tc[k])) ?? "unknown",
    args: normalizeArgs(argKeys.map((k) => tc[k]).find((v) => v !== undefined)),
  }));
}

/** OpenLLMetry `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`. */
function openLlmetryMessages(at: Attributes, prefix: string, idBase: string): { messages: Message[]; keys: string[]; finish?: string } {
  const { items, keys } = indexed(at, prefix);
  let finish: string | undefined;
  const messages = items.map((it, i) => {
    finish ??= str(it.finish_reason);
    return {
      role: str(it.role) ?? "user",
      content: it.content,
      toolCalls: toolCallsFromIndexed(
        it,
        "tool_calls.",
        `${idBase}-${i}`,
        ["name", "function.name"],
        ["arguments", "function.arguments"],
        ["id"],
      ),
      toolCallId: str(it.tool_call_id),
    };
  });
  return { messages, keys, finish };
}

/** OpenInference `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`. */
function openInferenceMessages(at: Attributes, prefix: string, idBase: string): { messages: Message[]; keys: string[] } {
  const { items, keys } = indexed(at, prefix);
  const messages = items.map((it, i) => {
    let content: unknown = it["message.content"];
    if (content === undefined) {
      const parts = indexed(it, "message.contents.").items;
      const texts = parts.map((p) => p["message_content.text"]).filter((t): t is string => typeof t === "string");
      if (texts.length > 0) content = texts.join("\n");
      else if (parts.length > 0) content = parts;
    }
    return {
      role: str(it["message.role"]) ?? "user",
      content,
      toolCalls: toolCallsFromIndexed(
        it,
        "message.tool_calls.",
        `${idBase}-${i}`,
        ["tool_call.function.name"],
        ["tool_call.function.arguments"],
        ["tool_call.id"],
      ),
      toolCallId: str(it["message.tool_call_id"]),
      name: str(it["message.name"]),
    };
  });
  return { messages, keys };
}

/** Google ADK `llm_request` / `llm_response` (Gemini-style contents with parts). */
function adkContentToMessage(c: unknown, idBase: string): Message | undefined {
  if (!isRecord(c)) return undefined;
  const parts = Array.isArray(c.parts) ? c.parts : [];
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  const results: unknown[] = [];
  parts.forEach((p, j) => {
    if (!isRecord(p)) return;
    if (typeof p.text === "string") texts.push(p.text);
    if (isRecord(p.function_call)) {
      toolCalls.push({
        id: str(p.function_call.id) ?? `${idBase}-${j}`,
        name: str(p.function_call.name) ?? "unknown",
        args: normalizeArgs(p.function_call.args),
      });
    }
    if (isRecord(p.function_response)) results.push(p.function_response);
  });
  const role = str(c.role) === "model" ? "assistant" : (str(c.role) ?? "user");
  return {
    role: results.length > 0 && texts.length === 0 ? "tool" : role,
    content: texts.length > 0 ? texts.join("\n") : results.length > 0 ? results : undefined,
    toolCalls,
  };
}

/**
 * A GenAI semconv message with `parts` (`[{role, parts: [{type: text|tool_call|
 * tool_call_response, …}]}]`, AI SDK 7, Traceloop) → the journal's {role, content, toolCalls?}
 * and one `{role: "tool", content, toolCallId}` per tool result (AI SDK 7 puts the results of
 * parallel calls in one message); other shapes are kept as they are.
 */
function normalizePartsMessage(m: unknown, idBase: string): unknown[] {
  if (!isRecord(m) || !Array.isArray(m.parts) || m.content !== undefined) return [m];
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  const results: Rec[] = [];
  m.parts.forEach((p, j) => {
    if (!isRecord(p)) return;
    if (p.type === "text" || p.type === "reasoning") {
      const t = firstStr(p.content, p.text);
      if (t !== undefined) texts.push(t);
    } else if (p.type === "tool_call") {
      toolCalls.push({ id: str(p.id) ?? `${idBase}-${j}`, name: str(p.name) ?? "unknown", args: normalizeArgs(p.arguments) });
    } else if (p.type === "tool_call_response") {
      results.push({ role: "tool", content: contentText(p.response ?? p.result ?? null), toolCallId: str(p.id) ?? `${idBase}-${j}` });
    }
  });
  const out: Rec = { role: str(m.role) ?? "user" };
  if (texts.length > 0) out.content = texts.join("\n");
  if (toolCalls.length > 0) out.toolCalls = toolCalls;
  return texts.length > 0 || toolCalls.length > 0 || results.length === 0 ? [out, ...results] : results;
}

/** `gen_ai.system_instructions`: a string, or text parts `[{type: "text", content}]`. */
function systemText(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const texts = v.map((p) => (typeof p === "string" ? p : isRecord(p) ? firstStr(p.content, p.text) : undefined));
  return texts.filter((t): t is string => t !== undefined).join("\n");
}

function messagesFromList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (isRecord(v) && Array.isArray(v.messages)) {
    // LangChain serialises a batch of conversations as messages: [[...]].
    const msgs = v.messages as unknown[];
    return msgs.length === 1 && Array.isArray(msgs[0]) ? (msgs[0] as unknown[]) : msgs;
  }
  return undefined;
}

function messagesFrom(span: NormalizedSpan, role: SpanRole): { messages?: unknown[]; keys: string[] } {
  const at = span.attributes;
  const keys: string[] = [];
  const sys = first(at, ["gen_ai.system_instructions"]);
  const withSystem = (msgs: unknown[]): unknown[] => {
    if (!sys) return msgs;
    keys.push(sys.key);
    const s = decodeJsonString(sys.value);
    return [{ role: "system", content: systemText(s) }, ...msgs];
  };
  const genai = first(at, ["gen_ai.input.messages", "gen_ai.prompt"]);
  if (genai) {
    const list = messagesFromList(decodeJsonString(genai.value));
    if (list)
      return { messages: withSystem(list.flatMap((m, i) => normalizePartsMessage(m, `${span.spanId}-p${i}`))), keys: [...keys, genai.key] };
  }
  const lf = first(at, ["langfuse.observation.input"]);
  if (lf && role === "llm") {
    const v = decodeJsonString(lf.value);
    const list = messagesFromList(v);
    // OpenAI chat messages as the user passed them, or GenAI parts: one normaliser reads both
    if (list) return { messages: normalizeMessages(list, `${span.spanId}-p`), keys: [lf.key] };
    return { messages: [isRecord(v) && typeof v.role === "string" ? v : { role: "user", content: v }], keys: [lf.key] };
  }
  const oll = openLlmetryMessages(at, "gen_ai.prompt.", `${span.spanId}-p`);
  if (oll.messages.length > 0) return { messages: withSystem(oll.messages.map(cleanMessage)), keys: [...keys, ...oll.keys] };
  const oi = openInferenceMessages(at, "llm.input_messages.", `${span.spanId}-p`);
  const oiValue = role === "llm" ? first(at, ["input.value"]) : undefined;
  const fromValue = oiValue ? requestMessages(decodeJsonString(oiValue.value), `${span.spanId}-p`) : undefined;
  // The request as sent (`input.value`) holds what the flattened attributes may drop: the system
  // prompt, the assistant's earlier tool calls, tool results with their call ids.
  if (fromValue && fromValue.length > 0 && oiValue) return { messages: fromValue, keys: [oiValue.key, ...oi.keys] };
  if (oi.messages.length > 0) return { messages: normalizeMessages(oi.messages.map(chatShape), `${span.spanId}-p`), keys: oi.keys };
  const ai = first(at, ["ai.prompt.messages", "ai.prompt"]);
  if (ai) {
    const v = decodeJsonString(ai.value);
    const list = messagesFromList(v);
    if (list) return { messages: list, keys: [ai.key] };
    if (isRecord(v)) {
      const msgs: unknown[] = [];
      if (v.system !== undefined) msgs.push({ role: "system", content: v.system });
      if (v.prompt !== undefined) msgs.push({ role: "user", content: v.prompt });
      if (msgs.length > 0) return { messages: msgs, keys: [ai.key] };
    }
  }
  const adk = first(at, ["gcp.vertex.agent.llm_request"]);
  if (adk) {
    const req = decodeJsonString(adk.value);
    if (isRecord(req) && Array.isArray(req.contents)) {
      const msgs: unknown[] = [];
      const cfg = isRecord(req.config) ? req.config : {};
      if (cfg.system_instruction !== undefined) msgs.push({ role: "system", content: cfg.system_instruction });
      req.contents.forEach((c, i) => {
        const m = adkContentToMessage(c, `${span.spanId}-p${i}`);
        if (m) msgs.push(cleanMessage(m));
      });
      return { messages: msgs, keys: [adk.key] };
    }
  }
  const evMsgs = span.events.filter((e) => /^gen_ai\.(system|user|assistant|tool)\.message$/.test(e.name));
  if (evMsgs.length > 0) {
    return {
      messages: evMsgs.map((e) => {
        const role = e.name.split(".")[1];
        const content = e.attributes.content ?? decodeJsonString(e.attributes["gen_ai.event.content"]);
        return { role, content: isRecord(content) && "content" in content ? content.content : content };
      }),
      keys: [],
    };
  }
  if (oiValue) return { messages: normalizeMessages([{ role: "user", content: decodeJsonString(oiValue.value) }]), keys: [oiValue.key] };
  return { keys };
}

/** A flattened OpenInference message as OpenAI chat, so `normalizeMessages` reads it. */
function chatShape(m: Message): Rec {
  const out: Rec = { role: m.role, content: m.content };
  if (m.toolCalls && m.toolCalls.length > 0)
    out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } }));
  if (m.toolCallId) out.tool_call_id = m.toolCallId;
  if (m.name) out.name = m.name;
  return out;
}

function systemMessage(v: unknown): unknown[] {
  if (v === undefined || v === null || v === "") return [];
  return [{ role: "system", content: v }];
}

/**
 * A model request as an instrumentation serialised it (OpenInference `input.value`): OpenAI
 * chat `{messages}`, LangChain `{messages: [[…]]}`, Anthropic `{system, messages}`, OpenAI
 * Responses `{instructions, input}`, or a bare list → journal messages; undefined when it is
 * none of these.
 */
function requestMessages(v: unknown, idPrefix = ""): JournalMessage[] | undefined {
  if (Array.isArray(v)) return normalizeMessages(v, idPrefix);
  if (!isRecord(v)) return undefined;
  const list = messagesFromList(v);
  if (list) return normalizeMessages([...systemMessage(v.system), ...list], idPrefix);
  if (v.input !== undefined && (v.instructions !== undefined || v.model !== undefined)) {
    const items = Array.isArray(v.input) ? v.input : [{ role: "user", content: v.input }];
    return normalizeMessages([...systemMessage(v.instructions), ...items], idPrefix);
  }
  if (Array.isArray(v.prompts))
    return normalizeMessages(
      v.prompts.map((p) => ({ role: "user", content: p })),
      idPrefix,
    );
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Output

function textOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const parts = v
      .map((p) => (typeof p === "string" ? p : isRecord(p) ? (firstStr(p.text, p.content) ?? "") : ""))
      .filter((s) => s !== "");
    return parts.length > 0 ? parts.join("\n") : undefined;
  }
  return undefined;
}

interface Output {
  output?: { text?: string; toolCalls?: ToolCallRequest[] };
  finish?: string;
  keys: string[];
}

function fromMessages(messages: Message[]): Output["output"] {
  const texts = messages.map((m) => textOf(m.content)).filter((t): t is string => t !== undefined && t !== "");
  const toolCalls = messages.flatMap((m) => m.toolCalls ?? []);
  return finishOutput(texts.length > 0 ? texts.join("\n") : undefined, toolCalls);
}

function finishOutput(text: string | undefined, toolCalls: ToolCallRequest[]): Output["output"] {
  const out: { text?: string; toolCalls?: ToolCallRequest[] } = {};
  if (text !== undefined) out.text = text;
  if (toolCalls.length > 0) out.toolCalls = toolCalls;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** GenAI `gen_ai.output.messages`: [{role, parts: [{type: text|tool_call, …}], finish_reason}]. */
function genaiOutputMessages(v: unknown, idBase: string): Output["output"] & { finish?: string } {
  const list = Array.isArray(v) ? v : [];
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  let finish: string | undefined;
  list.forEach((m, i) => {
    if (!isRecord(m)) return;
    finish ??= str(m.finish_reason);
    const parts = Array.isArray(m.parts) ? m.parts : [];
    parts.forEach((p, j) => {
      if (!isRecord(p)) return;
      if (p.type === "text" && typeof p.content === "string") texts.push(p.content);
      if (p.type === "tool_call")
        toolCalls.push({
          id: str(p.id) ?? `${idBase}-${i}-${j}`,
          name: str(p.name) ?? "unknown",
          args: normalizeArgs(p.arguments),
        });
    });
    if (typeof m.content === "string") texts.push(m.content);
  });
  return { ...finishOutput(texts.length > 0 ? texts.join("\n") : undefined, toolCalls), finish };
}

function outputFrom(span: NormalizedSpan): Output {
  const at = span.attributes;
  const id = `${span.spanId}-c`;
  const gm = first(at, ["gen_ai.output.messages"]);
  if (gm) {
    const r = genaiOutputMessages(decodeJsonString(gm.value), id);
    const { finish, ...output } = r;
    return { output: Object.keys(output).length > 0 ? output : undefined, finish, keys: [gm.key] };
  }
  const oll = openLlmetryMessages(at, "gen_ai.completion.", id);
  if (oll.messages.length > 0) return { output: fromMessages(oll.messages), finish: oll.finish, keys: oll.keys };
  const oi = openInferenceMessages(at, "llm.output_messages.", id);
  const ov0 = first(at, ["output.value"]);
  const fromValue = ov0 ? responseOutput(decodeJsonString(ov0.value), id) : undefined;
  // The response as received holds the requested tool calls with their arguments even when the
  // flattened `llm.output_messages` leave them out (LangChain).
  if (fromValue && ov0) return { output: fromValue.output, finish: fromValue.finish, keys: [ov0.key, ...oi.keys] };
  if (oi.messages.length > 0) return { output: fromMessages(normalizeMessages(oi.messages.map(chatShape), id)), keys: oi.keys };
  if (has(at, "ai.response.text") || has(at, "ai.response.toolCalls")) {
    const calls = decodeJsonString(at["ai.response.toolCalls"]);
    const toolCalls = (Array.isArray(calls) ? calls : []).filter(isRecord).map((c, j) => ({
      id: firstStr(c.toolCallId, c.id) ?? `${id}-${j}`,
      name: firstStr(c.toolName, c.name) ?? "unknown",
      args: normalizeArgs(c.args ?? c.input),
    }));
    const text = str(at["ai.response.text"]);
    return { output: finishOutput(text, toolCalls), keys: ["ai.response.text", "ai.response.toolCalls"] };
  }
  if (has(at, "gen_ai.output")) {
    // any-agent: tool requests as [{"tool.name", "tool.args"}], otherwise the answer itself.
    const raw = at["gen_ai.output"];
    const v = decodeJsonString(raw);
    if (Array.isArray(v) && v.length > 0 && v.every((x) => isRecord(x) && "tool.name" in x)) {
      const toolCalls = (v as Rec[]).map((x, j) => ({
        id: `${id}-${j}`,
        name: str(x["tool.name"]) ?? "unknown",
        args: normalizeArgs(x["tool.args"]),
      }));
      return { output: { toolCalls }, keys: ["gen_ai.output"] };
    }
    return { output: typeof raw === "string" ? { text: raw } : { text: JSON.stringify(raw) }, keys: ["gen_ai.output"] };
  }
  const adk = first(at, ["gcp.vertex.agent.llm_response"]);
  if (adk) {
    const resp = decodeJsonString(adk.value);
    if (isRecord(resp)) {
      const m = adkContentToMessage(resp.content, id);
      return { output: m ? fromMessages([m]) : undefined, finish: str(resp.finish_reason)?.toLowerCase(), keys: [adk.key] };
    }
  }
  const choice = span.events.find((e) => e.name === "gen_ai.choice");
  if (choice) {
    const msg = decodeJsonString(choice.attributes.message ?? choice.attributes["gen_ai.event.content"]);
    const text = isRecord(msg) ? textOf(msg.content) : textOf(msg);
    return { output: finishOutput(text, []), finish: str(choice.attributes.finish_reason), keys: [] };
  }
  const lfo = first(at, ["langfuse.observation.output"]);
  if (lfo) {
    const v = decodeJsonString(lfo.value);
    if (typeof v === "string") return { output: { text: v }, keys: [lfo.key] };
    const msgs = Array.isArray(v) ? v : [v];
    const texts: string[] = [];
    const toolCalls: ToolCallRequest[] = [];
    msgs
      .flatMap((m, i) => normalizePartsMessage(m, `${id}-${i}`))
      .forEach((n, i) => {
        if (!isRecord(n)) return;
        const t = textOf(n.content);
        if (t) texts.push(t);
        const calls = Array.isArray(n.toolCalls) ? n.toolCalls : Array.isArray(n.tool_calls) ? n.tool_calls : [];
        calls.filter(isRecord).forEach((c, j) => {
          const fn = isRecord(c.function) ? c.function : {};
          toolCalls.push({
            id: str(c.id) ?? `${id}-${i}-${j}`,
            name: firstStr(c.name, fn.name) ?? "unknown",
            args: normalizeArgs(c.args ?? c.arguments ?? fn.arguments),
          });
        });
      });
    const output = finishOutput(texts.length > 0 ? texts.join("\n") : undefined, toolCalls);
    return { output: output ?? { text: canonicalText(v) }, keys: [lfo.key] };
  }
  const ov = first(at, ["output.value"]);
  if (ov && typeof ov.value === "string") return { output: { text: ov.value }, keys: [ov.key] };
  return { keys: [] };
}

/**
 * A model response as an instrumentation serialised it (OpenInference `output.value`): OpenAI
 * chat `{choices: [{message}]}`, LangChain `{generations: [[{message | text}]]}`, Anthropic
 * `{type: "message", content: [blocks]}`, OpenAI Responses `{output: [items]}`; undefined
 * when it is none of these.
 */
function responseOutput(v: unknown, idPrefix = ""): { output: Output["output"]; finish?: string } | undefined {
  if (!isRecord(v)) return undefined;
  if (Array.isArray(v.choices) && isRecord(v.choices[0]) && isRecord(v.choices[0].message)) {
    return { output: fromMessages(normalizeMessage(v.choices[0].message, idPrefix)), finish: str(v.choices[0].finish_reason) };
  }
  if (Array.isArray(v.generations)) {
    const batch = Array.isArray(v.generations[0]) ? (v.generations[0] as unknown[]) : v.generations;
    const msgs: JournalMessage[] = [];
    let finish: string | undefined;
    batch.filter(isRecord).forEach((g, i) => {
      const info = isRecord(g.generation_info) ? g.generation_info : isRecord(g.generationInfo) ? g.generationInfo : {};
      finish ??= firstStr(info.finish_reason, info.finishReason, info.stop_reason);
      if (isRecord(g.message)) msgs.push(...normalizeMessage(g.message, `${idPrefix}${i}-`));
      else if (typeof g.text === "string") msgs.push({ role: "assistant", content: g.text });
    });
    return msgs.length > 0 ? { output: fromMessages(msgs), finish } : undefined;
  }
  if (v.type === "message" && Array.isArray(v.content)) {
    return { output: fromMessages(normalizeMessage({ role: "assistant", content: v.content }, idPrefix)), finish: str(v.stop_reason) };
  }
  if (v.object === "response" && Array.isArray(v.output)) {
    return { output: fromMessages(normalizeMessages(v.output, idPrefix)), finish: str(v.status) };
  }
  return undefined;
}

function finishReasonFrom(at: Attributes): string | undefined {
  const fr = first(at, ["gen_ai.response.finish_reasons", "ai.response.finishReason", "llm.response.finish_reason"]);
  if (!fr) return undefined;
  const v = decodeJsonString(fr.value);
  if (Array.isArray(v)) return str(v[0]);
  return str(v);
}

// ---------------------------------------------------------------------------------------
// Usage, params, tools

const USAGE_KEYS: Array<[string, string[]]> = [
  [
    "inputTokens",
    [
      "gen_ai.usage.input_tokens",
      "gen_ai.usage.prompt_tokens",
      "llm.token_count.prompt",
      "ai.usage.promptTokens",
      "ai.usage.inputTokens",
      "llm.usage.prompt_tokens",
    ],
  ],
  [
    "outputTokens",
    [
      "gen_ai.usage.output_tokens",
      "gen_ai.usage.completion_tokens",
      "llm.token_count.completion",
      "ai.usage.completionTokens",
      "ai.usage.outputTokens",
      "llm.usage.completion_tokens",
    ],
  ],
  ["totalTokens", ["gen_ai.usage.total_tokens", "llm.usage.total_tokens", "llm.token_count.total", "ai.usage.totalTokens"]],
  [
    "cacheReadTokens",
    [
      "gen_ai.usage.cache_read.input_tokens",
      "gen_ai.usage.cache_read_input_tokens",
      "llm.token_count.prompt_details.cache_read",
      "ai.usage.cachedInputTokens",
    ],
  ],
  [
    "cacheCreationTokens",
    ["gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens", "llm.token_count.prompt_details.cache_write"],
  ],
  [
    "reasoningTokens",
    [
      "gen_ai.usage.reasoning.output_tokens",
      "gen_ai.usage.reasoning_tokens",
      "llm.usage.reasoning_tokens",
      "llm.token_count.completion_details.reasoning",
      "ai.usage.reasoningTokens",
    ],
  ],
  ["inputCost", ["gen_ai.usage.input_cost"]],
  ["outputCost", ["gen_ai.usage.output_cost"]],
];

function usageFrom(at: Attributes): { usage?: Record<string, number> } {
  const usage: Record<string, number> = {};
  // Langfuse: `langfuse.observation.usage_details` = JSON {input, output, total}
  const lf = decodeJsonString(at["langfuse.observation.usage_details"]);
  if (isRecord(lf)) {
    for (const [name, key] of [
      ["inputTokens", "input"],
      ["outputTokens", "output"],
      ["totalTokens", "total"],
    ] as const) {
      const n = toNumber(toAttrValueLoose(lf[key]));
      if (n !== undefined) usage[name] = n;
    }
  }
  for (const [name, keys] of USAGE_KEYS) {
    const f = first(at, keys);
    const n = f ? toNumber(f.value) : undefined;
    if (n !== undefined) usage[name] = n;
  }
  return Object.keys(usage).length > 0 ? { usage } : {};
}

function paramsFrom(at: Attributes): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {};
  const inv = decodeJsonString(at["llm.invocation_parameters"]);
  if (isRecord(inv)) for (const [k, v] of Object.entries(inv)) if (k !== "model" && v !== null) setOwn(params, k, v);
  for (const [k, v] of Object.entries(at)) {
    if (k.startsWith("gen_ai.request.") && k !== "gen_ai.request.model")
      setOwn(params, k.slice("gen_ai.request.".length), decodeJsonString(v));
    else if (k.startsWith("ai.settings.")) setOwn(params, k.slice("ai.settings.".length), v);
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

function toolNamesFrom(at: Attributes): { tools?: string[]; keys: string[] } {
  const names: string[] = [];
  const keys: string[] = [];
  const fns = indexed(at, "llm.request.functions.");
  for (const f of fns.items) if (typeof f.name === "string") names.push(f.name);
  keys.push(...fns.keys);
  const oi = indexed(at, "llm.tools.");
  for (const t of oi.items) {
    const schema = decodeJsonString(t["tool.json_schema"]);
    const n = isRecord(schema) ? firstStr(isRecord(schema.function) ? schema.function.name : undefined, schema.name) : undefined;
    if (n) names.push(n);
  }
  keys.push(...oi.keys);
  const lists: Array<[string, unknown]> = [
    ["ai.prompt.tools", at["ai.prompt.tools"]],
    ["gen_ai.tool.definitions", decodeJsonString(at["gen_ai.tool.definitions"])],
  ];
  for (const [key, list] of lists) {
    if (!Array.isArray(list)) continue;
    keys.push(key);
    for (const item of list) {
      const t = decodeJsonString(item);
      const n = isRecord(t) ? firstStr(t.name, isRecord(t.function) ? t.function.name : undefined) : undefined;
      if (n) names.push(n);
    }
  }
  const unique = [...new Set(names)];
  return { tools: unique.length > 0 ? unique : undefined, keys };
}

// ---------------------------------------------------------------------------------------
// Spans → step nodes

function modelCallOf(span: NormalizedSpan, role: SpanRole, start: bigint, end: bigint): { model: ModelCallInfo; keys: string[] } {
  const at = span.attributes;
  const inv = decodeJsonString(at["llm.invocation_parameters"]);
  const model =
    firstStr(
      at["gen_ai.request.model"],
      at["langfuse.observation.model.name"],
      at["llm.model_name"],
      at["ai.model.id"],
      at["gen_ai.response.model"],
      at["ai.response.model"],
      isRecord(inv) ? inv.model : undefined,
    ) ?? "unknown";
  const msgs = messagesFrom(span, role);
  const out = outputFrom(span);
  const tools = toolNamesFrom(at);
  const error = span.status.code === "error" ? (span.status.message ?? "span status ERROR") : undefined;
  const info: ModelCallInfo = {
    call: span.spanId,
    model,
    messages: msgs.messages,
    params: paramsFrom(at),
    tools: tools.tools,
    output: out.output,
    finishReason: finishReasonFrom(at) ?? out.finish,
    ...usageFrom(at),
    latencyMs: latencyMs(start, end),
    error,
    requestExtra: {
      provider: firstStr(at["gen_ai.provider.name"], at["gen_ai.system"], at["llm.provider"], at["llm.system"], at["ai.model.provider"]),
    },
    responseExtra: { responseId: firstStr(at["gen_ai.response.id"], at["ai.response.id"]) },
    responseModel: firstStr(at["gen_ai.response.model"], at["ai.response.model"]),
  };
  return { model: info, keys: [...msgs.keys, ...out.keys, ...tools.keys] };
}

const TOOL_ARG_KEYS = [
  "gen_ai.tool.call.arguments",
  "langfuse.observation.input",
  "gen_ai.tool.args",
  "ai.toolCall.args",
  "gcp.vertex.agent.tool_call_args",
  "tool_call.function.arguments",
  "input.value",
];
const TOOL_RESULT_KEYS = [
  "gen_ai.tool.call.result",
  "langfuse.observation.output",
  "gen_ai.output",
  "ai.toolCall.result",
  "gcp.vertex.agent.tool_response",
  "output.value",
];

function toolCallOf(span: NormalizedSpan, start: bigint, end: bigint): { tool: ToolCallInfo; keys: string[] } {
  const at = span.attributes;
  const args = first(at, TOOL_ARG_KEYS);
  const result = first(at, TOOL_RESULT_KEYS);
  const name =
    firstStr(at["gen_ai.tool.name"], at["tool.name"], at["ai.toolCall.name"], at["tool_call.function.name"]) ??
    (span.name.replace(/^execute_tool\s*/, "").trim() || span.name);
  const failed = span.status.code === "error";
  const decodedResult = result ? decodeJsonString(result.value) : undefined;
  const lcResult = result?.key === "output.value" ? langChainToolMessage(decodedResult) : undefined;
  const tool: ToolCallInfo = {
    call: firstStr(at["gen_ai.tool.call.id"], at["ai.toolCall.id"], at["tool_call.id"], lcResult?.callId) ?? span.spanId,
    tool: name,
    args: args ? normalizeArgs(args.key === "input.value" ? toolInputValue(args.value, at["tool.parameters"]) : args.value) : {},
    status: failed ? "error" : "ok",
    result: lcResult ? lcResult.content : decodedResult,
    error: failed ? (span.status.message ?? "span status ERROR") : undefined,
    latencyMs: latencyMs(start, end),
    callExtra: { description: firstStr(at["gen_ai.tool.description"], at["tool.description"]), toolType: str(at["gen_ai.tool.type"]) },
  };
  return { tool, keys: [...(args ? [args.key] : []), ...(result ? [result.key] : [])] };
}

/**
 * The Langfuse SDK marks a failed observation with `langfuse.observation.level: ERROR` (and
 * `status_message`), not the span status: read as a failed span, so it counts as one error.
 */
function withLangfuseLevel(span: NormalizedSpan): NormalizedSpan {
  if (span.status.code === "error" || span.attributes["langfuse.observation.level"] !== "ERROR") return span;
  const message = str(span.attributes["langfuse.observation.status_message"]);
  return { ...span, status: { code: "error", ...(message ? { message } : {}) } };
}

/**
 * OpenInference LangChain.js TOOL `output.value`: `{output: <serialized ToolMessage>}` (or the
 * message itself). Its `tool_call_id` is the only link to the model's request, since the span
 * has no `tool_call.id`; its content is the tool's result.
 */
function langChainToolMessage(v: unknown): { callId?: string; content: unknown } | undefined {
  const m = isRecord(v) && Object.keys(v).length === 1 && isRecord(v.output) ? v.output : v;
  if (!isRecord(m)) return undefined;
  const body = m.lc !== undefined && isRecord(m.kwargs) ? m.kwargs : m.type === "tool" ? m : undefined;
  if (!body || typeof body.tool_call_id !== "string") return undefined;
  return { callId: body.tool_call_id, content: decodeJsonString(body.content) };
}

/**
 * OpenInference TOOL `input.value`: the arguments as JSON, or (LangChain) the run's inputs
 * `{input: "<arguments as JSON>"}`, unwrapped so the arguments stay an object; or
 * (smolagents, `Tool.__call__`) `{args: [...], sanitize_inputs_outputs, kwargs: {...}}`: the
 * keyword arguments, with positional ones named after `tool.parameters` (its keys in order).
 */
function toolInputValue(v: AttrValue, parameters?: AttrValue): unknown {
  const d = decodeJsonString(v);
  if (isRecord(d) && Object.keys(d).length === 1 && typeof d.input === "string") {
    const inner = decodeJsonString(d.input);
    if (isRecord(inner)) return inner;
  }
  if (isRecord(d) && Array.isArray(d.args) && isRecord(d.kwargs) && "sanitize_inputs_outputs" in d) {
    const params = decodeJsonString(parameters);
    const names = isRecord(params) ? Object.keys(params) : [];
    const out: Record<string, unknown> = {};
    d.args.forEach((a, i) => setOwn(out, names[i] ?? `arg${i}`, a));
    for (const [k, x] of Object.entries(d.kwargs)) setOwn(out, k, x);
    return out;
  }
  return d;
}

function retrievalOf(span: NormalizedSpan): { retrieval: RetrievalInfo; keys: string[] } | undefined {
  const at = span.attributes;
  const docs = indexed(at, "retrieval.documents.");
  if (docs.items.length === 0) return undefined;
  const query = first(at, ["input.value", "gen_ai.retrieval.query", "db.query.text"]);
  const documents = docs.items.map((d, i) => {
    const metadata = decodeJsonString(d["document.metadata"]);
    const uri = isRecord(metadata) ? firstStr(metadata.source, metadata.uri, metadata.url) : undefined;
    const doc: Record<string, unknown> & { id: string } = {
      id: firstStr(d["document.id"]) ?? String(d["document.id"] ?? `${span.spanId}-${i}`),
    };
    if (uri) doc.uri = uri;
    if (d["document.content"] !== undefined) doc.content = d["document.content"];
    if (d["document.score"] !== undefined) doc.score = d["document.score"];
    if (metadata !== undefined) doc.metadata = metadata;
    return doc;
  });
  return {
    retrieval: { query: query ? decodeJsonString(query.value) : null, documents },
    keys: [...docs.keys, ...(query ? [query.key] : [])],
  };
}

function errorsOf(span: NormalizedSpan, end: bigint): { errors: ErrorInfo[]; marks: StepNode["marks"] } {
  const errors: ErrorInfo[] = [];
  const marks: StepNode["marks"] = [];
  for (const e of span.events) {
    const t = BigInt(e.timeUnixNano);
    if (e.name === "exception") {
      const type = str(e.attributes["exception.type"]);
      errors.push({
        t,
        message: firstStr(e.attributes["exception.message"], type) ?? "exception",
        code: type,
        extra: { stacktrace: str(e.attributes["exception.stacktrace"]), escaped: e.attributes["exception.escaped"] ?? undefined },
      });
    } else if (!/^gen_ai\.(system|user|assistant|tool)\.message$|^gen_ai\.choice$/.test(e.name)) {
      marks.push({ t, type: "x-span-event", data: { name: e.name, attributes: e.attributes } });
    }
  }
  if (span.status.code === "error" && errors.length === 0) {
    errors.push({
      t: end,
      message: span.status.message || "span status ERROR",
      code: str(span.attributes["error.type"]) ?? "STATUS_CODE_ERROR",
      fromStatus: true,
    });
  }
  return { errors, marks };
}

/** One span → one step node with what it did. */
export function spanToNode(raw: NormalizedSpan): StepNode {
  const span = withLangfuseLevel(raw);
  const start = BigInt(span.startTimeUnixNano);
  let end = BigInt(span.endTimeUnixNano);
  if (end < start) end = start;
  const role = spanRole(span);
  const keys = new Set<string>();
  const node: StepNode = {
    id: span.spanId,
    parentId: span.parentSpanId,
    name: span.name,
    kind: role,
    start,
    end,
    status: span.status.code === "error" ? "error" : "ok",
    info: {
      spanKind: span.kind,
      service: str(span.resource["service.name"]),
      scope: span.scope?.name,
      parentSpanId: span.parentSpanId,
    },
    attributes: span.attributes,
    contentKeys: keys,
    ...errorsOf(span, end),
    endInfo: span.status.message ? { message: span.status.message } : undefined,
  };
  if (role === "llm") {
    const m = modelCallOf(span, role, start, end);
    node.model = m.model;
    m.keys.forEach((k) => keys.add(k));
  } else if (role === "tool") {
    const t = toolCallOf(span, start, end);
    node.tool = t.tool;
    t.keys.forEach((k) => keys.add(k));
  } else if (role === "retriever") {
    const r = retrievalOf(span);
    if (r) {
      node.retrieval = r.retrieval;
      r.keys.forEach((k) => keys.add(k));
    }
  }
  return node;
}

/**
 * What a span's model call was asked (see `requestSignature`), or undefined when it records
 * none: lets the OTLP receiver spot a second instrumentation of a call it already appended.
 */
export function modelCallSignature(span: NormalizedSpan): string | undefined {
  if (spanRole(span) !== "llm") return undefined;
  const node = spanToNode(span);
  return node.model ? requestSignature(node.model) : undefined;
}

function toAttrValueLoose(v: unknown): AttrValue {
  return typeof v === "number" || typeof v === "string" ? v : null;
}

function canonicalText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
