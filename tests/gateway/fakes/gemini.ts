// Gemini as the API sends it: `/v1beta/models/M:generateContent` answers one
// GenerateContentResponse; `:streamGenerateContent?alt=sse` sends `data:` lines, each a
// GenerateContentResponse with the next text part (a function call arrives whole, in one
// chunk), the last with finishReason and usageMetadata.
import type { FakeRequest, Turn } from "./script.ts";
import { type Answer, IdSource, type SseEvent, pieces, tokens } from "./wire.ts";

export function geminiGenerate(request: FakeRequest, turn: Turn, rawBody: string, ids: IdSource): Answer {
  const match = /^\/v1(?:beta|alpha)?\/models\/([^:?]+):(generateContent|streamGenerateContent)/.exec(request.path);
  const model = match?.[1] ?? "gemini-fake-1";
  const streaming = match?.[2] === "streamGenerateContent";
  const responseId = ids.next("resp");
  const calls = (turn.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.arguments } }));
  const outputTokens = tokens((turn.text ?? "") + JSON.stringify(calls));
  const usageMetadata = {
    promptTokenCount: tokens(rawBody),
    candidatesTokenCount: outputTokens,
    totalTokenCount: tokens(rawBody) + outputTokens,
  };
  const chunk = (parts: object[], last: boolean) => ({
    candidates: [
      {
        content: { role: "model", parts },
        ...(last ? { finishReason: "STOP" } : {}),
        index: 0,
      },
    ],
    ...(last ? { usageMetadata } : {}),
    modelVersion: model,
    responseId,
  });
  const parts: object[] = [...(turn.text !== undefined ? [{ text: turn.text }] : []), ...calls];
  if (!streaming) return { kind: "json", status: 200, body: chunk(parts, true) };

  const texts = turn.text !== undefined ? pieces(turn.text).map((text) => [{ text }]) : [];
  const frames: object[][] = [...texts, ...calls.map((call) => [call])];
  if (frames.length === 0) frames.push([{ text: "" }]);
  const events: SseEvent[] = frames.map((frameParts, i) => ({ data: chunk(frameParts, i === frames.length - 1) }));
  return { kind: "sse", events, separator: "\r\n\r\n" };
}

export function geminiModels(): Answer {
  return {
    kind: "json",
    status: 200,
    body: {
      models: [
        {
          name: "models/gemini-fake-1",
          displayName: "Gemini Fake 1",
          supportedGenerationMethods: ["generateContent", "streamGenerateContent"],
        },
      ],
    },
  };
}

export function geminiError(status: number, message: string): Answer {
  const statusText = status === 404 ? "NOT_FOUND" : "INVALID_ARGUMENT";
  return { kind: "json", status, body: { error: { code: status, message, status: statusText } } };
}
