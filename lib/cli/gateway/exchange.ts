/**
 * One model call through the gateway, in either mode: the request parsed and recorded, then
 * its answer (forwarded live, or a recorded one) parsed and recorded.
 */
import {
  ExchangeRecorder,
  parseSse,
  pathWithoutCredentials,
  recordedHeaders,
  type ModelCallAnswer,
  type RawAnswer,
  type RequestSeqs,
  type Route,
  type WireCodec,
} from "../../gateway";
import type { IncomingCall } from "./http-edge";

export interface ParsedCall {
  route: Route & { codec: WireCodec };
  body: unknown;
}

/** The call as a model call, or null (a side request, or a body that is not JSON). */
export function asModelCall(call: IncomingCall, route: Route): ParsedCall | null {
  if (!route.codec) return null;
  try {
    return { route: route as ParsedCall["route"], body: JSON.parse(call.body.toString("utf8")) };
  } catch {
    return null;
  }
}

/** Records the request of a model call. */
export function recordRequest(
  recorder: ExchangeRecorder,
  call: IncomingCall,
  parsed: ParsedCall,
  extra?: Record<string, unknown>,
): RequestSeqs {
  const path = pathWithoutCredentials(call.path);
  const req = parsed.route.codec.parseRequest(parsed.body, path);
  return recorder.request(
    parsed.route.api,
    req,
    { method: call.method, path, headers: recordedHeaders(call.headers), body: parsed.body },
    extra,
  );
}

/** What an answer says, whatever its shape (a stream, a JSON body, an error). */
export function readAnswer(codec: WireCodec, answer: RawAnswer): ModelCallAnswer {
  const text = answer.chunks ? answer.chunks.map((c) => c.text).join("") : (answer.body ?? "");
  let parsed: ModelCallAnswer;
  if (answer.contentType.includes("text/event-stream")) parsed = codec.parseStream(parseSse(text));
  else {
    try {
      parsed = codec.parseAnswer(JSON.parse(text));
    } catch {
      parsed = { text: "", toolCalls: [], error: text.slice(0, 500) || `HTTP ${answer.status}` };
    }
  }
  if (answer.status >= 400 && parsed.error === undefined) parsed.error = `HTTP ${answer.status}`;
  return parsed;
}
