/**
 * OpenInference LangChain.js spans as @arizeai/openinference-instrumentation-langchain 4.1
 * writes them for `createAgent`: TOOL spans carry no `tool_call.id`; a successful one answers
 * with a serialized ToolMessage naming its call, a failed one with nothing. The spans are
 * written by hand after that shape; expected values are read off them.
 */
import { describe, expect, it } from "vitest";
import { spansToRuns, type NormalizedSpan } from "@/lib/importers";

const T0 = 1_760_000_000_000_000_000n;
const MS = 1_000_000n;
function span(id: string, startMs: number, endMs: number, attributes: NormalizedSpan["attributes"], status: "unset" | "error" = "unset") {
  const s: NormalizedSpan = {
    traceId: "aaaabbbbccccddddeeeeffff00001111",
    spanId: id.padStart(16, "0"),
    ...(id === "1" ? {} : { parentSpanId: "1".padStart(16, "0") }),
    name: "span " + id,
    kind: "internal",
    startTimeUnixNano: (T0 + BigInt(startMs) * MS).toString(),
    endTimeUnixNano: (T0 + BigInt(endMs) * MS).toString(),
    status: status === "error" ? { code: "error", message: "booking service unavailable" } : { code: "unset" },
    attributes,
    events: [],
    resource: {},
  };
  return s;
}
const llm = (id: string, startMs: number, endMs: number, calls: { id: string; name: string; args: object }[]) =>
  span(id, startMs, endMs, {
    "openinference.span.kind": "LLM",
    "output.value": JSON.stringify({
      generations: [
        [
          {
            text: "",
            message: {
              lc: 1,
              type: "constructor",
              id: ["langchain_core", "messages", "AIMessage"],
              kwargs: { content: "", tool_calls: calls },
            },
          },
        ],
      ],
    }),
  });
const toolMessage = (callId: string, content: string) =>
  JSON.stringify({
    output: {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "ToolMessage"],
      kwargs: { content, tool_call_id: callId, name: "t", status: "success" },
    },
  });
const ARGS = { restaurant: "Maaemo", guests: 2 };

describe("OpenInference LangChain.js tool spans", () => {
  const spans = [
    span("1", 0, 100, { "openinference.span.kind": "CHAIN", metadata: JSON.stringify({ lc_agent_name: "booking-agent" }) }),
    llm("2", 1, 10, [
      { id: "call_w1", name: "get_weather", args: { city: "Oslo" } },
      { id: "call_b1", name: "book_table", args: ARGS },
    ]),
    span("3", 11, 12, {
      "openinference.span.kind": "TOOL",
      "tool.name": "get_weather",
      "input.value": '{"city":"Oslo"}',
      "output.value": toolMessage("call_w1", '{"temperature":4}'),
    }),
    span("4", 11, 13, { "openinference.span.kind": "TOOL", "tool.name": "book_table", "input.value": JSON.stringify(ARGS) }, "error"),
    llm("5", 20, 30, [{ id: "call_b2", name: "book_table", args: ARGS }]),
    span("6", 31, 32, {
      "openinference.span.kind": "TOOL",
      "tool.name": "book_table",
      "input.value": JSON.stringify(ARGS),
      "output.value": toolMessage("call_b2", '{"confirmation":"MA-1"}'),
    }),
  ];
  const [run] = spansToRuns(spans);
  const calls = run.events.filter((e) => e.type === "tool.call").map((e) => e.data.call);

  it("a tool call takes its id from the ToolMessage, or, when it failed, from the request it answers", () => {
    // the failed booking (no output) answers call_b1: the earlier response's unanswered request
    expect(calls.sort()).toEqual(["call_b1", "call_b2", "call_w1"]);
  });

  it("the result is the ToolMessage's content, and the agent is createAgent's name", () => {
    const results = run.events.filter((e) => e.type === "tool.result" && e.data.status === "ok").map((e) => e.data.result);
    expect(results).toContainEqual({ temperature: 4 });
    expect(results).toContainEqual({ confirmation: "MA-1" });
    expect(run.events[0].data.agent).toEqual({ name: "booking-agent" });
  });
});

describe("tool spans with no call id in a fast run (every span within the same milliseconds)", () => {
  it("a retried call's attempts take the requests in order, each after the response that asked for it", () => {
    // the failed attempt starts in the millisecond the retry's response ends: whole-ms stamps
    // make that response look earlier, and the latest match would give the attempt the retry's id
    const spans = [
      span("1", 0, 10, { "openinference.span.kind": "CHAIN" }),
      llm("2", 1, 2, [{ id: "call_b1", name: "book_table", args: ARGS }]),
      span("3", 2, 2, { "openinference.span.kind": "TOOL", "tool.name": "book_table", "input.value": JSON.stringify(ARGS) }, "error"),
      llm("4", 2, 2, [{ id: "call_b2", name: "book_table", args: ARGS }]),
      span("5", 2, 3, { "openinference.span.kind": "TOOL", "tool.name": "book_table", "input.value": JSON.stringify(ARGS) }, "error"),
    ];
    const [run] = spansToRuns(spans);
    const toolCalls = run.events.filter((e) => e.type === "tool.call");
    expect(toolCalls.map((e) => e.data.call).sort()).toEqual(["call_b1", "call_b2"]);
    // the first attempt (span 3, ended at 2 ms) answers the first request
    const endOf = (call: string) => run.events.find((e) => e.type === "tool.result" && e.data.call === call)?.ts ?? "";
    expect(endOf("call_b1") < endOf("call_b2")).toBe(true);
    for (const c of toolCalls) {
      const asker = run.events.find(
        (e) =>
          e.type === "model.response" &&
          ((e.data.output as { toolCalls?: { id: string }[] } | undefined)?.toolCalls ?? []).some((t) => t.id === c.data.call),
      );
      expect(asker, String(c.data.call)).toBeDefined();
      expect(asker!.seq, String(c.data.call)).toBeLessThan(c.seq);
    }
  });
});

describe("OpenInference OpenAI Agents spans", () => {
  it("the agent span's graph.node.id names the run's agent (the root AGENT span names none)", () => {
    const [run] = spansToRuns([
      span("1", 0, 100, { "openinference.span.kind": "AGENT" }),
      span("2", 1, 99, { "openinference.span.kind": "AGENT", "graph.node.id": "booking-agent" }),
    ]);
    expect(run.events[0].data.agent).toEqual({ name: "booking-agent" });
  });
});
