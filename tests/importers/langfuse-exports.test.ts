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

const EXPORTS: Array<[string, string]> = [
  ["corpus: Vercel AI SDK QA chatbot, MCP tool call (latency in ms)", readCorpus("langfuse/langfuse-qa-chatbot-mcp-toolcall.json")],
  ["agent-prism langfuse-1: Vercel AI SDK, three tool calls", fixture("langfuse-vercel-ai-qa-chatbot-1.json")],
  ["agent-prism langfuse-2: Vercel AI SDK, three tool calls", fixture("langfuse-vercel-ai-qa-chatbot-2.json")],
];

/** Observations by id, top level and under `trace` (the export repeats them). */
function observations(text: string): Obj[] {
  const doc = JSON.parse(text) as Obj;
  const all = [...((doc.observations as Obj[]) ?? []), ...(((doc.trace as Obj | undefined)?.observations as Obj[]) ?? [])];
  return [...new Map(all.filter((o) => typeof o === "object" && o !== null).map((o) => [o.id, o])).values()];
}

const isModelCall = (o: Obj) =>
  o.type === "GENERATION" && (typeof o.model === "string" || Number((o.usageDetails as Obj | undefined)?.input ?? 0) > 0);

describe.each(EXPORTS)("Langfuse export %s", (_name, text) => {
  const events = importTrace(text, { fileName: "export.json" }).runs.flatMap((r) => r.events);
  const obs = observations(text);

  it("imports the model calls, tool calls and errors the file holds", () => {
    const s = summarize(events);
    expect(s.modelCalls).toBe(obs.filter(isModelCall).length);
    expect(s.toolCalls).toBe(obs.filter((o) => o.type === "TOOL").length);
    expect(s.errors).toBe(obs.filter((o) => o.level === "ERROR").length);
    expect(s.modelCalls).toBeGreaterThan(0);
  });

  it("every model call's latency is its endTime − startTime, in ms", () => {
    const latency = new Map<string, unknown>();
    for (const e of events) if (e.type === "model.response") latency.set(String(e.data.call), e.data.latencyMs);
    for (const o of obs.filter(isModelCall)) {
      const expected = Date.parse(String(o.endTime)) - Date.parse(String(o.startTime));
      expect(Math.abs(Number(latency.get(String(o.id))) - expected)).toBeLessThanOrEqual(1);
    }
  });

  it("tool arguments are objects", () => {
    for (const e of events as JournalEvent[]) if (e.type === "tool.call") expect(typeof e.data.args).toBe("object");
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
