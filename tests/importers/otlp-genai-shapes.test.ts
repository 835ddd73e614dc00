/**
 * Message shapes of OTLP spans normalised to the journal's {role, content, toolCalls?}:
 * GenAI semconv `parts` (AI SDK 7, Traceloop) and Langfuse's `langfuse.observation.*`.
 * The spans are written by hand; expected values are read off them.
 */
import { describe, expect, it } from "vitest";
import { spansToRuns, type NormalizedSpan } from "@/lib/importers";

const T0 = 1_760_000_000_000_000_000n;
function span(id: string, attributes: NormalizedSpan["attributes"], parent?: string): NormalizedSpan {
  return {
    traceId: "11112222333344445555666677778888",
    spanId: id.padStart(16, "0"),
    ...(parent ? { parentSpanId: parent.padStart(16, "0") } : {}),
    name: "span " + id,
    kind: "client",
    startTimeUnixNano: (T0 + BigInt(id) * 1_000_000n).toString(),
    endTimeUnixNano: (T0 + BigInt(id) * 1_000_000n + 500_000n).toString(),
    status: { code: "unset" },
    attributes,
    events: [],
    resource: {},
  };
}
const eventsOf = (spans: NormalizedSpan[]) => spansToRuns(spans)[0].events;

describe("GenAI parts", () => {
  it("input messages with parts become {role, content, toolCalls, toolCallId} with object arguments", () => {
    const input = [
      { role: "system", parts: [{ type: "text", content: "You book flights." }] },
      { role: "user", parts: [{ type: "text", content: "Oslo on Friday" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "search", arguments: { city: "Oslo" } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: { flights: 2 } }] },
    ];
    const evs = eventsOf([
      span("1", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.input.messages": JSON.stringify(input) }),
    ]);
    const req = evs.find((e) => e.type === "model.request")!;
    expect(req.data.messages).toEqual([
      { role: "system", content: "You book flights." },
      { role: "user", content: "Oslo on Friday" },
      { role: "assistant", toolCalls: [{ id: "call_1", name: "search", args: { city: "Oslo" } }] },
      { role: "tool", content: { flights: 2 }, toolCallId: "call_1" },
    ]);
    // the user's question is the run's input, not `undefined`
    expect(evs[0].data.input).toBe("Oslo on Friday");
  });
});

describe("Langfuse observation attributes", () => {
  it("a generation is a model call with its model, messages, output and usage; a tool observation a tool call", () => {
    const evs = eventsOf([
      span("1", { "langfuse.observation.type": "agent" }),
      span(
        "2",
        {
          "langfuse.observation.type": "generation",
          "langfuse.observation.model.name": "gpt-4o-mini",
          "langfuse.observation.input": JSON.stringify([{ role: "user", content: "weather in Bergen?" }]),
          "langfuse.observation.output": JSON.stringify({
            role: "assistant",
            content: "",
            tool_calls: [{ id: "t1", type: "function", function: { name: "weather", arguments: '{"city":"Bergen"}' } }],
          }),
          "langfuse.observation.usage_details": JSON.stringify({ input: 12, output: 5, total: 17 }),
        },
        "1",
      ),
      span(
        "3",
        { "langfuse.observation.type": "tool", "langfuse.observation.input": '{"city":"Bergen"}', "langfuse.observation.output": '"rain"' },
        "1",
      ),
    ]);
    const req = evs.find((e) => e.type === "model.request")!;
    expect(req.data).toMatchObject({ model: "gpt-4o-mini", messages: [{ role: "user", content: "weather in Bergen?" }] });
    const res = evs.find((e) => e.type === "model.response")!;
    expect(res.data.output).toEqual({ toolCalls: [{ id: "t1", name: "weather", args: { city: "Bergen" } }] });
    expect(res.data.usage).toEqual({ inputTokens: 12, outputTokens: 5, totalTokens: 17 });
    const call = evs.find((e) => e.type === "tool.call")!;
    expect(call.data.args).toEqual({ city: "Bergen" });
    expect(evs.find((e) => e.type === "tool.result")!.data.result).toBe("rain");
    expect(evs.find((e) => e.type === "step.start" && e.step === "0000000000000001")!.data.kind).toBe("agent");
  });
});
