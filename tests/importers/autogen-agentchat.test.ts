/**
 * AutoGen AgentChat team states (`team.save_state()` written as JSON): four real files
 * (tests/fixtures/agent-logs/SOURCES.md). Expected counts are read off the files with plain
 * JSON reading, not through the importer: the group chat manager's `message_thread` is the
 * conversation; a message with `models_usage` is a model call; a `ToolCallRequestEvent`'s
 * items are tool calls, answered by the `ToolCallExecutionEvent` items with the same
 * `call_id` (`is_error`); a `TextMessage` from a source without an `AssistantAgentState` is
 * the user's input.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Msg = {
  source: string;
  type: string;
  content: unknown;
  models_usage: { prompt_tokens: number; completion_tokens: number } | null;
  created_at?: string;
};
type State = { type: string; message_thread?: Msg[]; agent_state?: { type: string } };
const DIR = fileURLToPath(new URL("../fixtures/agent-logs/", import.meta.url));
const FILES = [
  "autogen-teamstate-weather-parallel-tools.json",
  "autogen-teamstate-timelog-three-agents.json",
  "autogen-teamstate-poem-created-at.json",
  "autogen-teamstate-writers-round-robin.json",
];

function read(name: string) {
  const text = readFileSync(path.join(DIR, name), "utf8");
  const doc = JSON.parse(text) as { team_id?: string; agent_states: Record<string, State> };
  const states = Object.entries(doc.agent_states);
  const thread = states.map(([, s]) => s.message_thread).find(Array.isArray) as Msg[];
  const assistants = new Set(states.filter(([, s]) => s.agent_state?.type === "AssistantAgentState").map(([k]) => k.split("/")[0]));
  return { text, doc, thread, assistants };
}

describe.each(FILES)("AutoGen AgentChat team state %s", (name) => {
  const { text, doc, thread, assistants } = read(name);
  const result = importTrace(text, { fileName: name });
  const events = result.runs[0].events;
  const calls = thread.filter((m) => m.models_usage);
  const requested = thread
    .filter((m) => m.type === "ToolCallRequestEvent")
    .flatMap((m) => m.content as Array<{ id: string; name: string }>);
  const executed = thread
    .filter((m) => m.type === "ToolCallExecutionEvent")
    .flatMap((m) => m.content as Array<{ call_id: string; is_error?: boolean }>);

  it("is detected from its content, also from a cut head, and every event is a valid journal line", () => {
    expect(detectFormat(text).format).toBe("autogen-agentchat");
    expect(detectFormat(text, "state.txt").format).toBe("autogen-agentchat");
    expect(detectFormat(text.slice(0, Math.floor(text.length / 2))).format).toBe("autogen-agentchat");
    for (const e of events) {
      const parsed = parseLine(canonicalJson(e));
      expect(parsed.ok, `seq ${e.seq} (${e.type}): ${parsed.ok ? "" : parsed.message}`).toBe(true);
    }
  });

  it("imports one model call per message with models_usage, its tokens, and the tool calls joined to their results", () => {
    const s = summarize(events);
    expect(s.modelCalls).toBe(calls.length);
    expect(s.inputTokens).toBe(calls.reduce((n, m) => n + (m.models_usage?.prompt_tokens ?? 0), 0));
    expect(s.outputTokens).toBe(calls.reduce((n, m) => n + (m.models_usage?.completion_tokens ?? 0), 0));
    expect(s.toolCalls).toBe(requested.length);
    expect(s.toolFailures.error ?? 0).toBe(executed.filter((r) => r.is_error).length);
    const results = events.filter((e) => e.type === "tool.result").map((e) => e.data.call);
    expect(results.sort()).toEqual(executed.map((r) => r.call_id).sort());
    const userInputs = thread.filter((m) => m.type === "TextMessage" && !m.models_usage && !assistants.has(m.source));
    expect(s.inputs).toBe(userInputs.length);
    if (doc.team_id) expect(result.runs[0].runId).toMatch(new RegExp(`^autogen-${doc.team_id}-[0-9a-f]{8}$`));
  });

  it("each model call's step names its speaker, and a text reply is the response's text", () => {
    const starts = events.filter((e) => e.type === "step.start" && e.data.kind === "llm");
    expect(starts.map((e) => e.data.agent)).toEqual(calls.map((m) => m.source));
    const responses = events.filter((e) => e.type === "model.response");
    responses.forEach((r, i) => {
      const out = r.data.output as { text?: string; toolCalls?: Array<{ id: string }> };
      if (calls[i].type === "TextMessage") expect(out.text).toBe(calls[i].content);
      else expect(out.toolCalls?.map((c) => c.id)).toEqual((calls[i].content as Array<{ id: string }>).map((c) => c.id));
    });
  });

  it("uses created_at as event times when the messages have them, else says the times are synthetic", () => {
    if (thread.every((m) => m.created_at)) {
      expect(result.warnings.join(" ")).not.toMatch(/created_at/);
      expect(events[0].ts).toBe(new Date(Date.parse(thread[0].created_at as string)).toISOString());
    } else {
      expect(result.warnings.join(" ")).toMatch(/no `created_at`/);
      expect(events[0].ts).toBe("1970-01-01T00:00:00.000Z");
    }
  });
});

describe("AutoGen AgentChat details read off the files", () => {
  it("a model call lasts from the message before it to its own created_at (Writer_2's first joke)", () => {
    const { text, thread } = read("autogen-teamstate-writers-round-robin.json");
    const i = thread.findIndex((m) => m.source === "Writer_2");
    const micros = (iso: string) =>
      BigInt(iso.replace(/^.*T(\d+):(\d+):(\d+)\.(\d{6})Z$/, (_, h, m, s, f) => String(((+h * 60 + +m) * 60 + +s) * 1e6 + +f)));
    const expected = (micros(thread[i].created_at as string) - micros(thread[i - 1].created_at as string)) * 1000n;
    expect(expected).toBe(1_518_369_000n);
    const events = importTrace(text).runs[0].events;
    const step = events.find((e) => e.type === "step.start" && e.data.agent === "Writer_2")?.step;
    const req = events.find((e) => e.type === "model.request" && e.step === step);
    const res = events.find((e) => e.type === "model.response" && e.step === step);
    expect(BigInt(res?.tsNs as string) - BigInt(req?.tsNs as string)).toBe(expected);
  });

  it("the request is the speaker's saved LLM context since its previous reply: tool results after a tool call", () => {
    const events = importTrace(readFileSync(path.join(DIR, "autogen-teamstate-weather-parallel-tools.json"), "utf8")).runs[0].events;
    const requests = events.filter((e) => e.type === "model.request");
    expect(requests[1].data.messagesSince).toBe("m1");
    const msgs = requests[1].data.messages as Array<{ role: string; toolCallId?: string }>;
    expect(msgs.map((m) => m.role)).toEqual(["tool", "tool"]);
    expect(msgs.map((m) => m.toolCallId)).toEqual(["call_uNOH5GnldWIWIu2NWnf1SWqs", "call_K8mAc2cvkAkXVG9Zv8ndyvF9"]);
  });

  it("a team state that is not one is one clear error", () => {
    expect(() =>
      importTrace('{"type": "TeamState", "agent_states": {"a": {"type": "ChatAgentContainerState", "agent_state": {}}}}'),
    ).toThrow(/message_thread/);
  });
});
