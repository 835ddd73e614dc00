/**
 * The files of the agent sessions that span several files (a Cline or Roo Code task folder,
 * Aider's pair of histories) and of GitHub Copilot CLI, told from their first bytes, never
 * from their names: `sessionPart(head)` names the format and which part of it a file is.
 * `detect.ts` uses it for a file given alone, `folder.ts` for each member of a folder or zip.
 */
import { isRecord, type UnknownRecord } from "./json-utils";
import { ndjsonHead } from "./shape";
import type { SourceFormat } from "./types";

export type SessionPart =
  /** Cline / Roo Code `api_conversation_history.json`: the Anthropic messages sent to the model */
  | "cline-api"
  /** Cline / Roo Code `ui_messages.json`: the task's UI rows (`say` / `ask`), with times, tokens and cost */
  | "cline-ui"
  /** Cline `task_metadata.json`: files in context, model usage, the environment (Cline's version) */
  | "cline-meta"
  /** `.aider.chat.history.md` */
  | "aider-chat"
  /** `.aider.llm.history` */
  | "aider-llm"
  /** Copilot CLI `session-state/<id>/events.jsonl` */
  | "copilot-events"
  /** Copilot CLI `history-session-state/<id>.json` (before events.jsonl) */
  | "copilot-legacy";

export const PART_FORMAT: Record<SessionPart, SourceFormat> = {
  "cline-api": "cline",
  "cline-ui": "cline",
  "cline-meta": "cline",
  "aider-chat": "aider",
  "aider-llm": "aider",
  "copilot-events": "copilot-cli",
  "copilot-legacy": "copilot-cli",
};

const COPILOT_TYPE = /^(session|user|assistant|tool|subagent|hook|skill|system|abort|pending_messages|permission|elicitation)\./;

/** Copilot CLI `events.jsonl`: every line `{type: "<area>.<event>", data: {…}}`, a session or message event among them. */
function isCopilotEvents(lines: UnknownRecord[]): boolean {
  if (lines.length === 0) return false;
  const typed = lines.every((l) => typeof l.type === "string" && COPILOT_TYPE.test(l.type) && isRecord(l.data));
  return typed && lines.some((l) => l.type === "session.start" || l.type === "user.message" || l.type === "assistant.message");
}

/**
 * Which session part a file's first bytes are (`head` may end mid-value), or undefined.
 * JSON documents are told by their opening keys: Cline's message list by the task and
 * environment blocks Cline writes into the first user message, its UI rows by `ts` with
 * `say` or `ask`.
 */
export function sessionPart(head: string): SessionPart | undefined {
  const text = head.replace(/^\uFEFF/, "");
  const start = text.trimStart();
  if (/^# aider chat started at \d{4}-\d\d-\d\d/.test(start)) return "aider-chat";
  if (/^(TO LLM|LLM RESPONSE) \d{4}-\d\d-\d\dT/.test(start)) return "aider-llm";
  if (start.startsWith("[")) {
    const first = start.slice(0, 4096);
    if (/^\[\s*\{\s*"ts"\s*:\s*\d+\s*,\s*"type"\s*:\s*"(say|ask)"/.test(first)) return "cline-ui";
    if (/^\[\s*\{\s*"role"\s*:\s*"user"\s*,\s*"content"\s*:/.test(first) && /<task>|<environment_details>/.test(start.slice(0, 65536)))
      return "cline-api";
    return undefined;
  }
  if (start.startsWith("{")) {
    if (/^\{\s*"files_in_context"\s*:/.test(start)) return "cline-meta";
    const nl = start.indexOf("\n");
    const firstLine = nl < 0 ? start : start.slice(0, nl);
    if (firstLine.trim() !== "{" && isCopilotEvents(ndjsonHead(text))) return "copilot-events";
    // the legacy session: one pretty-printed object {sessionId, startTime, chatMessages, timeline}
    if (/"sessionId"\s*:/.test(start.slice(0, 4096)) && /"chatMessages"\s*:\s*\[/.test(start.slice(0, 65536))) return "copilot-legacy";
  }
  return undefined;
}
