/**
 * OpenAI Responses (`POST /v1/responses`, Codex's wire API). `instructions` is the system
 * prompt, `input` a string or items (messages, `function_call`, `function_call_output`).
 * Streamed answers are typed events (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.output_item.done`, …) ending with `response.completed` (or `.incomplete`,
 * `.failed`), whose `response` is the whole answer; there is no `[DONE]`.
 */
import { normalizeMessages } from "../../importers/messages";
import { sseJson } from "../sse";
import type { AnswerToolCall, ModelCallAnswer } from "../types";
import type { PartOfRequest, WireCodec } from "./codec";
import { argsObject, errorMessage, isRecord, num, otherFields, systemText, toolDefinitions } from "./common";

const KNOWN = ["model", "instructions", "input", "tools", "stream"] as const;

function answerOf(response: Record<string, unknown>): ModelCallAnswer {
  const text: string[] = [];
  const toolCalls: AnswerToolCall[] = [];
  for (const item of Array.isArray(response.output) ? response.output : []) {
    if (!isRecord(item)) continue;
    if (item.type === "message")
      for (const part of Array.isArray(item.content) ? item.content : [])
        if (isRecord(part) && part.type === "output_text" && typeof part.text === "string") text.push(part.text);
    if (item.type === "function_call" || item.type === "custom_tool_call")
      toolCalls.push({
        id: String(item.call_id ?? item.id ?? ""),
        name: String(item.name ?? ""),
        args: argsObject(item.arguments ?? item.input),
      });
  }
  const usage = isRecord(response.usage) ? response.usage : {};
  const incomplete = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
  const answer: ModelCallAnswer = {
    text: text.join(""),
    toolCalls,
    finishReason: typeof incomplete === "string" ? incomplete : typeof response.status === "string" ? response.status : undefined,
    usage: { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) },
  };
  const error = errorMessage(response);
  if (error !== undefined) answer.error = error;
  return answer;
}

export const openaiResponses: WireCodec = {
  format: "openai-responses",

  parseRequest(body) {
    const b = isRecord(body) ? body : {};
    const all = normalizeMessages(typeof b.input === "string" ? [{ role: "user", content: b.input }] : b.input);
    const system = [systemText(b.instructions), ...all.filter((m) => m.role === "system").map((m) => m.content)].filter(
      (s): s is string => s !== null && s !== "",
    );
    return {
      format: "openai-responses",
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
    if (error !== undefined && !(isRecord(body) && Array.isArray(body.output))) return { text: "", toolCalls: [], error };
    return answerOf(isRecord(body) ? body : {});
  },

  parseStream(events) {
    let text = "";
    const items = new Map<string, { id: string; name: string; args: string }>();
    let error: string | undefined;
    for (const { json: e } of sseJson(events)) {
      const type = typeof e.type === "string" ? e.type : "";
      if ((type === "response.completed" || type === "response.incomplete" || type === "response.failed") && isRecord(e.response))
        return answerOf(e.response);
      if (type === "response.output_text.delta" && typeof e.delta === "string") text += e.delta;
      if (type === "response.output_item.added" && isRecord(e.item) && e.item.type === "function_call")
        items.set(String(e.item.id ?? e.output_index), {
          id: String(e.item.call_id ?? e.item.id ?? ""),
          name: String(e.item.name ?? ""),
          args: "",
        });
      if (type === "response.function_call_arguments.delta" && typeof e.delta === "string") {
        const item = items.get(String(e.item_id ?? e.output_index));
        if (item) item.args += e.delta;
      }
      if (type === "error") error = typeof e.message === "string" ? e.message : (errorMessage(e) ?? "stream error");
    }
    // a stream cut before response.completed: what the deltas said
    const answer: ModelCallAnswer = {
      text,
      toolCalls: [...items.values()].map((c) => ({ id: c.id, name: c.name, args: argsObject(c.args) })),
    };
    if (error !== undefined) answer.error = error;
    return answer;
  },

  classify(pointer, body): PartOfRequest {
    const [top, index] = pointer;
    if (top === "model") return { part: "model" };
    if (top === "instructions") return { part: "system" };
    if (top === "tools" || top === "tool_choice") return { part: "tools" };
    if (top !== "input") return { part: "params" };
    const item = isRecord(body) && Array.isArray(body.input) ? body.input[Number(index)] : undefined;
    if (isRecord(item) && (item.type === "function_call_output" || item.type === "custom_tool_call_output"))
      return { part: "tool-result", toolCallId: String(item.call_id ?? "") };
    if (isRecord(item) && (item.role === "system" || item.role === "developer")) return { part: "system" };
    return { part: "messages" };
  },
};
