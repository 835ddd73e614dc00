/**
 * Detection over every fixture file (gzipped ones unzipped): each format named here claims
 * exactly its own files and no other format's, whatever the file is called (the content
 * decides). A new fixture of these formats is added to its list below.
 */
import { describe, expect, it } from "vitest";
import { detectFormat } from "@/lib/importers/detect";
import { fixtureFiles, readFixture } from "./helpers";

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
    "agent-logs/langfuse-beeai-2025-08-01.trace.json",
  ],
  "patronus-trace": [
    "corpus/patronus/trail-gaia-41bbc898aa7de0f31d2382ff57700a76.json.gz",
    "corpus/patronus/trail-swe-bench-72822db6e120878d916b515c2501246b.json",
  ],
  "ag2-groupchat": [
    "agent-logs/ag2-captainagent-whowhen-1.json",
    "agent-logs/ag2-captainagent-whowhen-65.json",
    "agent-logs/ag2-captainagent-whowhen-84.json",
  ],
  "autogen-agentchat": [
    "agent-logs/autogen-teamstate-weather-parallel-tools.json",
    "agent-logs/autogen-teamstate-timelog-three-agents.json",
    "agent-logs/autogen-teamstate-poem-created-at.json",
    "agent-logs/autogen-teamstate-writers-round-robin.json",
  ],
  "magentic-one": ["agent-logs/magentic-one-dream-team-log.jsonl"],
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
  "claude-code": [
    "agent-cli/claude-code-2.1.337-session.jsonl",
    "agent-cli/claude-code-2.1.337-subagent/5d111294-64c9-4a08-a928-b587069ec457.jsonl",
    "agent-cli/claude-code-2.1.337-subagent/5d111294-64c9-4a08-a928-b587069ec457/subagents/agent-a9b27a7e8deafe59d.jsonl",
    "agent-cli/claude-code-2.1.337-subagent-background/d963c98a-c6be-4705-9df6-6b4e717bbe53.jsonl",
    "agent-cli/claude-code-2.1.337-subagent-background/d963c98a-c6be-4705-9df6-6b4e717bbe53/subagents/agent-a4bbcca872087360e.jsonl",
    "corpus/claude-code/claude-code-viewer-5c0375b4-orchestrator.jsonl",
    "corpus/claude-code/codemie-session-9eda1058.jsonl",
  ],
};

const files = fixtureFiles();

function formatOf(rel: string): string {
  // a neutral name: the content alone decides
  return detectFormat(readFixture(rel), "upload.json").format;
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
