/**
 * One message shape inside Retrace, whatever the source wrote. Every importer turns the
 * messages it finds into the journal format's `{role, content, toolCalls?}`:
 *
 * - `content` is text (content-part arrays joined; images and files as `[image]`, `[file]`);
 * - `toolCalls` are `{id, name, args}` with `args` an object (JSON strings decoded; any other
 *   value kept as `{input: value}`);
 * - a tool result is its own message, `{role: "tool", content, toolCallId}`;
 * - reasoning the model showed (Anthropic `thinking`, Inspect `reasoning`) is kept as
 *   `reasoning` on its message.
 *
 * Read: OpenAI chat (`tool_calls`, `tool_call_id`, part arrays), Anthropic Messages blocks
 * (`text`, `thinking`, `tool_use`, `tool_result`), OpenAI Responses items (`message`,
 * `function_call`, `function_call_output`, `custom_tool_call`, `reasoning`), OTel GenAI
 * `parts`, Gemini `parts`, LangChain messages (serialized or dicts), Inspect AI.
 */
import { setOwn } from "../journal/own-keys";
import { asArray, decodeJsonString, firstStr, isRecord, str, type UnknownRecord } from "./json-utils";

export interface MessageToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface JournalMessage {
  role: string;
  content: string;
  toolCalls?: MessageToolCall[];
  /** Tool results: the call this answers. */
  toolCallId?: string;
  /** Tool results: the tool's name, when the source gives it; other roles: the speaker's name. */
  name?: string;
  /** Tool results that failed. */
  isError?: boolean;
  reasoning?: string;
}

/** Tool arguments as an object: a JSON string decoded, anything else wrapped as `{input}`. */
export function normalizeArgs(v: unknown): Record<string, unknown> {
  const d = decodeJsonString(v);
  if (isRecord(d)) return d;
  if (d === undefined || d === null || d === "") return {};
  const out: Record<string, unknown> = {};
  setOwn(out, "input", d);
  return out;
}

const ROLE: Record<string, string> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  model: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "tool",
  ipython: "tool",
};

function roleOf(v: unknown): string {
  const r = str(v)?.toLowerCase();
  if (!r) return "user";
  return ROLE[r] ?? r;
}

interface Parts {
  text: string[];
  reasoning: string[];
  toolCalls: MessageToolCall[];
  results: JournalMessage[];
}

/** Text of a tool result's content (a string, blocks, or any value as JSON). */
export function contentText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const p = readParts(v, "");
    return [...p.text, ...p.results.map((r) => r.content)].join("\n");
  }
  if (isRecord(v) && typeof v.text === "string") return v.text;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}

function readParts(parts: unknown[], idPrefix: string): Parts {
  const out: Parts = { text: [], reasoning: [], toolCalls: [], results: [] };
  parts.forEach((p, i) => {
    if (typeof p === "string") return void out.text.push(p);
    if (!isRecord(p)) return;
    const type = str(p.type) ?? "";
    // Gemini parts: `functionCall` (REST), `function_call` (the Python SDK's dump, Google ADK)
    const gemCall = isRecord(p.functionCall) ? p.functionCall : isRecord(p.function_call) ? p.function_call : undefined;
    if (type === "tool_use" || type === "tool_call" || type === "function_call" || type === "tool-call" || gemCall) {
      const fc = gemCall ?? p;
      out.toolCalls.push({
        id: firstStr(p.id, p.call_id, p.toolCallId, fc.id) ?? `${idPrefix}call-${i}`,
        name: firstStr(fc.name, p.toolName) ?? "unknown",
        args: normalizeArgs(fc.input ?? fc.arguments ?? fc.args),
      });
      return;
    }
    const gemResult = isRecord(p.functionResponse) ? p.functionResponse : isRecord(p.function_response) ? p.function_response : undefined;
    if (type === "tool_result" || type === "tool_call_response" || type === "tool-result" || gemResult) {
      const fr = gemResult ?? p;
      out.results.push(
        compactMessage({
          role: "tool",
          content: contentText(fr.content ?? fr.response ?? fr.result ?? fr.output),
          toolCallId: firstStr(p.tool_use_id, p.id, p.toolCallId, fr.id) ?? `${idPrefix}result-${i}`,
          name: firstStr(fr.name, p.toolName),
          isError: p.is_error === true ? true : undefined,
        }),
      );
      return;
    }
    if (type === "thinking" || type === "reasoning" || type === "redacted_thinking") {
      const t = firstStr(p.thinking, p.reasoning, p.text, p.content);
      if (t) out.reasoning.push(t);
      return;
    }
    if (/image/.test(type)) return void out.text.push("[image]");
    if (/file|document|audio/.test(type)) return void out.text.push(`[${type.replace(/^input_/, "")}]`);
    const t = firstStr(p.text, p.content, p.refusal);
    if (t !== undefined) out.text.push(t);
  });
  return out;
}

function compactMessage(m: JournalMessage): JournalMessage {
  const out: JournalMessage = { role: m.role, content: m.content };
  if (m.toolCalls && m.toolCalls.length > 0) out.toolCalls = m.toolCalls;
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
  if (m.name !== undefined) out.name = m.name;
  if (m.isError) out.isError = true;
  if (m.reasoning) out.reasoning = m.reasoning;
  return out;
}

/** OpenAI chat `tool_calls` (or Inspect's) → MessageToolCall[]. */
export function chatToolCalls(v: unknown, idPrefix = ""): MessageToolCall[] {
  return asArray(v)
    .filter(isRecord)
    .map((c, j) => {
      const fn = isRecord(c.function) ? c.function : c;
      return {
        id: firstStr(c.id, c.call_id) ?? `${idPrefix}call-${j}`,
        name: firstStr(fn.name, typeof c.function === "string" ? c.function : undefined) ?? "unknown",
        args: normalizeArgs(fn.arguments ?? c.arguments ?? c.args ?? fn.input),
      };
    });
}

/** A LangChain message (serialized `{lc, id, kwargs}` or a dict with `type`) unwrapped. */
function langchain(m: UnknownRecord): UnknownRecord | undefined {
  if (m.lc !== undefined && isRecord(m.kwargs)) {
    const cls = asArray(m.id).map(String).pop() ?? "";
    const role = /^Human/.test(cls)
      ? "user"
      : /^AI/.test(cls)
        ? "assistant"
        : /^System/.test(cls)
          ? "system"
          : /^Tool|^Function/.test(cls)
            ? "tool"
            : "user";
    return { ...m.kwargs, role: m.kwargs.role ?? role };
  }
  return undefined;
}

/** One message in any supported shape → journal messages (a user turn of tool results becomes one message per result). */
export function normalizeMessage(raw: unknown, idPrefix = ""): JournalMessage[] {
  if (typeof raw === "string") return [{ role: "user", content: raw }];
  if (!isRecord(raw)) return [];
  const m = langchain(raw) ?? raw;
  const itemType = str(m.type);
  // OpenAI Responses items
  if (itemType === "function_call" || itemType === "custom_tool_call") {
    return [
      {
        role: "assistant",
        content: "",
        toolCalls: [
          {
            id: firstStr(m.call_id, m.callId, m.id) ?? `${idPrefix}call`,
            name: firstStr(m.name) ?? "unknown",
            args: normalizeArgs(m.arguments ?? m.input),
          },
        ],
      },
    ];
  }
  // `function_call_result`: the OpenAI Agents SDK's own name for it (`callId`, output `{type: "text", text}`)
  if (itemType === "function_call_output" || itemType === "custom_tool_call_output" || itemType === "function_call_result") {
    return [
      compactMessage({
        role: "tool",
        content: contentText(decodeOutput(m.output)),
        toolCallId: firstStr(m.call_id, m.callId) ?? `${idPrefix}result`,
        name: itemType === "function_call_result" ? str(m.name) : undefined,
      }),
    ];
  }
  if (itemType === "reasoning") {
    // the summary shown to users, else the reasoning text itself (OpenAI Agents SDK items: `content`, `rawContent`)
    const texts = (v: unknown) =>
      asArray(v)
        .map((s) => (isRecord(s) ? str(s.text) : str(s)))
        .filter((s): s is string => !!s);
    const summary = [texts(m.summary), texts(m.content), texts(m.rawContent)].find((t) => t.length > 0) ?? [];
    return summary.length > 0 ? [{ role: "assistant", content: "", reasoning: summary.join("\n") }] : [];
  }
  const role = roleOf(m.role ?? (itemType && ROLE[itemType] ? itemType : undefined));
  const body = m.content ?? m.parts ?? m.text;
  const parts = Array.isArray(body)
    ? readParts(body, idPrefix)
    : { text: body === undefined ? [] : [contentText(body)], reasoning: [], toolCalls: [], results: [] };
  // LangChain keeps OpenAI's tool calls in additional_kwargs when its own tool_calls are absent (before 0.2)
  const extra = isRecord(m.additional_kwargs) ? m.additional_kwargs.tool_calls : undefined;
  const toolCalls = [...parts.toolCalls, ...chatToolCalls(asArray(m.tool_calls).length > 0 ? m.tool_calls : extra, idPrefix)];
  const reasoning = [...parts.reasoning, ...[firstStr(m.reasoning_content, m.reasoning)].filter((x): x is string => !!x)];
  const out: JournalMessage[] = [];
  const content = parts.text.join("\n");
  // an Anthropic user turn of only tool results is those results, nothing more
  const onlyResults = role === "user" && parts.results.length > 0 && content === "" && toolCalls.length === 0;
  if (!onlyResults) {
    out.push(
      compactMessage({
        role,
        content,
        toolCalls,
        toolCallId: role === "tool" ? (firstStr(m.tool_call_id, m.toolCallId, m.id) ?? `${idPrefix}result`) : undefined,
        name: firstStr(m.name, role === "tool" ? m.function : undefined),
        reasoning: reasoning.join("\n") || undefined,
      }),
    );
  }
  out.push(...parts.results);
  return out;
}

function decodeOutput(v: unknown): unknown {
  // Codex writes function outputs as a JSON string {output, metadata} in 0.5x, plain text later
  const d = decodeJsonString(v);
  return isRecord(d) && "output" in d ? d.output : v;
}

/**
 * A list of messages in any supported shape (or `{messages: […]}`, or one message) → journal
 * messages. Consecutive Responses `function_call` items join the assistant message before them.
 */
export function normalizeMessages(v: unknown, idPrefix = ""): JournalMessage[] {
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.messages) ? v.messages : v === undefined || v === null ? [] : [v];
  const out: JournalMessage[] = [];
  let reasoning: string | undefined;
  list.forEach((raw, i) => {
    for (const m of normalizeMessage(raw, `${idPrefix}${i}-`)) {
      if (m.role === "assistant" && m.content === "" && !m.toolCalls && m.reasoning) {
        reasoning = reasoning ? `${reasoning}\n${m.reasoning}` : m.reasoning;
        continue;
      }
      const prev = out[out.length - 1];
      if (
        m.role === "assistant" &&
        m.content === "" &&
        m.toolCalls &&
        prev?.role === "assistant" &&
        isRecord(raw) &&
        (raw.type === "function_call" || raw.type === "custom_tool_call")
      ) {
        prev.toolCalls = [...(prev.toolCalls ?? []), ...m.toolCalls];
        continue;
      }
      if (m.role === "assistant" && reasoning) {
        m.reasoning = m.reasoning ? `${reasoning}\n${m.reasoning}` : reasoning;
        reasoning = undefined;
      }
      out.push(m);
    }
  });
  return out;
}
