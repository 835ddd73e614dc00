/**
 * Playback: an agent run again against its recording. Model-request matching for the
 * gateway's replay (model-request.ts, normalise.ts, paths.ts, gateway-recording.ts).
 */
export {
  differences,
  RequestMatcher,
  type RequestDivergence,
  type RequestDivergenceKind,
  type MatchResult,
  type MatcherOptions,
} from "./model-request";
export { normaliseRequestBody, type NormaliseOptions } from "./normalise";
export { mapPlaces, mapPlacesDeep, placeMap, type PlaceMap } from "./paths";
export { firstSeqOf, readGatewayRecording, type RecordedExchange, type RecordedSide, type GatewayRecording } from "./gateway-recording";
