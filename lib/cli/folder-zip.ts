/**
 * `retrace import DIR`: the parts of multi-file sessions (Cline and Roo Code tasks, Aider's
 * pair, Copilot CLI session files) zipped, so they take the upload's path for a zip of the
 * folder (lib/importers/folder.ts) and the parts of one session are joined; every other file
 * in a format Retrace reads (a Claude Code project's sessions, Codex rollouts, trace
 * exports) is listed to be imported on its own, streamed like any file given by name, so a
 * folder of large sessions needs no more memory than its largest one. A Claude Code session
 * with sub-agent transcripts beside it (`<sessionId>/subagents/agent-*.jsonl`, told by the
 * session id and agent id of their lines) goes into the zip with them, so they are joined
 * into one run. Each file is told by
 * its first bytes, never by its name; `.git` and `node_modules` are not walked, and a session
 * part larger than the document limit is left out (the import would refuse it).
 */
import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";
import { claudeLink, detectBytes, sessionPart, STREAM_HEAD_BYTES } from "../importers";

const SKIP_DIRS = new Set([".git", "node_modules", "__MACOSX"]);
const MAX_DEPTH = 8;

export interface FolderZip {
  zip: Uint8Array;
  /** regular files looked at */
  looked: number;
  /** files put in the zip */
  kept: number;
  /** files in a format read on its own, to import one by one (paths as found, in walk order) */
  alone: string[];
  /** files left out because they are larger than `maxBytes` */
  tooLarge: string[];
}

function head(file: string): Uint8Array {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(STREAM_HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

export function zipFolder(dir: string, maxBytes: number): FolderZip {
  const members: Record<string, Uint8Array> = {};
  const out: FolderZip = { zip: new Uint8Array(), looked: 0, kept: 0, alone: [], tooLarge: [] };
  // Claude Code files by session id: a session with sub-agent files is zipped with them
  const claude = new Map<string, Array<{ abs: string; rel: string; agent: boolean }>>();
  const walk = (abs: string, rel: string, depth: number) => {
    for (const entry of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const a = path.join(abs, entry.name);
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && depth < MAX_DEPTH) walk(a, r, depth + 1);
        continue;
      }
      if (!entry.isFile()) continue;
      out.looked++;
      const bytes = head(a);
      if (bytes.length === 0) continue;
      const text = new TextDecoder().decode(bytes);
      if (sessionPart(text) === undefined) {
        const format = detectBytes(bytes, entry.name).format;
        const link = format === "claude-code" ? claudeLink(text) : undefined;
        if (link)
          claude.set(link.sessionId, [...(claude.get(link.sessionId) ?? []), { abs: a, rel: r, agent: link.agentId !== undefined }]);
        else if (format !== "unknown") out.alone.push(a);
        continue;
      }
      if (fs.statSync(a).size > maxBytes) {
        out.tooLarge.push(r);
        continue;
      }
      members[r] = fs.readFileSync(a);
      out.kept++;
    }
  };
  walk(dir, "", 0);
  for (const files of claude.values()) {
    const joined = files.some((f) => f.agent) && files.every((f) => fs.statSync(f.abs).size <= maxBytes);
    for (const f of files) {
      if (!joined) {
        out.alone.push(f.abs);
        continue;
      }
      members[f.rel] = fs.readFileSync(f.abs);
      out.kept++;
    }
  }
  out.zip = zipSync(members, { level: 1 });
  return out;
}
