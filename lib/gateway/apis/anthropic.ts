/**
 * Anthropic Messages (`POST /v1/messages`, with `?beta=true` from Claude Code). Streamed
 * answers are the documented event sequence: `message_start` (usage.input_tokens),
 * `content_block_start` (a `text` or `tool_use` block), `content_block_delta` (`text_delta`,
 * `input_json_delta`, `thinking_delta`), `content_block_stop`, `message_delta`
 * (stop_reason, usage.output_tokens), `message_stop`, and `ping`.
 */
import { normalizeMessages } from "../../importers/messages";
import { sseJson } from "../sse";
import type { AnswerToolCall, ModelCallAnswer } from "../types";
import type { PartOfRequest, WireCodec } from "./codec";
import { argsObject, errorMessage, isRecord, num, otherFields, systemText, toolDefinitions } from "./common";

const KNOWN = ["model", "system", "messages", "tools", "stream"] as const;

export const anthropicMessages: WireCodec = {
  format: "anthropic-messages",

  parseRequest(body) {
    const b = isRecord(body) ? body : {};
    return {
      format: "anthropic-messages",
      model: typeof b.model === "string" ? b.model : "",
      system: systemText(b.system),
      messages: normalizeMessages(b.messages),
      tools: toolDefinitions(b.tools),
      params: otherFields(b, KNOWN),
      stream: b.stream === true,
    };
  },

  parseAnswer(body) {
    const b = isRecord(body) ? body : {};
    const error = errorMessage(body);
    if (error !== undefined) return { text: "", toolCalls: [], error };
    const text: string[] = [];
    const toolCalls: AnswerToolCall[] = [];
    for (const block of Array.isArray(b.content) ? b.content : []) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string") text.push(block.text);
      if (block.type === "tool_use")
        toolCalls.push({ id: String(block.id ?? ""), name: String(block.name ?? ""), args: argsObject(block.input) });
    }
    const usage = isRecord(b.usage) ? b.usage : {};
    return {
      text: text.join(""),
      toolCalls,
      finishReason: typeof b.stop_reason === "string" ? b.stop_reason : undefined,
      usage: { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) },
    };
  },

  parseStream(events) {
    let text = "";
    const blocks = new Map<number, { id: string; name: string; json: string; input: unknown }>();
    const order: number[] = [];
    let finishReason: string | undefined;
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let error: string | undefined;
    for (const { json: e } of sseJson(events)) {
      const index = num(e.index) ?? 0;
      if (e.type === "message_start" && isRecord(e.message) && isRecord(e.message.usage)) {
        inputTokens = num(e.message.usage.input_tokens);
        outputTokens = num(e.message.usage.output_tokens) ?? outputTokens;
      } else if (e.type === "content_block_start" && isRecord(e.content_block)) {
        const b = e.content_block;
        if (b.type === "text" && typeof b.text === "string") text += b.text;
        if (b.type === "tool_use") {
          blocks.set(index, { id: String(b.id ?? ""), name: String(b.name ?? ""), json: "", input: b.input });
          order.push(index);
        }
      } else if (e.type === "content_block_delta" && isRecord(e.delta)) {
        if (e.delta.type === "text_delta" && typeof e.delta.text === "string") text += e.delta.text;
        const block = blocks.get(index);
        if (e.delta.type === "input_json_delta" && block && typeof e.delta.partial_json === "string") block.json += e.delta.partial_json;
      } else if (e.type === "message_delta") {
        if (isRecord(e.delta) && typeof e.delta.stop_reason === "string") finishReason = e.delta.stop_reason;
        if (isRecord(e.usage)) outputTokens = num(e.usage.output_tokens) ?? outputTokens;
      } else if (e.type === "error") {
        error = errorMessage(e) ?? "stream error";
      }
    }
    const toolCalls = order.map((i) => {
      const b = blocks.get(i)!;
      return { id: b.id, name: b.name, args: argsObject(b.json !== "" ? b.json : b.input) };
    });
    const answer: ModelCallAnswer = { text, toolCalls, finishReason, usage: { inputTokens, outputTokens } };
    if (error !== undefined) answer.error = error;
    return answer;
  },

  classify(pointer, body): PartOfRequest {
    const [top, index, field, block] = pointer;
    if (top === "model") return { part: "model" };
    if (top === "system") return { part: "system" };
    if (top === "tools" || top === "tool_choice") return { part: "tools" };
    if (top !== "messages") return { part: "params" };
    const message = isRecord(body) && Array.isArray(body.messages) ? body.messages[Number(index)] : undefined;
    if (field === "content" && block !== undefined && isRecord(message) && Array.isArray(message.content)) {
      const b = message.content[Number(block)];
      if (isRecord(b) && b.type === "tool_result") return { part: "tool-result", toolCallId: String(b.tool_use_id ?? "") };
    }
    return { part: "messages" };
  },
};
