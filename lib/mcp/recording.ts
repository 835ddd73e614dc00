/**
 * One MCP server's part of a recorded run, read back for a replay: its `initialize` answer,
 * its `tools/list` pages, its other answered requests, and its tool calls as lib/playback's
 * Recording (only this server's calls, so two servers' tools of the same name stay apart).
 */
import type { JournalEvent } from "../journal/types";
import { indexRecording, type Recording } from "../playback";
import { annotationsOf, type ToolAnnotations } from "./effect";

export interface RecordedAnswerOf {
  seq: number;
  params: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface McpServerRecording {
  server: string;
  initialize: RecordedAnswerOf | null;
  /** tools/list answers, by the cursor asked for (null: the first page) */
  toolLists: RecordedAnswerOf[];
  /** every listed tool's annotations */
  annotations: Map<string, ToolAnnotations>;
  sides: Array<RecordedAnswerOf & { method: string }>;
  recording: Recording;
  /** seqs of the server's tool.call events, in order */
  callSeqs: number[];
  /** seq of run.end, or one past the last event */
  endSeq: number;
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function serverOf(e: JournalEvent): string | undefined {
  const s = rec(e.data.mcp).server ?? e.data.server;
  return typeof s === "string" ? s : undefined;
}

/** The MCP servers a run's events name, in order of first appearance. */
export function mcpServers(events: readonly JournalEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events)
    if (e.type.startsWith("x-mcp.") || e.type === "tool.call") {
      const s = serverOf(e);
      if (s !== undefined && (e.type !== "tool.call" || rec(e.data.mcp).server !== undefined)) out.add(s);
    }
  return [...out];
}

/** The answer as the server wrote it (key order kept), when the event kept its text. */
export function parseRaw(raw: unknown): unknown {
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function answerOf(e: JournalEvent): RecordedAnswerOf {
  const d = e.data;
  const out: RecordedAnswerOf = { seq: e.seq, params: d.params ?? d.cursor ?? null };
  if (d.result !== undefined) out.result = rec(parseRaw(d.raw) ?? d.result);
  if (d.error !== undefined) {
    const err = rec(d.error);
    out.error = { code: typeof err.code === "number" ? err.code : -32603, message: String(err.message ?? "error"), data: err.data };
  }
  return out;
}

/** `server`'s recording in `events` (one run, any order); null when the run never spoke to it. */
export function readMcpRecording(events: readonly JournalEvent[], server: string): McpServerRecording | null {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const calls = new Set<string>();
  const mine: JournalEvent[] = [];
  const out: McpServerRecording = {
    server,
    initialize: null,
    toolLists: [],
    annotations: new Map(),
    sides: [],
    recording: { byTool: new Map() },
    callSeqs: [],
    endSeq: sorted.length > 0 ? sorted[sorted.length - 1].seq + 1 : 0,
  };
  let seen = false;
  for (const e of sorted) {
    if (e.type === "run.end") out.endSeq = e.seq;
    if (e.data.live !== undefined) continue; // a live read of an earlier replay is not the recording
    if (e.type === "tool.call" && rec(e.data.mcp).server === server && typeof e.data.call === "string") {
      calls.add(e.data.call);
      mine.push(e);
      out.callSeqs.push(e.seq);
      seen = true;
    } else if ((e.type === "tool.result" || e.type === "reconcile") && typeof e.data.call === "string" && calls.has(e.data.call))
      mine.push(e);
    else if (e.type.startsWith("x-mcp.") && e.data.server === server) {
      seen = true;
      if (e.type === "x-mcp.initialize") out.initialize ??= answerOf(e);
      else if (e.type === "x-mcp.tools") {
        const a = answerOf(e);
        out.toolLists.push(a);
        for (const t of Array.isArray(a.result?.tools) ? a.result.tools : []) {
          const name = rec(t).name;
          if (typeof name === "string") out.annotations.set(name, annotationsOf(t));
        }
      } else if (e.type === "x-mcp.side") out.sides.push({ ...answerOf(e), method: String(e.data.method ?? "") });
    }
  }
  if (!seen) return null;
  out.recording = indexRecording(mine);
  return out;
}
