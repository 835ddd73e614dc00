/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`). Streamed answers are `data:` chunks
 * of `choices[].delta` (`content`, `tool_calls[]` by `index` with the name in the first and
 * the arguments in pieces), `finish_reason` on the last choice chunk, `usage` on a final
 * chunk when `stream_options.include_usage` asks for it, then `data: [DONE]`.
 */
import { normalizeMessages } from "../../importers/messages";
import { sseJson } from "../sse";
import type { ModelCallAnswer } from "../types";
import type { PartOfRequest, WireCodec } from "./codec";
import { argsObject, errorMessage, isRecord, num, otherFields, toolDefinitions } from "./common";

const KNOWN = ["model", "messages", "tools", "stream"] as const;

function usageOf(u: unknown): ModelCallAnswer["usage"] {
  return isRecord(u) ? { inputTokens: num(u.prompt_tokens), outputTokens: num(u.completion_tokens) } : undefined;
}

export const openaiChat: WireCodec = {
  format: "openai-chat",

  parseRequest(body) {
    const b = isRecord(body) ? body : {};
    const all = normalizeMessages(b.messages);
    const system = all.filter((m) => m.role === "system").map((m) => m.content);
    return {
      format: "openai-chat",
      model: typeof b.model === "string" ? b.model : "",
      system: system.length > 0 ? system.join("\n") : null,
      messages: all.filter((m) => m.role !== "system"),
      tools: toolDefinitions(b.tools),
      params: otherFields(b, KNOWN),
      stream: b.stream === true,
    };
  },

  parseAnswer(body) {
    const error = errorMessage(body);
    if (error !== undefined) return { text: "", toolCalls: [], error };
    const b = isRecord(body) ? body : {};
    const choice = Array.isArray(b.choices) && isRecord(b.choices[0]) ? b.choices[0] : {};
    const message = isRecord(choice.message) ? choice.message : {};
    const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).filter(isRecord).map((c) => {
      const fn = isRecord(c.function) ? c.function : {};
      return { id: String(c.id ?? ""), name: String(fn.name ?? ""), args: argsObject(fn.arguments) };
    });
    return {
      text: typeof message.content === "string" ? message.content : "",
      toolCalls,
      finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : undefined,
      usage: usageOf(b.usage),
    };
  },

  parseStream(events) {
    let text = "";
    const calls = new Map<number, { id: string; name: string; args: string }>();
    let finishReason: string | undefined;
    let usage: ModelCallAnswer["usage"];
    let error: string | undefined;
    for (const { json: chunk } of sseJson(events)) {
      error = errorMessage(chunk) ?? error;
      if (chunk.usage) usage = usageOf(chunk.usage);
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (!isRecord(choice)) continue;
        if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
        const delta = isRecord(choice.delta) ? choice.delta : {};
        if (typeof delta.content === "string") text += delta.content;
        for (const c of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
          if (!isRecord(c)) continue;
          const index = num(c.index) ?? calls.size;
          const call = calls.get(index) ?? { id: "", name: "", args: "" };
          const fn = isRecord(c.function) ? c.function : {};
          if (typeof c.id === "string") call.id = c.id;
          if (typeof fn.name === "string") call.name += fn.name;
          if (typeof fn.arguments === "string") call.args += fn.arguments;
          calls.set(index, call);
        }
      }
    }
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => ({ id: c.id, name: c.name, args: argsObject(c.args) }));
    const answer: ModelCallAnswer = { text, toolCalls, finishReason, usage };
    if (error !== undefined) answer.error = error;
    return answer;
  },

  classify(pointer, body): PartOfRequest {
    const [top, index] = pointer;
    if (top === "model") return { part: "model" };
    if (top === "tools" || top === "tool_choice" || top === "functions") return { part: "tools" };
    if (top !== "messages") return { part: "params" };
    const message = isRecord(body) && Array.isArray(body.messages) ? body.messages[Number(index)] : undefined;
    if (isRecord(message) && (message.role === "system" || message.role === "developer")) return { part: "system" };
    if (isRecord(message) && message.role === "tool") return { part: "tool-result", toolCallId: String(message.tool_call_id ?? "") };
    return { part: "messages" };
  },
};
