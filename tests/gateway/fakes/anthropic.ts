// Anthropic Messages as the API sends it: `/v1/messages` (JSON, or SSE when `stream` is
// true: message_start, ping, content_block_start/delta/stop per block, message_delta with
// usage and stop_reason, message_stop), `/v1/messages/count_tokens` and `/v1/models`.
import type { FakeRequest, Turn } from "./script.ts";
import { type Answer, IdSource, type SseEvent, jsonPieces, pieces, tokens } from "./wire.ts";

interface MessagesBody {
  model?: string;
  stream?: boolean;
  thinking?: { type?: string };
}

type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: object };

export const FAKE_CLAUDE_MODEL = "claude-fake-1";

function blocksOf(turn: Turn, body: MessagesBody, ids: IdSource): Block[] {
  const blocks: Block[] = [];
  const thinkingOn = body.thinking?.type === "enabled" || body.thinking?.type === "adaptive";
  if (thinkingOn) {
    blocks.push({ type: "thinking", thinking: turn.thinking ?? "Working out the answer.", signature: ids.next("sig") });
  }
  if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
  for (const call of turn.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: ids.next("toolu"), name: call.name, input: call.arguments });
  }
  if (turn.text === undefined && (turn.toolCalls ?? []).length === 0) blocks.push({ type: "text", text: "" });
  return blocks;
}

function emptyOf(block: Block): object {
  if (block.type === "thinking") return { type: "thinking", thinking: "", signature: "" };
  if (block.type === "text") return { type: "text", text: "" };
  return { type: "tool_use", id: block.id, name: block.name, input: {} };
}

function deltasOf(block: Block): object[] {
  if (block.type === "thinking") {
    return [
      ...pieces(block.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: block.signature },
    ];
  }
  if (block.type === "text") return pieces(block.text).map((text) => ({ type: "text_delta", text }));
  return jsonPieces(block.input).map((partial_json) => ({ type: "input_json_delta", partial_json }));
}

export function anthropicMessages(request: FakeRequest, turn: Turn, rawBody: string, ids: IdSource): Answer {
  const body = (request.body ?? {}) as MessagesBody;
  const blocks = blocksOf(turn, body, ids);
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const outputTokens = tokens(JSON.stringify(blocks));
  const usage = {
    input_tokens: tokens(rawBody),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  };
  const message = {
    id: ids.next("msg"),
    type: "message",
    role: "assistant",
    model: body.model ?? FAKE_CLAUDE_MODEL,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (body.stream !== true) return { kind: "json", status: 200, body: message };

  const events: SseEvent[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      },
    },
    { event: "ping", data: { type: "ping" } },
  ];
  blocks.forEach((block, index) => {
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: emptyOf(block) },
    });
    for (const delta of deltasOf(block)) {
      events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push(
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: outputTokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return { kind: "sse", events };
}

export function anthropicCountTokens(rawBody: string): Answer {
  return { kind: "json", status: 200, body: { input_tokens: tokens(rawBody) } };
}

export function anthropicModels(): Answer {
  const model = {
    type: "model",
    id: FAKE_CLAUDE_MODEL,
    display_name: "Claude Fake 1",
    created_at: "2026-01-01T00:00:00Z",
  };
  return {
    kind: "json",
    status: 200,
    body: { data: [model], has_more: false, first_id: model.id, last_id: model.id },
  };
}

export function anthropicError(status: number, message: string): Answer {
  const type = status === 404 ? "not_found_error" : "invalid_request_error";
  return { kind: "json", status, body: { type: "error", error: { type, message } } };
}
