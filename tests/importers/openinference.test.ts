/**
 * OpenInference spans (LangChain and provider instrumentations): messages from `input.value`
 * / `output.value` in the journal's {role, content, toolCalls?}, structured tool arguments,
 * and two instrumentations of one model call counted once. Hand-built spans follow the
 * OpenInference semantic conventions (spec/semantic_conventions.md, spec/tool_calling.md);
 * the corpus files are real exports. Expected values are read off the spans and files.
 */
import { describe, expect, it } from "vitest";
import { importTrace, spansToRuns, type NormalizedSpan } from "@/lib/importers";
import type { JournalEvent } from "@/lib/journal/types";
import { readCorpus } from "./helpers";

const T0 = 1_760_000_000_000_000_000n;
const MS = 1_000_000n;
function span(
  id: string,
  attributes: NormalizedSpan["attributes"],
  opts: { parent?: string; start: number; end: number; name?: string; scope?: string },
): NormalizedSpan {
  return {
    traceId: "aaaabbbbccccddddeeeeffff00001111",
    spanId: id.padStart(16, "0"),
    ...(opts.parent ? { parentSpanId: opts.parent.padStart(16, "0") } : {}),
    name: opts.name ?? `span ${id}`,
    kind: "internal",
    startTimeUnixNano: (T0 + BigInt(opts.start) * MS).toString(),
    endTimeUnixNano: (T0 + BigInt(opts.end) * MS).toString(),
    status: { code: "unset" },
    attributes,
    events: [],
    resource: {},
    ...(opts.scope ? { scope: { name: opts.scope } } : {}),
  };
}
const lc = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain", "schema", "messages", cls],
  kwargs,
});
const of = (evs: JournalEvent[], type: string) => evs.filter((e) => e.type === type);

// A LangChain chat model call as openinference-instrumentation-langchain records it: the
// flattened llm.input_messages carry only role and text, input.value the whole conversation.
const conversation = [
  lc("SystemMessage", { content: "You book flights." }),
  lc("HumanMessage", { content: "Oslo to Bergen on Friday" }),
  lc("AIMessage", {
    content: "",
    tool_calls: [{ name: "search_flights", args: { from: "OSL", to: "BGO" }, id: "call_1", type: "tool_call" }],
  }),
  lc("ToolMessage", { content: '{"flights": 2}', tool_call_id: "call_1", name: "search_flights" }),
];
const langchainLlm = {
  "openinference.span.kind": "LLM",
  "llm.model_name": "gpt-4o-mini",
  "input.value": JSON.stringify({ messages: [conversation] }),
  "input.mime_type": "application/json",
  "llm.input_messages.0.message.role": "user",
  "llm.input_messages.0.message.content": "Oslo to Bergen on Friday",
  "output.value": JSON.stringify({
    generations: [
      [
        {
          text: "",
          generation_info: { finish_reason: "tool_calls" },
          message: lc("AIMessage", {
            content: "",
            tool_calls: [{ name: "book_flight", args: { flight: "WF512" }, id: "call_2", type: "tool_call" }],
          }),
        },
      ],
    ],
  }),
  "llm.output_messages.0.message.role": "assistant",
  "llm.output_messages.0.message.content": "",
};
const expectedMessages = [
  { role: "system", content: "You book flights." },
  { role: "user", content: "Oslo to Bergen on Friday" },
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "search_flights", args: { from: "OSL", to: "BGO" } }] },
  { role: "tool", content: '{"flights": 2}', toolCallId: "call_1", name: "search_flights" },
];
// openinference-instrumentation-openai for the same call: OpenAI chat request and response.
const openaiLlm = {
  "openinference.span.kind": "LLM",
  "llm.model_name": "gpt-4o-mini-2024-07-18",
  "llm.provider": "openai",
  "input.value": JSON.stringify({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You book flights." },
      { role: "user", content: "Oslo to Bergen on Friday" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "search_flights", arguments: '{"from":"OSL","to":"BGO"}' } }],
      },
      { role: "tool", content: '{"flights": 2}', tool_call_id: "call_1" },
    ],
  }),
  "output.value": JSON.stringify({
    choices: [
      {
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_2", type: "function", function: { name: "book_flight", arguments: '{"flight":"WF512"}' } }],
        },
      },
    ],
  }),
  "llm.token_count.prompt": 120,
  "llm.token_count.completion": 14,
};

describe("OpenInference input.value / output.value", () => {
  it("a LangChain model call keeps the system prompt, earlier tool calls with object args and tool results", () => {
    const evs = spansToRuns([span("1", langchainLlm, { start: 0, end: 900, name: "ChatOpenAI" })])[0].events;
    const [req] = of(evs, "model.request");
    expect(req.data.messages).toEqual(expectedMessages);
    const [res] = of(evs, "model.response");
    expect(res.data.output).toEqual({ toolCalls: [{ id: "call_2", name: "book_flight", args: { flight: "WF512" } }] });
    expect(res.data.finishReason).toBe("tool_calls");
  });

  it("a tool span's LangChain {input: '<json>'} and tool_call.function.arguments become object arguments", () => {
    const evs = spansToRuns([
      span("1", { "openinference.span.kind": "CHAIN" }, { start: 0, end: 100 }),
      span(
        "2",
        {
          "openinference.span.kind": "TOOL",
          "tool.name": "search_flights",
          "input.value": JSON.stringify({ input: '{"from":"OSL","to":"BGO"}' }),
        },
        { parent: "1", start: 10, end: 20 },
      ),
      span(
        "3",
        {
          "openinference.span.kind": "TOOL",
          "tool.name": "book_flight",
          "tool_call.id": "call_2",
          "tool_call.function.arguments": '{"flight":"WF512"}',
          "input.value": "flight=WF512",
        },
        { parent: "1", start: 30, end: 40 },
      ),
    ])[0].events;
    const calls = of(evs, "tool.call").map((e) => [e.data.tool, e.data.args]);
    expect(calls).toEqual([
      ["search_flights", { from: "OSL", to: "BGO" }],
      ["book_flight", { flight: "WF512" }],
    ]);
    expect(of(evs, "tool.call")[1].data.call).toBe("call_2");
  });

  it("an Anthropic request's system prompt and an OpenAI Responses request's instructions are the first message", () => {
    const a = spansToRuns([
      span(
        "1",
        {
          "openinference.span.kind": "LLM",
          "input.value": JSON.stringify({
            model: "claude",
            system: "Be brief.",
            messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
          }),
          "output.value": JSON.stringify({
            type: "message",
            role: "assistant",
            content: [{ type: "text", text: "Hello." }],
            stop_reason: "end_turn",
          }),
        },
        { start: 0, end: 10 },
      ),
    ])[0].events;
    expect(of(a, "model.request")[0].data.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(of(a, "model.response")[0].data).toMatchObject({ output: { text: "Hello." }, finishReason: "end_turn" });
    const r = spansToRuns([
      span(
        "1",
        {
          "openinference.span.kind": "LLM",
          "input.value": JSON.stringify({ model: "gpt-4.1", instructions: "Use tools.", input: "weather in Oslo?" }),
          "output.value": JSON.stringify({
            object: "response",
            status: "completed",
            output: [{ type: "function_call", call_id: "fc_1", name: "weather", arguments: '{"city":"Oslo"}' }],
          }),
        },
        { start: 0, end: 10 },
      ),
    ])[0].events;
    expect(of(r, "model.request")[0].data.messages).toEqual([
      { role: "system", content: "Use tools." },
      { role: "user", content: "weather in Oslo?" },
    ]);
    expect(of(r, "model.response")[0].data.output).toEqual({ toolCalls: [{ id: "fc_1", name: "weather", args: { city: "Oslo" } }] });
  });
});

describe("duplicate instrumentation of one model call", () => {
  it("a LangChain span and the OpenAI span inside it are one model call", () => {
    const evs = spansToRuns([
      span("1", { "openinference.span.kind": "CHAIN" }, { start: 0, end: 1000, name: "AgentExecutor" }),
      span("2", langchainLlm, { parent: "1", start: 10, end: 900, name: "ChatOpenAI" }),
      span("3", openaiLlm, { parent: "2", start: 12, end: 880, name: "ChatCompletion" }),
    ])[0].events;
    expect(of(evs, "model.request")).toHaveLength(1);
    expect(of(evs, "model.request")[0].step).toBe("0000000000000003");
  });

  it("sibling LangChain and OpenAI spans with the same messages at overlapping times are one call, with its usage", () => {
    const evs = spansToRuns([
      span("1", { "openinference.span.kind": "CHAIN" }, { start: 0, end: 1000 }),
      span("2", langchainLlm, { parent: "1", start: 10, end: 900, name: "ChatOpenAI", scope: "openinference.instrumentation.langchain" }),
      span("3", openaiLlm, { parent: "1", start: 12, end: 880, name: "ChatCompletion", scope: "openinference.instrumentation.openai" }),
    ])[0].events;
    const reqs = of(evs, "model.request");
    expect(reqs).toHaveLength(1);
    // the provider's span lies inside the framework's: it keeps the call and its 120 + 14 tokens
    expect(reqs[0].step).toBe("0000000000000003");
    expect(reqs[0].data.messages).toEqual([
      { role: "system", content: "You book flights." },
      { role: "user", content: "Oslo to Bergen on Friday" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "search_flights", args: { from: "OSL", to: "BGO" } }] },
      { role: "tool", content: '{"flights": 2}', toolCallId: "call_1" },
    ]);
    expect(of(evs, "model.response")[0].data.usage).toEqual({ inputTokens: 120, outputTokens: 14 });
    // both spans stay visible as steps
    expect(of(evs, "step.start")).toHaveLength(3);
  });

  it("the same request again later (a retry, no overlap) is a second call", () => {
    const evs = spansToRuns([
      span("1", { "openinference.span.kind": "CHAIN" }, { start: 0, end: 3000 }),
      span("2", openaiLlm, { parent: "1", start: 10, end: 900 }),
      span("3", openaiLlm, { parent: "1", start: 1000, end: 1900 }),
    ])[0].events;
    expect(of(evs, "model.request")).toHaveLength(2);
  });
});

describe("OpenInference corpus exports", () => {
  const eventsOf = (file: string) => importTrace(readCorpus(file), { fileName: file }).runs[0].events;

  it("smolagents: the system prompt is the first message and the tool-calling response keeps web_search with object args", () => {
    const evs = eventsOf("openinference-otlp/quotient-smolagents-deep-research.json");
    const reqs = of(evs, "model.request");
    // 6 LLM spans (ChatCompletion), none wrapping another
    expect(reqs).toHaveLength(6);
    const withSystem = reqs.filter((r) => (r.data.messages as Array<{ role: string }>)[0]?.role === "system");
    // in time order the requests' input.value roles are [user], [system, user, assistant, user],
    // [user], then three starting with system: 4 of 6 begin with the system prompt
    expect(withSystem).toHaveLength(4);
    for (const r of reqs) for (const m of r.data.messages as Array<{ content: unknown }>) expect(typeof m.content).toBe("string");
    const calls = of(evs, "model.response").flatMap((e) => (e.data.output as { toolCalls?: unknown[] } | undefined)?.toolCalls ?? []);
    expect(calls).toContainEqual({
      id: "call_TzKWLXOFTa6np870KErcqInF",
      name: "web_search",
      args: { query: "AI 2025 forecasts from Gartner, IDC, Deloitte, McKinsey" },
    });
  });

  it("LangChain RAG: the ChatOpenAI call's one HumanMessage and its AIMessage answer", () => {
    const evs = eventsOf("openinference-otlp/quotient-rag-earnings-langchain.json");
    const [req] = of(evs, "model.request");
    const msgs = req.data.messages as Array<{ role: string; content: string }>;
    expect(msgs.map((m) => m.role)).toEqual(["user"]);
    expect(msgs[0].content).toContain("Answer the following question based on the provided context");
    const [res] = of(evs, "model.response");
    expect(res.data.output).toEqual({ text: "Meta Platforms Inc.'s revenue in Q4 2023 was $40.1 billion." });
    expect(res.data.finishReason).toBe("stop");
  });
});
