/**
 * Retrace recorder SDK (Node): record an agent run as a journal (format v1) and send it to a
 * file or to a Retrace server. See README.md in this folder.
 */
export {
  createRecorder,
  describeModelResult,
  toolStatusOf,
  ToolOutcomeUnknownError,
  ToolTimeoutError,
  type ModelOutcome,
  type ModelRequest,
  type NameVersion,
  type Recorder,
  type RecorderOptions,
  type ToolOptions,
} from "./recorder";
export { computeEventHash as chainHash, verifyChain } from "../journal/chain";
export { fileSink } from "./file-sink";
export { httpSink, type HttpSink, type HttpSinkOptions, type HttpSinkStats } from "./http-sink";
export { memorySink, type MemorySink } from "./memory-sink";
export type { ErrorReporter, Sink } from "./types";
export { readJournalEvents } from "./journal-file";
export { replayAgainst, type ReplayableAgent, type ReplayOptions, type ReplayResult } from "./replay";
export {
  PolicyRefusedError,
  ReplayDivergenceError,
  WriteBlockedError,
  type LiveModel,
  type LiveModelCall,
  type ReplayMode,
} from "./replay-recorder";
export type { PolicyDivergence, RequestDivergence as ReplayDivergence } from "../playback";
