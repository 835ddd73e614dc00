/**
 * Playback: an agent run again against its recording. Model-request matching for the
 * gateway's replay (model-request.ts, normalise.ts, paths.ts, recording.ts).
 */
export { differences, RequestMatcher, type Divergence, type DivergenceKind, type MatchResult, type MatcherOptions } from "./model-request";
export { normaliseRequestBody, type NormaliseOptions } from "./normalise";
export { mapPlaces, mapPlacesDeep, placeMap, type PlaceMap } from "./paths";
export { firstSeqOf, readRecording, type RecordedExchange, type RecordedSide, type Recording } from "./recording";
