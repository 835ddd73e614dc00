/**
 * The OpenAI chat-completions wire format a model executor speaks (docs/live-actions.md,
 * "Executor protocol"): the messages, the request body, the answer read back, and the
 * recorded context and tool results as chat messages.
 */
import type { JsonObject, JsonValue } from "../journal/types";

/** An OpenAI chat-completions message. */
export interface ChatMessage {
  role: string;
  content: string | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: ChatToolCall[];
}
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool call the model asked for. */
export interface AskedCall {
  id: string;
  name: string;
  args: JsonValue;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  params: JsonObject;
  tools: string[];
}

export interface ModelAnswer {
  text: string | null;
  toolCalls: AskedCall[];
  finishReason: string | null;
  usage: { inputTokens?: number; outputTokens?: number } | null;
  latencyMs?: number;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const isObj = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function jsonText(v: JsonValue | undefined): string {
  try {
    return JSON.stringify(v ?? null, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
  } catch {
    return "null";
  }
}

/** What the agent reads back from a tool result: its value when ok, else its status and error. */
export function toolMessageContent(data: JsonObject): string {
  return data.status === "ok" ? jsonText(data.result) : jsonText({ status: data.status ?? "unknown", error: data.error ?? null });
}

/**
 * A recorded context message as a chat message (`source: "tool:NAME"` names the tool). The
 * calls an assistant message carries (`tool_calls`, or the journal's `toolCalls [{id, name,
 * args}]`) and the call a tool message answers (`tool_call_id` or `toolCallId`) are kept; an
 * assistant message with calls and no text has `content: null`. A recorded context that
 * dropped them is paired again from the run's events by `continuationStart` (context.ts).
 */
export function fromContext(m: JsonValue): ChatMessage {
  const o = isObj(m) ? m : {};
  const content = typeof o.content === "string" ? o.content : o.content === undefined || o.content === null ? "" : jsonText(o.content);
  const out: ChatMessage = { role: str(o.role) ?? "user", content };
  const source = str(o.source);
  if (source?.startsWith("tool:")) out.name = source.slice(5);
  else if (str(o.name)) out.name = str(o.name);
  const answers = str(o.tool_call_id) ?? str(o.toolCallId);
  if (answers) out.tool_call_id = answers;
  const calls = Array.isArray(o.tool_calls)
    ? wireCalls(o.tool_calls)
    : Array.isArray(o.toolCalls)
      ? askedOf({ toolCalls: o.toolCalls })
      : [];
  if (calls.length > 0) return { ...assistantOf(content, calls), role: out.role, ...(out.name ? { name: out.name } : {}) };
  return out;
}

/** OpenAI `tool_calls` as recorded, read back as asked calls (arguments parsed when they are JSON text). */
function wireCalls(v: JsonValue[]): AskedCall[] {
  return v.filter(isObj).map((c, i) => {
    const f = isObj(c.function) ? c.function : {};
    let args: JsonValue = f.arguments ?? null;
    if (typeof f.arguments === "string")
      try {
        args = JSON.parse(f.arguments) as JsonValue;
      } catch {
        args = f.arguments;
      }
    return { id: str(c.id) ?? `call-${i}`, name: str(f.name) ?? "", args };
  });
}

export function askedOf(output: JsonValue | undefined): AskedCall[] {
  const calls = isObj(output) && Array.isArray(output.toolCalls) ? output.toolCalls : [];
  return calls.filter(isObj).map((c, i) => ({ id: str(c.id) ?? `call-${i}`, name: str(c.name) ?? "", args: c.args ?? null }));
}

/** An assistant turn: its text, and its calls as `tool_calls` (`content: null` when it called tools and said nothing). */
export function assistantOf(text: string | null, calls: AskedCall[]): ChatMessage {
  const m: ChatMessage = { role: "assistant", content: calls.length > 0 && !text ? null : (text ?? "") };
  if (calls.length > 0)
    m.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: jsonText(c.args) } }));
  return m;
}

/** The chat-completions body a model executor gets (OpenAI-compatible). */
export function chatCompletionsBody(req: ModelRequest): JsonObject {
  return {
    ...req.params,
    model: req.model,
    messages: req.messages as unknown as JsonValue,
    ...(req.tools.length > 0
      ? { tools: req.tools.map((t) => ({ type: "function", function: { name: t, parameters: { type: "object" } } })) }
      : {}),
  };
}

/** A chat-completions answer read as the engine's ModelAnswer; throws on a shape it cannot read. */
export function parseChatCompletion(v: unknown): ModelAnswer {
  if (!isObj(v) || !Array.isArray(v.choices) || !isObj(v.choices[0]) || !isObj(v.choices[0].message))
    throw new Error("the model executor's answer is not a chat completion (no choices[0].message)");
  const choice = v.choices[0];
  const msg = choice.message as JsonObject;
  const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls.filter(isObj) : [];
  const usage = isObj(v.usage) ? v.usage : null;
  return {
    text: typeof msg.content === "string" ? msg.content : null,
    toolCalls: calls.map((c, i) => {
      const f = isObj(c.function) ? c.function : {};
      let args: JsonValue = null;
      try {
        args = typeof f.arguments === "string" ? (JSON.parse(f.arguments) as JsonValue) : (f.arguments ?? null);
      } catch {
        args = { unparsed: String(f.arguments) };
      }
      return { id: str(c.id) ?? `call-${i}`, name: str(f.name) ?? "", args };
    }),
    finishReason: str(choice.finish_reason) ?? null,
    usage: usage
      ? {
          ...(typeof usage.prompt_tokens === "number" ? { inputTokens: usage.prompt_tokens } : {}),
          ...(typeof usage.completion_tokens === "number" ? { outputTokens: usage.completion_tokens } : {}),
        }
      : null,
  };
}
