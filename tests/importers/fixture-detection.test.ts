/**
 * Detection over every fixture file (gzipped ones unzipped): each format named here claims
 * exactly its own files and no other format's, whatever the file is called (the content
 * decides). A new fixture of these formats is added to its list below.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { detectFormat } from "@/lib/importers/detect";

const ROOT = fileURLToPath(new URL("../fixtures/", import.meta.url));
const DATA = /\.(json|jsonl|traj|md|history)(\.gz)?$/;

/** The files each format must claim, and only these (paths under tests/fixtures). */
const OWN: Record<string, string[]> = {
  langfuse: [
    "corpus/langfuse/langfuse-qa-chatbot-mcp-toolcall.json",
    "agent-logs/langfuse-vercel-ai-qa-chatbot-1.json",
    "agent-logs/langfuse-vercel-ai-qa-chatbot-2.json",
    "agent-logs/langfuse-openai-agents-2025-09-30.trace.json",
    "agent-logs/langfuse-vercel-aisdk-2025-11-17.trace.json",
    "agent-logs/langfuse-claude-agent-2025-12-22.trace.json",
    "agent-logs/langfuse-langgraph-js-2025-10-30.trace.json",
    "agent-logs/langfuse-microsoft-agent-2025-12-17.trace.json",
    "agent-logs/langfuse-pydantic-ai-tools-2025-12-04.trace.json",
    "agent-logs/langfuse-crewai-2025-07-11.trace.json",
    "agent-logs/langfuse-agno-2025-06-11.trace.json",
    "agent-logs/langfuse-koog-2025-08-26.trace.json",
    "agent-logs/langfuse-google-adk-2025-08-28.trace.json",
    "agent-logs/langfuse-langgraph-python-2025-08-22.trace.json",
    "agent-logs/langfuse-csharp-agent-with-gemini-2026-03-09.trace.json",
    "agent-logs/langfuse-autogen-2025-06-06.trace.json",
    "agent-logs/langfuse-llamaindex-2025-06-05.trace.json",
    "agent-logs/langfuse-pydantic-ai-with-gemini-2025-12-24.trace.json",
  ],
  cline: [
    "agent-folders/cline/1769064454592/api_conversation_history.json.gz",
    "agent-folders/cline/1769064454592/ui_messages.json.gz",
    "agent-folders/cline/1769064454592/task_metadata.json.gz",
    "agent-folders/cline-ui-alone/ui_messages.json.gz",
    "agent-folders/cline-api-alone/api_conversation_history.json.gz",
    "agent-folders/roo-code-natural-mini/api_conversation_history.json.gz",
    "agent-folders/roo-code-natural-mini/ui_messages.json.gz",
    "agent-folders/roo-code-natural-mini/task_metadata.json.gz",
    "agent-folders/roo-code-condensed/api_conversation_history.json.gz",
    "agent-folders/roo-code-condensed/ui_messages.json.gz",
    "agent-folders/roo-code-condensed/task_metadata.json.gz",
  ],
};

const files = readdirSync(ROOT, { recursive: true, encoding: "utf8" })
  .filter((f) => DATA.test(f))
  .map((f) => f.split(path.sep).join("/"))
  .sort();

function formatOf(rel: string): string {
  const raw = readFileSync(path.join(ROOT, rel));
  const text = (rel.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  // a neutral name: the content alone decides
  return detectFormat(text, "upload.json").format;
}

describe("detection over every fixture", () => {
  const formats = new Map(files.map((f) => [f, formatOf(f)]));

  it("finds the fixtures", () => {
    expect(files.length).toBeGreaterThan(60);
    for (const list of Object.values(OWN)) for (const f of list) expect(files, f).toContain(f);
  });

  it.each(Object.entries(OWN))("%s claims exactly its own files", (format, own) => {
    const claimed = files.filter((f) => formats.get(f) === format);
    expect(claimed).toEqual([...own].sort());
  });
});
