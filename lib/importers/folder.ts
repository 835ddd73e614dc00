/**
 * A folder of session files (a zip in the upload, a directory on the CLI, which zips it) →
 * the runs of every session in it. Each member is told by its content (`sessionPart`, else
 * `detectFormat`): the parts of one Cline / Roo Code task or one Aider pair are joined by
 * the folder they sit in; a Claude Code session and its sub-agents' transcripts
 * (`<sessionId>/subagents/agent-*.jsonl`) by the session id their lines carry
 * (claude-subagents.ts), into one run; a file in any other known format is imported alone; members in
 * no known format are counted in a warning. A folder with nothing Retrace reads is one
 * error that says so. A multi-file format given one file alone goes through here too: the
 * run holds what that file has, and a warning says what is missing.
 */
import { unzipSync } from "fflate";
import { importClaudeCode } from "./claude-code";
import { claudeLink } from "./claude-subagents";
import { convertDocument } from "./convert";
import { detectFormat } from "./detect";
import { ImportError } from "./import-error";
import { sessionPart } from "./session-files";
import { importSessionGroup, type SessionFile, type SessionGroup } from "./session-import";

export type { SessionFile };
import type { ImportedRun, ImportOptions, ImportResult, SourceFormat } from "./types";

const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

const dirOf = (name: string) => (name.includes("/") ? name.slice(0, name.lastIndexOf("/")) : "");
const baseOf = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/** What a folder (or zip) with nothing Retrace reads gets: one error that says so. */
export function nothingToRead(looked: number): string {
  return `the folder holds nothing Retrace reads (${looked.toLocaleString("en-US")} file${looked === 1 ? "" : "s"} looked at; it reads Cline and Roo Code task folders, Aider histories, Copilot CLI sessions, and files of the formats listed in the README)`;
}

/** Imports the session files of a folder (or one such file alone). Throws `ImportError` when nothing in it is read. */
export function importSessionFiles(files: SessionFile[], opts: ImportOptions = {}): ImportResult {
  const runs: ImportedRun[] = [];
  const warnings: string[] = [];
  const formats = new Set<SourceFormat>();
  const groups = new Map<string, SessionGroup>();
  const claude = new Map<string, { main: SessionFile[]; subs: SessionFile[] }>();
  let unread = 0;
  const add = (r: ImportResult, prefix: string) => {
    formats.add(r.format);
    runs.push(...r.runs);
    for (const w of r.warnings) warnings.push(prefix ? `${prefix}: ${w}` : w);
  };
  for (const f of files) {
    const part = sessionPart(f.text.slice(0, 256 * 1024));
    if (part) {
      const key = `${part.startsWith("cline") ? "cline" : part.startsWith("aider") ? "aider" : f.name}\u0000${dirOf(f.name)}`;
      const g = groups.get(key) ?? {};
      if (g[part]) {
        // two files of one kind in one folder: each its own session
        groups.set(`${key}\u0000${f.name}`, { [part]: f });
      } else {
        g[part] = f;
        groups.set(key, g);
      }
      continue;
    }
    const format = detectFormat(f.text.slice(0, 64 * 1024), baseOf(f.name)).format;
    if (format === "unknown" || format === "inspect-eval" || format === "otlp-protobuf") {
      unread++;
      continue;
    }
    const link = format === "claude-code" ? claudeLink(f.text.slice(0, 256 * 1024)) : undefined;
    if (link) {
      const c = claude.get(link.sessionId) ?? { main: [], subs: [] };
      (link.agentId !== undefined ? c.subs : c.main).push(f);
      claude.set(link.sessionId, c);
      continue;
    }
    add(convertDocument(format, f.text.replace(/^\uFEFF/, ""), { ...opts, fileName: baseOf(f.name) }), f.name);
  }
  for (const { main, subs } of claude.values()) {
    const text = (f: SessionFile) => f.text.replace(/^\uFEFF/, "");
    if (main.length === 1) {
      add(importClaudeCode(text(main[0]), { ...opts, fileName: baseOf(main[0].name) }, subs.map(text)), main[0].name);
      continue;
    }
    // no session file (or two with one id): each file its own run
    for (const f of [...main, ...subs]) add(importClaudeCode(text(f), { ...opts, fileName: baseOf(f.name) }), f.name);
  }
  for (const g of groups.values()) {
    const where = Object.values(g)[0]?.name ?? "";
    const r = importSessionGroup(g, opts);
    if (r.runs.length > 0) formats.add(r.format);
    runs.push(...r.runs);
    for (const w of r.warnings) warnings.push(`${dirOf(where) || where}: ${w}`);
  }
  if (runs.length === 0 && formats.size === 0) throw new ImportError(nothingToRead(files.length));
  if (unread > 0) warnings.push(`${unread.toLocaleString("en-US")} file(s) in the folder are in no format Retrace reads and were left out`);
  const format: SourceFormat = formats.size === 1 ? [...formats][0] : "session-folder";
  return { format, runs, warnings };
}

/** A zip of a session folder (the upload's form of `retrace import DIR`). */
export function importSessionZip(zip: Uint8Array, opts: ImportOptions = {}): ImportResult {
  const max = opts.maxMemberBytes ?? MAX_MEMBER_BYTES;
  let tooBig: string | undefined;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (f) => {
        if (f.name.endsWith("/")) return false;
        if (f.originalSize > max) {
          tooBig ??= `${f.name} (${f.originalSize.toLocaleString("en-US")} bytes)`;
          return false;
        }
        return true;
      },
    });
  } catch (e) {
    throw new ImportError(`the file is a zip but not a readable one (${e instanceof Error ? e.message : String(e)})`);
  }
  if (tooBig !== undefined)
    throw new ImportError(
      `a member of the zip inflates to more than ${max.toLocaleString("en-US")} bytes (RETRACE_MAX_DOCUMENT_BYTES): ${tooBig}`,
    );
  const decoder = new TextDecoder();
  const files = Object.entries(entries)
    .filter(([name]) => !/(^|\/)(__MACOSX|\.git)\//.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, bytes]) => ({ name, text: decoder.decode(bytes) }));
  return importSessionFiles(files, opts);
}
