/**
 * One session's files, as `sessionPart` named them, → its runs: the parts of one Cline or
 * Roo Code task, one Aider pair, or one Copilot CLI session file. Used for a file given
 * alone (`convertDocument`) and for each session of a folder (`folder.ts`).
 */
import { parseJsonExact } from "../journal/parse-line";
import { importAider } from "./aider";
import { importCline } from "./cline";
import { importCopilot } from "./copilot-cli";
import { ImportError } from "./import-error";
import type { SessionPart } from "./session-files";
import type { ImportOptions, ImportResult } from "./types";

export interface SessionFile {
  /** The path inside the folder (`/`-separated), or the file's name. */
  name: string;
  text: string;
}

export type SessionGroup = Partial<Record<SessionPart, SessionFile>>;

const baseOf = (name: string) => name.slice(name.lastIndexOf("/") + 1);
const dirOf = (name: string) => (name.includes("/") ? name.slice(0, name.lastIndexOf("/")) : "");

function parsed(f: SessionFile, label: string): unknown {
  try {
    return parseJsonExact(f.text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new ImportError(
      `${f.name || "the file"} looks like ${label} but is not valid JSON${e instanceof Error && /end/i.test(e.message) ? " (truncated?)" : ""}`,
    );
  }
}

/** Imports one session's files; `alone`: a file given by itself (its name is the run's file name). */
export function importSessionGroup(g: SessionGroup, opts: ImportOptions = {}, alone = false): ImportResult {
  if (g["cline-api"] || g["cline-ui"] || g["cline-meta"]) {
    const any = g["cline-api"] ?? g["cline-ui"] ?? g["cline-meta"];
    if (!g["cline-api"] && !g["cline-ui"] && alone)
      throw new ImportError(
        "this is a Cline task's task_metadata.json, which holds no messages: import the task's folder (or its api_conversation_history.json and ui_messages.json)",
      );
    if (!g["cline-api"] && !g["cline-ui"])
      return {
        format: "cline",
        runs: [],
        warnings: [`${any?.name || "task_metadata.json"}: a Cline task's metadata without its messages: nothing to import`],
      };
    const folder = baseOf(dirOf(any?.name ?? ""));
    return importCline(
      {
        api: g["cline-api"] ? parsed(g["cline-api"], "a Cline message history") : undefined,
        ui: g["cline-ui"] ? parsed(g["cline-ui"], "Cline UI messages") : undefined,
        meta: g["cline-meta"] ? parsed(g["cline-meta"], "Cline task metadata") : undefined,
        folder: folder || undefined,
      },
      { ...opts, fileName: alone ? opts.fileName : folder || opts.fileName },
    );
  }
  if (g["aider-chat"] || g["aider-llm"]) return importAider({ chat: g["aider-chat"]?.text, llm: g["aider-llm"]?.text }, opts);
  if (g["copilot-events"]) return importCopilot(g["copilot-events"].text, "events", opts);
  if (g["copilot-legacy"]) return importCopilot(g["copilot-legacy"].text, "legacy", opts);
  return { format: "session-folder", runs: [], warnings: [] };
}
