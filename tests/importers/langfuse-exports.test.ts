/**
 * Langfuse trace exports from public repositories: each imports with the model calls, tool
 * calls and errors a plain JSON reading of the file counts, and every model call's latency is
 * its own `endTime − startTime` (within 1 ms), whatever unit the export wrote in `latency`.
 * OpenAI Responses items (what the OpenAI Agents SDK records) become the one message shape.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importTrace } from "@/lib/importers";
import type { JournalEvent } from "@/lib/journal/types";
import { readCorpus, summarize } from "./helpers";

type Obj = Record<string, unknown>;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/agent-logs/${name}`, import.meta.url), "utf8");

// the third value: the file records what the model answered, so every tool call can be joined
// to the response that requested it (agent-prism's exports carry no inputs or outputs)
const EXPORTS: Array<[string, string, boolean]> = [
  ["corpus: Vercel AI SDK QA chatbot, MCP tool call (latency in ms)", readCorpus("langfuse/langfuse-qa-chatbot-mcp-toolcall.json"), false],
  ["agent-prism langfuse-1: Vercel AI SDK, three tool calls", fixture("langfuse-vercel-ai-qa-chatbot-1.json"), false],
  ["agent-prism langfuse-2: Vercel AI SDK, three tool calls", fixture("langfuse-vercel-ai-qa-chatbot-2.json"), false],
];

/** Langfuse's own framework-integration traces (langfuse/langfuse worker tests): `latency` in seconds but one. */
const FRAMEWORKS = [
  "openai-agents-2025-09-30",
  "vercel-aisdk-2025-11-17",
  "claude-agent-2025-12-22",
  "langgraph-js-2025-10-30",
  "microsoft-agent-2025-12-17",
  "pydantic-ai-tools-2025-12-04",
  "crewai-2025-07-11",
  "agno-2025-06-11",
  "koog-2025-08-26",
  "google-adk-2025-08-28",
  "langgraph-python-2025-08-22",
  "csharp-agent-with-gemini-2026-03-09",
  "autogen-2025-06-06",
  "llamaindex-2025-06-05",
  "pydantic-ai-with-gemini-2025-12-24",
];
for (const name of FRAMEWORKS) EXPORTS.push([`langfuse/langfuse ${name}`, fixture(`langfuse-${name}.trace.json`), true]);
// BeeAI's ReAct agent asks for tools in its text ("Function Name: …"), not as tool calls: nothing to join
EXPORTS.push(["langfuse/langfuse beeai-2025-08-01", fixture("langfuse-beeai-2025-08-01.trace.json"), false]);

/** Observations by id, top level and under `trace` (the export repeats them). */
function observations(text: string): Obj[] {
  const doc = JSON.parse(text) as Obj;
  const all = [...((doc.observations as Obj[]) ?? []), ...(((doc.trace as Obj | undefined)?.observations as Obj[]) ?? [])];
  // the first copy wins: the top-level observations are whole, the trace's may be summaries
  const byId = new Map<unknown, Obj>();
  for (const o of all) if (typeof o === "object" && o !== null && !byId.has(o.id)) byId.set(o.id, o);
  return [...byId.values()];
}

/**
 * BeeAI writes each event of one call as an observation named `backend.openai.chat.<event>-<n>`
 * or `tool.search.wikipedia.<event>-<n>`: the `start` is the call; `success`, `finish` (and
 * `error`) report on it.
 */
const isLifecycleReport = (o: Obj) => /^(backend|tool)\.[\w.-]+\.(success|finish|error)-\d+$/.test(String(o.name));
const isGeneration = (o: Obj) =>
  o.type === "GENERATION" &&
  !isLifecycleReport(o) &&
  (typeof o.model === "string" || Number((o.usageDetails as Obj | undefined)?.input ?? 0) > 0);

/** Model calls: generations with no generation inside them (the AI SDK's `ai.generateText` wraps `doGenerate`). */
function modelCalls(obs: Obj[]): Obj[] {
  const gens = obs.filter(isGeneration);
  const parent = new Map(obs.map((o) => [o.id, o.parentObservationId]));
  const wrappers = new Set<unknown>();
  for (const g of gens) for (let p = parent.get(g.id); p; p = parent.get(p)) wrappers.add(p);
  return gens.filter((g) => !wrappers.has(g.id));
}

/** A LangChain tool run: a SPAN whose output is the ToolMessage (JS: serialised, Python: a dict of type "tool"). */
const isToolMessageSpan = (o: Obj) => {
  if (o.type !== "SPAN" || typeof o.output !== "string" || !o.output.startsWith("{")) return false;
  let out: Obj;
  try {
    out = JSON.parse(o.output) as Obj;
  } catch {
    return false; // a Python repr (BeeAI's `{'role': …}`), not a ToolMessage
  }
  return (
    (Array.isArray(out.id) && out.id[out.id.length - 1] === "ToolMessage") || (out.type === "tool" && typeof out.tool_call_id === "string")
  );
};
/** A SPAN its instrumentation marked as a tool run (agno's OpenInference kind, Koog's GenAI call id). */
const isToolSpan = (o: Obj) => {
  if (o.type !== "SPAN") return false;
  const meta = (typeof o.metadata === "string" ? JSON.parse(o.metadata) : (o.metadata ?? {})) as Obj;
  const a = (meta.attributes ?? {}) as Obj;
  return (
    a["openinference.span.kind"] === "TOOL" || a["gen_ai.operation.name"] === "execute_tool" || typeof a["gen_ai.tool.call.id"] === "string"
  );
};
const isToolCall = (o: Obj) => !isLifecycleReport(o) && (o.type === "TOOL" || isToolMessageSpan(o) || isToolSpan(o));

describe.each(EXPORTS)("Langfuse export %s", (_name, text, joined) => {
  const events = importTrace(text, { fileName: "export.json" }).runs.flatMap((r) => r.events);
  const obs = observations(text);

  it("imports the model calls, tool calls and errors the file holds", () => {
    const s = summarize(events);
    expect(s.modelCalls).toBe(modelCalls(obs).length);
    expect(s.toolCalls).toBe(obs.filter(isToolCall).length);
    expect(s.errors).toBe(obs.filter((o) => o.level === "ERROR").length);
    expect(s.modelCalls).toBeGreaterThan(0);
  });

  it("every model call's latency is its endTime − startTime, in ms", () => {
    const latency = new Map<string, unknown>();
    for (const e of events) if (e.type === "model.response") latency.set(String(e.data.call), e.data.latencyMs);
    expect(latency.size).toBe(modelCalls(obs).length);
    for (const o of modelCalls(obs)) {
      const expected = Date.parse(String(o.endTime)) - Date.parse(String(o.startTime));
      expect(Math.abs(Number(latency.get(String(o.id))) - expected)).toBeLessThanOrEqual(1);
    }
  });

  // defined only where the file records what the model answered (not skipped elsewhere: absent)
  if (joined)
    it("every tool call answers a call a model response requested, and has its result", () => {
      const requested = new Map(
        events
          .filter((e) => e.type === "model.response")
          .flatMap((e) => (((e.data.output as Obj | undefined)?.toolCalls as Obj[] | undefined) ?? []).map((c) => [String(c.id), c.args])),
      );
      for (const e of events.filter((x) => x.type === "tool.call")) {
        expect(requested.has(String(e.data.call)), `tool call ${String(e.data.call)} was requested`).toBe(true);
        expect(e.data.args).toEqual(requested.get(String(e.data.call)));
        expect(events.some((r) => r.type === "tool.result" && r.data.call === e.data.call)).toBe(true);
      }
    });

  it("tool arguments are objects", () => {
    for (const e of events as JournalEvent[]) if (e.type === "tool.call") expect(typeof e.data.args).toBe("object");
  });
});

describe("BeeAI through Langfuse: one model call per call, not per lifecycle event", () => {
  const text = fixture("langfuse-beeai-2025-08-01.trace.json");
  it("imports the three chat calls the ReAct agent made (start-14, -15, -16), not the success and finish reports", () => {
    const gens = observations(text).filter((o) => o.type === "GENERATION");
    expect(gens).toHaveLength(5);
    const starts = gens.filter((o) => /\.start-\d+$/.test(String(o.name))).map((o) => o.id);
    expect(starts).toHaveLength(3);
    const events = importTrace(text, { fileName: "beeai.json" }).runs.flatMap((r) => r.events);
    const calls = events.filter((e) => e.type === "model.request").map((e) => e.data.call);
    expect(calls.sort()).toEqual([...starts].sort());
  });

  it("imports the one Wikipedia run as one tool call whose result is what its success report holds", () => {
    const obs = observations(text);
    const success = obs.find((o) => /^tool\.search\.wikipedia\.success-\d+$/.test(String(o.name)))!;
    const events = importTrace(text, { fileName: "beeai.json" }).runs.flatMap((r) => r.events);
    const tools = events.filter((e) => e.type === "tool.call");
    expect(tools.map((e) => e.data.tool)).toEqual(["search.wikipedia"]);
    const result = events.find((e) => e.type === "tool.result" && e.data.call === tools[0].data.call)!;
    expect(result.data.status).toBe("ok");
    expect(JSON.stringify(result.data.result)).toContain("Barcelona");
    expect(JSON.parse(String(success.output))).toEqual(result.data.result);
  });
});

describe("Langfuse observations holding OpenAI Responses items (OpenAI Agents SDK)", () => {
  // one generation as the openai-agents integration records it: the request's items and the
  // raw response object, latency in seconds as Langfuse's API writes it
  const doc = {
    trace: { id: "t-responses", name: "Agent workflow", timestamp: "2026-01-05T10:00:00.000Z" },
    observations: [
      {
        id: "gen-2",
        type: "GENERATION",
        name: "Responses API",
        model: "gpt-4.1",
        startTime: "2026-01-05T10:00:01.000Z",
        endTime: "2026-01-05T10:00:02.036Z",
        latency: 1.036,
        usageDetails: { input: 52, output: 16, total: 68 },
        input: [
          { role: "user", content: "weather in Oslo and Bergen?" },
          { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}', id: "fc_1" },
          { type: "function_call_output", call_id: "call_1", output: "rain" },
        ],
        output: JSON.stringify({
          id: "resp_abc",
          object: "response",
          output: [
            { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Bergen next" }] },
            { type: "function_call", id: "fc_2", call_id: "call_2", name: "get_weather", arguments: '{"city":"Bergen"}' },
          ],
        }),
      },
    ],
  };
  const events = importTrace(JSON.stringify(doc)).runs[0].events;
  const request = events.find((e) => e.type === "model.request");
  const response = events.find((e) => e.type === "model.response");

  it("maps the request's function_call and function_call_output items to a tool call and its result", () => {
    expect(request?.data.messages).toEqual([
      { role: "user", content: "weather in Oslo and Bergen?" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }] },
      { role: "tool", content: "rain", toolCallId: "call_1" },
    ]);
  });

  it("maps the raw response object to its tool calls and reasoning, not its JSON text", () => {
    expect(response?.data.output).toEqual({
      reasoning: "Bergen next",
      toolCalls: [{ id: "call_2", name: "get_weather", args: { city: "Bergen" } }],
    });
    expect(response?.data.latencyMs).toBe(1036);
  });
});

describe("Langfuse export of an OpenAI Agents SDK run (langfuse/langfuse openai-agents-2025-09-30)", () => {
  const text = fixture("langfuse-openai-agents-2025-09-30.trace.json");
  const events = importTrace(text).runs[0].events;
  const gens = observations(text).filter((o) => o.type === "GENERATION");
  const items = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v) as Obj[];

  it("maps each response's output items: function_call to a tool call, message to its text", () => {
    for (const g of gens) {
      const out = items((JSON.parse(String(g.output)) as Obj).output);
      const calls = out.filter((i) => i.type === "function_call");
      const texts = out
        .filter((i) => i.type === "message")
        .flatMap((i) => (i.content as Obj[]).filter((c) => c.type === "output_text").map((c) => String(c.text)));
      const response = events.find((e) => e.type === "model.response" && e.data.call === g.id);
      const output = response?.data.output as Obj;
      expect(output.toolCalls ?? []).toEqual(calls.map((c) => ({ id: c.call_id, name: c.name, args: JSON.parse(String(c.arguments)) })));
      if (texts.length > 0) expect(output.text).toBe(texts.join("\n"));
    }
    expect(gens.some((g) => /"type":\s*"function_call"/.test(String(g.output)))).toBe(true);
  });

  it("maps the request's function_call / function_call_output items to a tool call and its result", () => {
    const g = gens.find((x) => String(x.input).includes("function_call_output"));
    const input = items(g?.input);
    const call = input.find((i) => i.type === "function_call") as Obj;
    const result = input.find((i) => i.type === "function_call_output") as Obj;
    const request = events.find((e) => e.type === "model.request" && e.data.call === g?.id);
    const messages = request?.data.messages as Obj[];
    expect(messages).toContainEqual(
      expect.objectContaining({
        role: "assistant",
        toolCalls: [{ id: call.call_id, name: call.name, args: JSON.parse(String(call.arguments)) }],
      }),
    );
    expect(messages).toContainEqual({ role: "tool", content: result.output, toolCallId: result.call_id });
  });

  it("the TOOL observation (no call id of its own) is the requested call, with its output as the result", () => {
    const tool = observations(text).find((o) => o.type === "TOOL") as Obj;
    const callId = String((items(gens.find((x) => String(x.input).includes("function_call_output"))?.input)[1] as Obj).call_id);
    const call = events.find((e) => e.type === "tool.call");
    expect(call?.data.call).toBe(callId);
    expect(call?.data.args).toEqual(JSON.parse(String(tool.input)));
    expect(events.find((e) => e.type === "tool.result")?.data.result).toBe(tool.output);
  });
});
