// OpenAI Chat Completions as the API sends it: a `chat.completion` JSON body, or when
// `stream` is true `chat.completion.chunk` data lines (role, content deltas, tool_calls
// deltas by index with the id and name first, the finish_reason chunk, a usage chunk with
// no choices when `stream_options.include_usage`) ending in `data: [DONE]`.
import type { FakeRequest, Turn } from "./script.ts";
import { type Answer, IdSource, type SseEvent, jsonPieces, pieces, tokens } from "./wire.ts";

interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

const CREATED = 1_767_225_600; // 2026-01-01, fixed so two runs of a fake answer alike

export function openaiChat(request: FakeRequest, turn: Turn, rawBody: string, ids: IdSource): Answer {
  const body = (request.body ?? {}) as ChatBody;
  const id = ids.next("chatcmpl");
  const model = body.model ?? "gpt-fake-1";
  const calls = (turn.toolCalls ?? []).map((call) => ({
    id: ids.next("call"),
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const finishReason = calls.length > 0 ? "tool_calls" : "stop";
  const completionTokens = tokens((turn.text ?? "") + JSON.stringify(calls));
  const usage = {
    prompt_tokens: tokens(rawBody),
    completion_tokens: completionTokens,
    total_tokens: tokens(rawBody) + completionTokens,
  };
  if (body.stream !== true) {
    const message = {
      role: "assistant",
      content: turn.text ?? null,
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    return {
      kind: "json",
      status: 200,
      body: {
        id,
        object: "chat.completion",
        created: CREATED,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        usage,
      },
    };
  }

  const chunk = (delta: object, finish: string | null = null) => ({
    data: {
      id,
      object: "chat.completion.chunk",
      created: CREATED,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    },
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "", refusal: null })];
  if (turn.text !== undefined) for (const content of pieces(turn.text)) events.push(chunk({ content }));
  calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
      }),
    );
    for (const part of jsonPieces(JSON.parse(call.function.arguments) as object)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  events.push(chunk({}, finishReason));
  if (body.stream_options?.include_usage) {
    events.push({ data: { id, object: "chat.completion.chunk", created: CREATED, model, choices: [], usage } });
  }
  events.push({ data: "[DONE]" });
  return { kind: "sse", events };
}

export function openaiModels(): Answer {
  return {
    kind: "json",
    status: 200,
    body: { object: "list", data: [{ id: "gpt-fake-1", object: "model", created: CREATED, owned_by: "fake" }] },
  };
}

export function openaiError(status: number, message: string): Answer {
  return {
    kind: "json",
    status,
    body: { error: { message, type: "invalid_request_error", param: null, code: null } },
  };
}
