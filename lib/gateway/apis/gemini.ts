/**
 * Gemini (`POST /v1beta/models/MODEL:generateContent` and `:streamGenerateContent`; with
 * `?alt=sse` the stream is `data:` chunks, each a GenerateContentResponse, else one JSON
 * array of them). The model is in the path; `systemInstruction`, `contents` (parts with
 * `text`, `functionCall`, `functionResponse`), `tools[].functionDeclarations` and
 * `generationConfig` in the body. Function calls carry no id before Gemini 3: the gateway
 * names them by the answer they came in (`toolCallIds`).
 */
import { normalizeMessages } from "../../importers/messages";
import { sseJson } from "../sse";
import type { AnswerToolCall, ModelCallAnswer, ToolDefinition } from "../types";
import type { PartOfRequest, WireCodec } from "./codec";
import { argsObject, errorMessage, isRecord, num, otherFields, systemText, toolDefinitions } from "./common";

const KNOWN = ["contents", "systemInstruction", "system_instruction", "tools"] as const;

/** `models/gemini-2.5-flash:generateContent` → `gemini-2.5-flash`. */
export function geminiModelOfPath(path: string): string {
  const m = /\/models\/([^/:?]+)/.exec(path);
  return m ? decodeURIComponent(m[1]) : "";
}

function declarations(tools: unknown): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of Array.isArray(tools) ? tools : [])
    if (isRecord(t)) out.push(...toolDefinitions(t.functionDeclarations ?? t.function_declarations));
  return out;
}

function addChunk(
  acc: { text: string; calls: AnswerToolCall[]; finish?: string; usage?: ModelCallAnswer["usage"]; error?: string },
  chunk: unknown,
): void {
  if (!isRecord(chunk)) return;
  acc.error = errorMessage(chunk) ?? acc.error;
  const candidate = Array.isArray(chunk.candidates) && isRecord(chunk.candidates[0]) ? chunk.candidates[0] : {};
  const content = isRecord(candidate.content) ? candidate.content : {};
  for (const part of Array.isArray(content.parts) ? content.parts : []) {
    if (!isRecord(part)) continue;
    if (typeof part.text === "string" && part.thought !== true) acc.text += part.text;
    if (isRecord(part.functionCall))
      acc.calls.push({
        id: String(part.functionCall.id ?? ""),
        name: String(part.functionCall.name ?? ""),
        args: argsObject(part.functionCall.args),
      });
  }
  if (typeof candidate.finishReason === "string") acc.finish = candidate.finishReason;
  if (isRecord(chunk.usageMetadata))
    acc.usage = { inputTokens: num(chunk.usageMetadata.promptTokenCount), outputTokens: num(chunk.usageMetadata.candidatesTokenCount) };
}

function answer(chunks: unknown[]): ModelCallAnswer {
  const acc: { text: string; calls: AnswerToolCall[]; finish?: string; usage?: ModelCallAnswer["usage"]; error?: string } = {
    text: "",
    calls: [],
  };
  for (const c of chunks) addChunk(acc, c);
  const out: ModelCallAnswer = { text: acc.text, toolCalls: acc.calls, finishReason: acc.finish, usage: acc.usage };
  if (acc.error !== undefined) out.error = acc.error;
  return out;
}

export const gemini: WireCodec = {
  format: "gemini",

  parseRequest(body, path) {
    const b = isRecord(body) ? body : {};
    return {
      format: "gemini",
      model: geminiModelOfPath(path),
      system: systemText(b.systemInstruction ?? b.system_instruction),
      messages: normalizeMessages(b.contents),
      tools: declarations(b.tools),
      params: otherFields(b, KNOWN),
      stream: path.includes(":streamGenerateContent"),
    };
  },

  parseAnswer(body) {
    return answer(Array.isArray(body) ? body : [body]);
  },

  parseStream(events) {
    return answer(sseJson(events).map((e) => e.json));
  },

  classify(pointer, body): PartOfRequest {
    const [top, index, field, part] = pointer;
    if (top === "model") return { part: "model" };
    if (top === "systemInstruction" || top === "system_instruction") return { part: "system" };
    if (top === "tools" || top === "toolConfig") return { part: "tools" };
    if (top !== "contents") return { part: "params" };
    const content = isRecord(body) && Array.isArray(body.contents) ? body.contents[Number(index)] : undefined;
    if (field === "parts" && part !== undefined && isRecord(content) && Array.isArray(content.parts)) {
      const p = content.parts[Number(part)];
      if (isRecord(p) && isRecord(p.functionResponse))
        return {
          part: "tool-result",
          toolCallId: typeof p.functionResponse.id === "string" ? p.functionResponse.id : undefined,
          toolName: String(p.functionResponse.name ?? ""),
        };
    }
    return { part: "messages" };
  },
};
