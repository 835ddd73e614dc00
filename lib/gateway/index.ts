/** The model-API gateway's pure core (README.md beside this file). */
export type { PartOfRequest, RequestPart, WireCodec } from "./apis/codec";
export { pathWithoutCredentials, recordedHeaders } from "./credentials";
export { ExchangeRecorder, type AnswerTiming, type RequestSeqs } from "./exchange-recorder";
export { JournalWriter } from "./journal-writer";
export { CODECS, DEFAULT_ORIGINS, parseUpstreams, routeOf, type Route } from "./routes";
export { mapStream } from "./restream";
export { OUTPUT_DELTA, parseSse, sseJson } from "./sse";
export type * from "./types";
