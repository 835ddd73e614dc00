/** What each wire format provides the gateway (one file per format beside this one). */
import type { ModelCallAnswer, ModelCallRequest, SseEvent, WireFormat } from "../types";

/** Where in a request a difference lies, by what the request field means. */
export type RequestPart = "model" | "system" | "messages" | "tool-result" | "tools" | "params";

export interface PartOfRequest {
  part: RequestPart;
  /** For a tool result: the id (or, for Gemini, the name) of the call it answers. */
  toolCallId?: string;
  toolName?: string;
}

export interface WireCodec {
  format: WireFormat;
  /** The request body (and its path, which names the model for Gemini) in the one shape. */
  parseRequest(body: unknown, path: string): ModelCallRequest;
  /** A whole JSON answer. */
  parseAnswer(body: unknown): ModelCallAnswer;
  /** A streamed answer's events, in order. */
  parseStream(events: SseEvent[]): ModelCallAnswer;
  /** What the body field at `pointer` (its segments) is. */
  classify(pointer: readonly string[], body: unknown): PartOfRequest;
}
