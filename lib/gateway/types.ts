/**
 * The gateway's shapes: a model request and its answer as every wire format maps them
 * (the journal's one message shape, lib/importers/messages.ts), and the raw bytes kept
 * beside them so a replay answers exactly what was recorded.
 */
import type { JournalMessage } from "../importers/messages";

/** The upstream an HTTP request goes to (one origin each). */
export type UpstreamApi = "anthropic" | "openai" | "gemini";

/** The wire format of one endpoint. */
export type WireFormat = "anthropic-messages" | "openai-chat" | "openai-responses" | "gemini";

export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: unknown;
}

/** A model request as recorded: `context` (system, messages, tools) and `model.request`. */
export interface ModelCallRequest {
  format: WireFormat;
  model: string;
  system: string | null;
  messages: JournalMessage[];
  tools: ToolDefinition[];
  /** Every other field of the body (temperature, max_tokens…), as sent. */
  params: Record<string, unknown>;
  stream: boolean;
}

export interface AnswerToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A model answer as `model.response` records it (latency is the edge's). */
export interface ModelCallAnswer {
  text: string;
  toolCalls: AnswerToolCall[];
  finishReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** The API's own error message, for a non-2xx answer. */
  error?: string;
}

/** One server-sent event as it arrived. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * The raw answer kept with `model.response`: status, the headers a client reads, and the
 * body (whole, or the stream's chunks with their offset in milliseconds from the first).
 */
export interface RawAnswer {
  status: number;
  contentType: string;
  body?: string;
  chunks?: Array<{ atMs: number; text: string }>;
}

/** The raw request kept with `model.request` (credentials never among the headers). */
export interface RawRequest {
  method: string;
  /** Path and query, without credential parameters. */
  path: string;
  /** Only the allow-listed headers (credentials.ts). */
  headers: Record<string, string>;
  body: unknown;
}
