// OpenAI Responses as the API sends it: a `response` JSON body, or when `stream` is true
// the typed events, each with its `sequence_number`: response.created,
// response.in_progress, per output item response.output_item.added, for a message
// response.content_part.added / output_text.delta / output_text.done /
// content_part.done, for a function call response.function_call_arguments.delta / done,
// then response.output_item.done, and response.completed with usage.
import type { FakeRequest, Turn } from "./script.ts";
import { type Answer, IdSource, type SseEvent, jsonPieces, pieces, tokens } from "./wire.ts";

interface ResponsesBody {
  model?: string;
  stream?: boolean;
  instructions?: string | null;
  tools?: unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
}

type Item =
  | { type: "message"; id: string; status: string; role: "assistant"; content: object[] }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: string };

const CREATED = 1_767_225_600;

export function openaiResponses(request: FakeRequest, turn: Turn, rawBody: string, ids: IdSource): Answer {
  const body = (request.body ?? {}) as ResponsesBody;
  const responseId = ids.next("resp");
  const items: Item[] = [];
  if (turn.text !== undefined) {
    items.push({
      type: "message",
      id: ids.next("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  for (const call of turn.toolCalls ?? []) {
    items.push({
      type: "function_call",
      id: ids.next("fc"),
      call_id: ids.next("call"),
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: "completed",
    });
  }
  const outputTokens = tokens(JSON.stringify(items));
  const usage = {
    input_tokens: tokens(rawBody),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: tokens(rawBody) + outputTokens,
  };
  const response = (status: string, output: Item[], withUsage: boolean) => ({
    id: responseId,
    object: "response",
    created_at: CREATED,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: body.model ?? "gpt-fake-1",
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    usage: withUsage ? usage : null,
  });
  if (body.stream !== true) return { kind: "json", status: 200, body: response("completed", items, true) };

  const events: SseEvent[] = [];
  const emit = (type: string, fields: object) => events.push({ event: type, data: { type, sequence_number: events.length, ...fields } });
  emit("response.created", { response: response("in_progress", [], false) });
  emit("response.in_progress", { response: response("in_progress", [], false) });
  items.forEach((item, output_index) => {
    if (item.type === "message") {
      const text = (item.content[0] as { text: string }).text;
      const item_id = item.id;
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      const emptyPart = { type: "output_text", text: "", annotations: [] };
      emit("response.content_part.added", { item_id, output_index, content_index: 0, part: emptyPart });
      for (const delta of pieces(text)) {
        emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      emit("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
      emit("response.content_part.done", { item_id, output_index, content_index: 0, part: item.content[0] });
    } else {
      const item_id = item.id;
      emit("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
      for (const delta of jsonPieces(JSON.parse(item.arguments) as object)) {
        emit("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      emit("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit("response.completed", { response: response("completed", items, true) });
  return { kind: "sse", events };
}
