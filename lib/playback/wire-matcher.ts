/**
 * The gateway's request matcher: RecordedRequestMatcher (model-request.ts) reading each
 * body with its wire format's codec (lib/gateway), Gemini's model taken from the path.
 */
import { CODECS } from "../gateway/routes";
import { gemini } from "../gateway/apis/gemini";
import type { WireFormat } from "../gateway/types";
import type { GatewayRecording, RecordedExchange } from "./gateway-recording";
import { RecordedRequestMatcher, type MatcherOptions, type RequestReading } from "./model-request";

const wireReading: RequestReading = {
  classify: (format, pointer, body) => CODECS[format as WireFormat].classify(pointer, body),
  prepare: (format, path, body) =>
    format === "gemini" && body !== null && typeof body === "object" && !Array.isArray(body)
      ? { model: gemini.parseRequest(body, path).model, ...(body as Record<string, unknown>) }
      : body,
};

export class RequestMatcher extends RecordedRequestMatcher<RecordedExchange> {
  constructor(recording: Pick<GatewayRecording, "exchanges" | "endSeq">, opts: MatcherOptions = {}) {
    super(recording, opts, wireReading);
  }
}
