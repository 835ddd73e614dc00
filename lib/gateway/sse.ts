/**
 * Server-sent events (the WHATWG event-stream format every model API streams in): a text
 * split into events at blank lines, `event:` and `data:` fields read, comments skipped.
 */
import type { SseEvent, WireFormat } from "./types";

/** Every complete event in `text` (a trailing event without its blank line included). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n\n+/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) out.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return out;
}

/** The JSON payloads of the events (`[DONE]` and non-JSON data skipped). */
export function sseJson(events: SseEvent[]): Array<{ event?: string; json: Record<string, unknown> }> {
  const out: Array<{ event?: string; json: Record<string, unknown> }> = [];
  for (const e of events) {
    if (e.data === "[DONE]") continue;
    try {
      const json: unknown = JSON.parse(e.data);
      if (json !== null && typeof json === "object" && !Array.isArray(json))
        out.push({ event: e.event, json: json as Record<string, unknown> });
    } catch {
      // a keep-alive or a line the API documents as free text
    }
  }
  return out;
}

/**
 * Whether a piece of a stream carries model output (a text or tool-call delta), not only
 * framing (`message_start`, `response.created`, a role chunk): the edge's time to first
 * token is the arrival of the first such piece.
 */
export const OUTPUT_DELTA: Record<WireFormat, RegExp> = {
  "anthropic-messages": /"type":\s*"content_block_delta"/,
  "openai-chat": /"delta":\s*\{[^}]*"(content|tool_calls)":\s*(?!null|"")/,
  "openai-responses": /"type":\s*"response\.(output_text|function_call_arguments)\.delta"/,
  gemini: /"parts":/,
};
