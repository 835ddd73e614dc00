/**
 * Shared types of the importers: which formats exist and what an import produces.
 * Everything here is plain data so results can cross a worker boundary or be stored.
 */
import type { JournalEvent } from "../journal/types";

export const SOURCE_FORMATS = [
  "retrace-journal",
  "otlp-json",
  "otlp-protobuf",
  "otlp-json-array",
  "tempo-otlp",
  "otel-sdk-spans",
  "otel-js-spans",
  "jaeger",
  "langfuse",
  "swe-agent",
  "openhands",
  "inspect-ai",
  "tau-bench",
  "claude-code",
  "codex",
  "inspect-eval",
  "openhands-eval",
  "atif",
  "langsmith",
  "phoenix-spans",
  "patronus-trace",
  "gemini-cli",
  "qwen-code",
  "opencode",
  "mini-swe-agent",
  "cline",
  "aider",
  "copilot-cli",
  "session-folder",
  "openai-agents",
  "specstory",
  "ag2-groupchat",
  "autogen-agentchat",
  "magentic-one",
  "unknown",
] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

export const FORMAT_LABELS: Record<SourceFormat, string> = {
  "retrace-journal": "Retrace journal (NDJSON)",
  "otlp-json": "OTLP JSON export request (OpenTelemetry)",
  "otlp-protobuf": "OTLP protobuf export request (OpenTelemetry, /v1/traces)",
  "otlp-json-array": "OTLP JSON, array of export requests (OpenTelemetry)",
  "tempo-otlp": "Grafana Tempo export (OTLP JSON, batches)",
  "otel-sdk-spans": "any-agent AgentTrace (OpenTelemetry SDK span dump)",
  "otel-js-spans": "OpenTelemetry JS span dump (ReadableSpan-like, e.g. Mastra)",
  jaeger: "Jaeger JSON export",
  langfuse: "Langfuse trace export",
  "swe-agent": "SWE-agent trajectory (.traj)",
  openhands: "OpenHands event stream",
  "inspect-ai": "Inspect AI eval log (JSON)",
  "tau-bench": "tau-bench results",
  "claude-code": "Claude Code session (JSONL)",
  codex: "Codex CLI rollout (JSONL)",
  "inspect-eval": "Inspect AI eval log (.eval archive)",
  "openhands-eval": "OpenHands evaluation output (output.jsonl)",
  atif: "ATIF agent trajectory (Harbor)",
  langsmith: "LangSmith run payloads",
  "phoenix-spans": "Arize Phoenix span export (REST /v1/projects/{id}/spans JSON)",
  "patronus-trace": "Patronus trace export (OpenInference spans nested in child_spans, e.g. TRAIL smolagents runs)",
  "gemini-cli": "Gemini CLI chat recording (session-*.json or .jsonl)",
  "qwen-code": "Qwen Code session (JSONL)",
  opencode: "OpenCode session export (opencode export)",
  "mini-swe-agent": "mini-swe-agent trajectory (.traj.json)",
  cline: "Cline / Roo Code task (api_conversation_history.json, ui_messages.json)",
  aider: "Aider history (.aider.chat.history.md, .aider.llm.history)",
  "copilot-cli": "GitHub Copilot CLI session (events.jsonl or legacy session JSON)",
  "session-folder": "Folder of session files (zip)",
  "openai-agents": "OpenAI Agents SDK saved RunState (JSON)",
  specstory: "Cursor chat exported by SpecStory (Markdown)",
  "ag2-groupchat": "AG2 / AutoGen group chat history (JSON)",
  "autogen-agentchat": "AutoGen AgentChat team state (team.save_state() JSON)",
  "magentic-one": "Magentic-One log (log.jsonl, autogen-magentic-one)",
  unknown: "Unknown format",
};

export interface ImportedRun {
  runId: string;
  events: JournalEvent[];
}

export interface ImportResult {
  format: SourceFormat;
  runs: ImportedRun[];
  warnings: string[];
}

export interface ImportOptions {
  /** Original file name; used for run ids of formats without ids and recorded in `run.start`. */
  fileName?: string;
  /** The most bytes one member of an archive (an Inspect `.eval`) may inflate to (default 64 MiB). */
  maxMemberBytes?: number;
}
