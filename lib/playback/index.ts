/**
 * Playback: answer a model or tool call from a recorded run, or say how it diverges (see
 * README.md). Pure TypeScript: continue-live and resume read it, as will the model-API
 * gateway and the recorder's replay mode.
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
