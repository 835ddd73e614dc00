/**
 * Claude Code 2.1.x writes each sub-agent's transcript to a file of its own beside the
 * session, `<project>/<sessionId>/subagents/agent-<agentId>.jsonl` (older versions wrote
 * the same `isSidechain` lines into the session file). Every conversation line of such a
 * file is a sidechain line carrying the parent's `sessionId` and the sub-agent's `agentId`;
 * the session's `tool_result` of the `Agent` (`Task`) call that started it names the same
 * `agentId` in its `toolUseResult`. `claudeLink` reads which of the two a file is from its
 * first lines, never from its name, so a folder's files can be joined by content.
 */
import { isRecord, type UnknownRecord } from "./json-utils";
import { ndjsonHead } from "./shape";

export interface ClaudeLink {
  sessionId: string;
  /** set for a sub-agent's transcript */
  agentId?: string;
}

const CONVERSATION = new Set(["user", "assistant"]);

/** The sub-agent whose transcript these lines are, when every conversation line is one agent's sidechain. */
export function subagentOf(lines: UnknownRecord[]): { sessionId?: string; agentId: string } | undefined {
  const talk = lines.filter((l) => typeof l.type === "string" && CONVERSATION.has(l.type));
  if (talk.length === 0) return undefined;
  const agentId = talk[0].agentId;
  if (typeof agentId !== "string" || !talk.every((l) => l.isSidechain === true && l.agentId === agentId)) return undefined;
  const sessionId = talk.find((l) => typeof l.sessionId === "string")?.sessionId;
  return { sessionId: typeof sessionId === "string" ? sessionId : undefined, agentId };
}

/** The session (and sub-agent) a Claude Code file's first bytes belong to, or undefined. */
export function claudeLink(head: string): ClaudeLink | undefined {
  const lines = ndjsonHead(head.replace(/^\uFEFF/, ""));
  const sub = subagentOf(lines);
  if (sub?.sessionId) return { sessionId: sub.sessionId, agentId: sub.agentId };
  const sessionId = lines.find((l) => typeof l.sessionId === "string")?.sessionId;
  return typeof sessionId === "string" ? { sessionId } : undefined;
}

/** The sub-agents a session's `Agent` / `Task` results name: agentId → the call's tool_use id. */
export function subagentCalls(lines: UnknownRecord[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of lines) {
    if (l.type !== "user" || !isRecord(l.toolUseResult) || typeof l.toolUseResult.agentId !== "string") continue;
    const m = isRecord(l.message) ? l.message : {};
    const block = (Array.isArray(m.content) ? m.content : []).find((b) => isRecord(b) && b.type === "tool_result");
    if (isRecord(block) && typeof block.tool_use_id === "string") out.set(l.toolUseResult.agentId, block.tool_use_id);
  }
  return out;
}
