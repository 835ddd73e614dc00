/**
 * Plain JSON reading of a recorded Claude Code session folder (the session file and its
 * sub-agents' files), shared by the sub-agent tests: what they count comes from here, never
 * from the importer.
 */
import fs from "node:fs";
import path from "node:path";

export interface Block {
  type: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
}
export interface Line {
  type: string;
  timestamp?: string;
  agentId?: string;
  isSidechain?: boolean;
  sessionId?: string;
  origin?: { kind?: string };
  toolUseResult?: { agentId?: string; isAsync?: boolean; status?: string };
  message: { id: string; content: string | Block[] };
}

/** A file of the folder as text, and as its parsed lines. */
export function sessionFolder(dir: string) {
  const text = (rel: string) => fs.readFileSync(path.join(dir, rel), "utf8");
  const lines = (rel: string): Line[] =>
    text(rel)
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Line);
  return { text, lines };
}

export const blocks = (l: Line): Block[] => (Array.isArray(l.message.content) ? l.message.content : []);
/** The distinct API responses of a file (one response may span several lines). */
export const responseIds = (ls: Line[]) => [...new Set(ls.filter((l) => l.type === "assistant").map((l) => l.message.id))];
export const toolUses = (ls: Line[]) =>
  ls.filter((l) => l.type === "assistant").flatMap((l) => blocks(l).filter((b) => b.type === "tool_use"));

/** An imported event, as far as these tests read it. */
export interface Ev {
  seq: number;
  parent?: number;
  ts: string;
  type: string;
  step?: string;
  data: { call?: string; latencyMs?: number; status?: string; result?: unknown; source?: string; content?: unknown; input?: unknown };
}
/** The step.start events an event sits under, nearest first. */
export function ancestors(events: Ev[], e: Ev): Ev[] {
  const bySeq = new Map(events.map((x) => [x.seq, x]));
  const out: Ev[] = [];
  for (let p = e.parent; p !== undefined; p = bySeq.get(p)?.parent) {
    const x = bySeq.get(p);
    if (x?.type === "step.start") out.push(x);
  }
  return out;
}
