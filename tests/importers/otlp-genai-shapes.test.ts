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
      // a tool result's content is text, as every message's is (the object as JSON)
      { role: "tool", content: '{"flights":2}', toolCallId: "call_1" },
    ]);
    // the user's question is the run's input, not `undefined`
    expect(evs[0].data.input).toBe("Oslo on Friday");
  });

  it("AI SDK 7: system instructions as text parts, and one tool message holding two results, become text and two tool messages", () => {
    // as @ai-sdk/otel 1.0 writes them: `gen_ai.system_instructions` is a parts array, and the
    // results of two parallel tool calls share one `tool` message
    const input = [
      { role: "user", parts: [{ type: "text", content: "Book and check the weather" }] },
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "call_w", name: "get_weather", arguments: { city: "Oslo" } },
          { type: "tool_call", id: "call_b", name: "book_table", arguments: { guests: 2 } },
        ],
      },
      {
        role: "tool",
        parts: [
          { type: "tool_call_response", id: "call_w", response: { temperature: 4 } },
          { type: "tool_call_response", id: "call_b", response: "Error: unavailable" },
        ],
      },
    ];
    const evs = eventsOf([
      span("1", {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You book tables." }]),
        "gen_ai.input.messages": JSON.stringify(input),
      }),
    ]);
    const req = evs.find((e) => e.type === "model.request")!;
    expect(req.data.messages).toEqual([
      { role: "system", content: "You book tables." },
      { role: "user", content: "Book and check the weather" },
      {
        role: "assistant",
        toolCalls: [
          { id: "call_w", name: "get_weather", args: { city: "Oslo" } },
          { id: "call_b", name: "book_table", args: { guests: 2 } },
        ],
      },
      { role: "tool", content: '{"temperature":4}', toolCallId: "call_w" },
      { role: "tool", content: "Error: unavailable", toolCallId: "call_b" },
    ]);
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

describe("Langfuse SDK observations as @langfuse/tracing 5.11 writes them", () => {
  // every span starts at T0 (one millisecond), as a fast agent loop records them; ends differ by microseconds
  const at = (id: string, endUs: number, attributes: NormalizedSpan["attributes"], parent?: string): NormalizedSpan => ({
    ...span(id, attributes, parent),
    startTimeUnixNano: T0.toString(),
    endTimeUnixNano: (T0 + BigInt(endUs) * 1000n).toString(),
  });
  const assistant = (calls: { id: string; name: string; args: object }[]) => ({
    role: "assistant",
    content: null,
    tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
  });
  const book = { id: "call_b", name: "book_table", args: { guests: 2 } };
  const spans = [
    at("1", 900, { "langfuse.observation.type": "agent" }),
    at(
      "2",
      100,
      {
        "langfuse.observation.type": "generation",
        "langfuse.observation.input": JSON.stringify([{ role: "user", content: "book" }]),
        "langfuse.observation.output": JSON.stringify(assistant([book])),
      },
      "1",
    ),
    at(
      "3",
      200,
      {
        "langfuse.observation.type": "tool",
        "langfuse.observation.input": JSON.stringify(book.args),
        "langfuse.observation.level": "ERROR",
        "langfuse.observation.status_message": "booking service unavailable",
      },
      "1",
    ),
    // the last generation's span ends before the first's: only its messages say it came later
    at(
      "4",
      50,
      {
        "langfuse.observation.type": "generation",
        "langfuse.observation.input": JSON.stringify([
          { role: "user", content: "book" },
          assistant([book]),
          { role: "tool", tool_call_id: "call_b", content: "Error: booking service unavailable" },
        ]),
        "langfuse.observation.output": JSON.stringify({ role: "assistant", content: "Sorry." }),
      },
      "1",
    ),
  ];
  spans[0].name = "booking-agent";
  spans[2].name = "book_table";
  const evs = eventsOf(spans);

  it("level ERROR is one failed tool; the agent observation names the run's agent", () => {
    expect(evs.filter((e) => e.type === "error")).toHaveLength(1);
    expect(evs.find((e) => e.type === "tool.result")?.data).toMatchObject({ status: "error", error: "booking service unavailable" });
    expect(evs[0].data.agent).toEqual({ name: "booking-agent" });
  });

  it("OpenAI chat input messages are normalised, and a generation sent a tool's result comes after that tool", () => {
    const reqs = evs.filter((e) => e.type === "model.request");
    expect(reqs[1].data.messages).toEqual([
      { role: "user", content: "book" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_b", name: "book_table", args: { guests: 2 } }] },
      { role: "tool", content: "Error: booking service unavailable", toolCallId: "call_b" },
    ]);
    const types = evs.map((e) => e.type);
    expect(types.indexOf("tool.call")).toBeGreaterThan(types.indexOf("model.response"));
    expect(types.lastIndexOf("model.request")).toBeGreaterThan(types.indexOf("tool.result"));
  });
});
