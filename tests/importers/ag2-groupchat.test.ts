/**
 * AG2 group chats: three real CaptainAgent chat histories from the Who&When benchmark
 * (tests/fixtures/agent-logs/SOURCES.md). Expected counts are read off the files with plain
 * JSON reading and regular expressions, not through the importer: a message starting with
 * `exitcode: N` is a code execution (failed when N is not 0), its speaker the executor;
 * every message after the first from another speaker is a model call.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Message = { content: string; role: string; name: string };
const DIR = fileURLToPath(new URL("../fixtures/agent-logs/", import.meta.url));
const FILES = ["ag2-captainagent-whowhen-1.json", "ag2-captainagent-whowhen-65.json", "ag2-captainagent-whowhen-84.json"];

describe.each(FILES)("AG2 group chat %s", (name) => {
  const text = readFileSync(path.join(DIR, name), "utf8");
  const doc = JSON.parse(text) as { history: Message[]; question_ID: string; is_correct: boolean; system_prompt: Record<string, string> };
  const history = doc.history;
  const executions = history.filter((m) => /^exitcode: -?\d+/.test(m.content));
  const executors = new Set(executions.map((m) => m.name));
  const agentMessages = history.slice(1).filter((m) => !executors.has(m.name));
  const result = importTrace(text, { fileName: name });
  const events = result.runs[0].events;

  it("is detected from its content, also from a cut head, and every event is a valid journal line", () => {
    expect(detectFormat(text).format).toBe("ag2-groupchat");
    expect(detectFormat(text, "chat.txt").format).toBe("ag2-groupchat");
    expect(detectFormat(text.slice(0, Math.floor(text.length / 2))).format).toBe("ag2-groupchat");
    for (const e of events) {
      const parsed = parseLine(canonicalJson(e));
      expect(parsed.ok, `seq ${e.seq} (${e.type}): ${parsed.ok ? "" : parsed.message}`).toBe(true);
    }
  });

  it("imports one model call per agent message, one code execution per executor reply, failures by exit code", () => {
    const s = summarize(events);
    expect(s.modelCalls).toBe(agentMessages.length);
    expect(s.toolCalls).toBe(executions.length);
    const failed = executions.filter((m) => !/^exitcode: 0 /.test(m.content)).length;
    expect(s.toolFailures.error ?? 0).toBe(failed);
    expect(s.inputs).toBe(1);
    expect(s.status).toBe(doc.is_correct ? "succeeded" : "failed");
    expect(result.runs[0].runId).toMatch(new RegExp(`^ag2-${doc.question_ID}-[0-9a-f]{8}$`));
  });

  it("each model call's step names its speaker as the agent, and its request starts with that agent's system prompt", () => {
    const starts = events.filter((e) => e.type === "step.start" && e.data.kind === "llm");
    expect(starts.map((e) => e.data.agent)).toEqual(agentMessages.map((m) => m.name));
    const requests = events.filter((e) => e.type === "model.request");
    requests.forEach((r, i) => {
      const messages = r.data.messages as Array<{ role: string; content: string }>;
      const system = doc.system_prompt[agentMessages[i].name];
      if (system) expect(messages[0]).toEqual({ role: "system", content: system });
    });
    const responses = events.filter((e) => e.type === "model.response");
    expect(responses.map((e) => (e.data.output as { text: string }).text)).toEqual(agentMessages.map((m) => m.content));
  });

  it("times are synthetic and the run says so", () => {
    expect(result.warnings.join(" ")).toMatch(/no timestamps/);
    expect(events[0].ts).toBe("1970-01-01T00:00:00.000Z");
  });
});
