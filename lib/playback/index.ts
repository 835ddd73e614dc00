/**
 * Playback: answer a model or tool call from a recorded run, or say how it diverges (see
 * README.md). Pure TypeScript: continue-live and resume read it for tool calls; the
 * model-API gateway's replay matches model requests with it (model-request.ts,
 * normalise.ts, paths.ts, gateway-recording.ts); the recorder SDK's replay matches its model
 * requests with the same matcher (recorder-recording.ts); the recorder's replay and the MCP
 * proxy's replay match tool calls with the one in-order tool matcher (tool-sequence.ts), and
 * refuse a call that breaks the declared policy with the one policy guard (policy-guard.ts).
 */
export { recordedAnswer, type ToolAnswer } from "./answer";
export {
  playbackEffect,
  playToolCall,
  type DivergenceKind,
  type PlaybackDivergence,
  type PlaybackRules,
  type ToolPlayback,
} from "./play-tool";
export { indexRecording, type Recording, type RecordedTool } from "./recording";
export { RequestMatcher } from "./wire-matcher";
export {
  differences,
  RecordedRequestMatcher,
  type RequestReading,
  type RequestClassifier,
  type RequestDivergence,
  type RequestDivergenceKind,
  type RequestRecording,
  type MatchResult,
  type MatcherOptions,
} from "./model-request";
export {
  classifyRecorderRequest,
  readRecorderRecording,
  recorderReading,
  recorderRequestBody,
  RECORDER_FORMAT,
  type RecordedModelCall,
  type RecorderRecording,
} from "./recorder-recording";
export {
  ToolCallSequence,
  type ToolCallDivergence,
  type ToolCallOrder,
  type ToolDivergenceReason,
  type ToolSequenceOptions,
  type ToolStep,
} from "./tool-sequence";
export { isPolicyDivergence, PolicyGuard, type PolicyDivergence, type PolicyRule } from "./policy-guard";
export { normaliseRequestBody, type NormaliseOptions } from "./normalise";
export { mapPlaces, mapPlacesDeep, placeMap, type PlaceMap } from "./paths";
export {
  firstSeqOf,
  readGatewayRecording,
  type RecordedExchange,
  type RecordedRequest,
  type RecordedSide,
  type GatewayRecording,
} from "./gateway-recording";
