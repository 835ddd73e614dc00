import { expect, test, type APIRequestContext } from "@playwright/test";
import { AsyncLocalStorage } from "node:async_hooks";
import { ROOT_CONTEXT, context, type Context, type ContextManager } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { eventsPageSchema, runDetailSchema, type EventsPage } from "../lib/view/api-types";
import { getAnswer } from "./api-answers";
import { SERVERS } from "./servers";

/**
 * Real client libraries, each driven by its mock or a local fake model (no network beyond
 * 127.0.0.1), exporting over OTLP to a running Retrace exactly as they would in production.
 * Each test scripts the model's tool calls and which tool fails, and checks what Retrace
 * stored against that script: every tool call after the model response that asked for it,
 * every message with content or tool calls, object arguments, one error per failed tool, and
 * the agent name where the library records one.
 */
const BASE = SERVERS[0].base;

type Event = { seq: number; type: string; data: Record<string, unknown> };

/**
 * The active-span context across awaits (what `NodeTracerProvider.register()` installs), set
 * once without registering a global provider: each test brings its own provider.
 */
class AsyncContext implements ContextManager {
  private readonly store = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.store.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A) {
    return this.store.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== "function") return target;
    const f = target as (...a: unknown[]) => unknown;
    return ((...a: unknown[]) => this.with(ctx, () => f(...a))) as T;
  }
  enable() {
    return this;
  }
  disable() {
    this.store.disable();
    return this;
  }
}
context.setGlobalContextManager(new AsyncContext());

/** A tracer provider exporting OTLP/HTTP JSON to Retrace (or through `exportWith`); remembers the trace ids it saw. */
function tracing(serviceName: string, exportWith?: SpanProcessor) {
  const traceIds = new Set<string>();
  const recorder: SpanProcessor = {
    onStart: () => {},
    onEnd: (span: ReadableSpan) => {
      traceIds.add(span.spanContext().traceId);
      if (process.env.DUMP_SPANS)
        console.log("SPAN", span.name, span.spanContext().spanId, span.startTime.join("."), span.endTime.join("."));
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [recorder, exportWith ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${BASE}/v1/traces` }))],
  });
  return {
    provider,
    traceIds,
    /** Exports what is pending (the batch processor would wait ~5 s) and stops the provider. */
    async finish() {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}

/** The stored events of the one run the trace became. */
async function storedRun(request: APIRequestContext, traceIds: Set<string>) {
  expect([...traceIds], "one trace").toHaveLength(1);
  const runId = `otel-${[...traceIds][0]}`;
  const run = await getAnswer(request, `${BASE}/api/runs/${runId}`, runDetailSchema);
  const events: Event[] = [];
  let after: number | null = -1;
  while (after !== null) {
    const page: EventsPage = await getAnswer(request, `${BASE}/api/runs/${runId}/events?limit=500&after=${after}`, eventsPageSchema);
    events.push(...page.events.map((e) => e.event));
    after = page.nextAfter;
  }
  if (process.env.DUMP_EVENTS) console.log(JSON.stringify(events.map((e) => [e.seq, e.type, e.data])));
  return { run, events };
}

/** JSON with sorted keys, to sort calls whose argument keys came back in another order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

type ScriptedCall = { id?: string; tool: string; args: Record<string, unknown> };
type Message = { role?: unknown; content?: unknown; toolCalls?: unknown };

/**
 * The checks every library shares, against what the test scripted: the tool calls (in the
 * order the model asked for them), how many of them fail, and the agent name if any.
 */
function expectFaithful(
  run: { errorCount: number },
  events: Event[],
  script: { calls: ScriptedCall[]; failures: number; modelCalls: number },
) {
  const types = events.map((e) => e.type);
  expect(types[0]).toBe("run.start");
  expect(types.at(-1)).toBe("run.end");
  expect(
    types.filter((t) => t === "model.response"),
    "model calls",
  ).toHaveLength(script.modelCalls);

  const toolCalls = events.filter((e) => e.type === "tool.call");
  // parallel calls may run in any order; each is checked against its requester below
  const byTool = <T extends { tool: unknown; args: unknown }>(list: T[]) =>
    list.map((c) => ({ tool: c.tool, args: c.args })).sort((a, b) => canonical(a).localeCompare(canonical(b)));
  expect(byTool(toolCalls.map((e) => ({ tool: e.data.tool, args: e.data.args }))), "tool calls with object arguments").toEqual(
    byTool(script.calls),
  );

  // each tool call comes after the model response that requested it (same call id)
  const responses = events.filter((e) => e.type === "model.response");
  for (const call of toolCalls) {
    const asker = responses.find((r) => {
      const requested = ((r.data.output as { toolCalls?: { id?: string }[] } | undefined)?.toolCalls ?? []).map((t) => t.id);
      return requested.includes(call.data.call as string);
    });
    expect(asker, `the response that requested ${String(call.data.call)}`).toBeDefined();
    expect(asker!.seq, `${String(call.data.tool)} after the response that requested it`).toBeLessThan(call.seq);
  }
  for (const scripted of script.calls.filter((c) => c.id)) {
    expect(toolCalls.map((e) => e.data.call)).toContain(scripted.id);
  }

  // messages: every one has text content or tool calls, never `undefined` or an empty shell
  const requests = events.filter((e) => e.type === "model.request");
  expect(requests, "a model request per response").toHaveLength(script.modelCalls);
  for (const req of requests) {
    const messages = req.data.messages as Message[] | undefined;
    expect(messages?.length ?? 0, "messages recorded").toBeGreaterThan(0);
    for (const m of messages ?? []) {
      expect(typeof m.role).toBe("string");
      const hasText = typeof m.content === "string" && m.content.length > 0 && m.content !== "undefined";
      const hasCalls = Array.isArray(m.toolCalls) && m.toolCalls.length > 0;
      expect(hasText || hasCalls, `message ${JSON.stringify(m)} has content or tool calls`).toBe(true);
    }
  }

  const failed = events.filter((e) => e.type === "tool.result" && e.data.status === "error");
  expect(failed, "failed tool results").toHaveLength(script.failures);
  // the runs list's count: a failed tool is one error, not its result, its exception and
  // the error status of every span around it
  expect(run.errorCount, "one error per failed tool").toBe(script.failures);
  // an error event, when the library records the exception, names the failed call
  for (const e of events.filter((x) => x.type === "error")) {
    expect(
      failed.map((f) => f.data.call),
      "an error event names a failed call",
    ).toContain(e.data.call);
  }
  return { toolCalls, responses, requests };
}

/** Tool arguments every library's script shares. */
const OSLO = { city: "Oslo", unit: "celsius" };
const TABLE = { restaurant: "Maaemo", guests: 2, time: { day: "friday", hour: 19 } };

test("Vercel AI SDK 7 (MockLanguageModelV4, @ai-sdk/otel): tool calls, a tool that fails once, messages", async ({ request }) => {
  const { generateText, registerTelemetry, tool, jsonSchema, isStepCount } = await import("ai");
  const { MockLanguageModelV4 } = await import("ai/test");
  const { OpenTelemetry } = await import("@ai-sdk/otel");
  const t = tracing("ai-sdk-agent");
  registerTelemetry(new OpenTelemetry({ tracer: t.provider.getTracer("ai") }));

  const usage = {
    inputTokens: { total: 40, noCache: 40, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 10, text: 10, reasoning: undefined },
  };
  const toolCall = (toolCallId: string, toolName: string, input: object) => ({
    type: "tool-call" as const,
    toolCallId,
    toolName,
    input: JSON.stringify(input),
  });
  // step 1 asks for the weather and a table; the booking fails once; step 2 retries it
  const model = new MockLanguageModelV4({
    modelId: "mock-model",
    doGenerate: [
      {
        content: [toolCall("call_w1", "get_weather", OSLO), toolCall("call_b1", "book_table", TABLE)],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [toolCall("call_b2", "book_table", TABLE)],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "Booked Maaemo for Friday 19:00; 4°C in Oslo." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });
  let bookings = 0;
  const result = await generateText({
    model,
    system: "You book tables.",
    prompt: "Book Maaemo for two on Friday at 19 and tell me the weather.",
    stopWhen: isStepCount(5),
    telemetry: { functionId: "booking-agent" },
    tools: {
      get_weather: tool({
        description: "Weather for a city",
        inputSchema: jsonSchema<{ city: string; unit: string }>({
          type: "object",
          properties: { city: { type: "string" }, unit: { type: "string" } },
        }),
        execute: async ({ city }) => ({ city, temperature: 4 }),
      }),
      book_table: tool({
        description: "Book a table",
        inputSchema: jsonSchema<typeof TABLE>({ type: "object" }),
        execute: async () => {
          bookings += 1;
          if (bookings === 1) throw new Error("booking service unavailable");
          return { confirmation: "MA-1" };
        },
      }),
    },
  });
  await t.finish();
  expect(result.text).toMatch(/Booked/);
  expect(bookings).toBe(2);

  const { run, events } = await storedRun(request, t.traceIds);
  // the AI SDK's agent name is the call's functionId
  expect(run.agent).toBe("booking-agent");
  expectFaithful(run, events, {
    modelCalls: 3,
    failures: 1,
    calls: [
      { id: "call_w1", tool: "get_weather", args: OSLO },
      { id: "call_b1", tool: "book_table", args: TABLE },
      { id: "call_b2", tool: "book_table", args: TABLE },
    ],
  });
});

/**
 * A local stand-in for OpenAI's chat completions endpoint: answers each POST with the next
 * scripted assistant message (tool calls or text), in order.
 */
type ScriptedReply = { toolCalls?: { id: string; name: string; args: object }[]; text?: string };
async function fakeOpenAI(replies: ScriptedReply[]) {
  const { createServer } = await import("node:http");
  const seen: unknown[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push(body ? JSON.parse(body) : null);
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions") || next >= replies.length) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `unscripted ${req.url}` } }));
        return;
      }
      const reply = replies[next++];
      const toolCalls = reply.toolCalls?.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      }));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${next}`,
          object: "chat.completion",
          created: 1_764_000_000,
          model: "gpt-4o-mini",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: reply.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
              finish_reason: toolCalls ? "tool_calls" : "stop",
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { baseURL: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The model's script for the OpenAI SDK tests: weather and a booking, the booking retried, then an answer. */
const OPENAI_SCRIPT: ScriptedReply[] = [
  {
    toolCalls: [
      { id: "call_w1", name: "get_weather", args: OSLO },
      { id: "call_b1", name: "book_table", args: TABLE },
    ],
  },
  { toolCalls: [{ id: "call_b2", name: "book_table", args: TABLE }] },
  { text: "Booked Maaemo for Friday 19:00; 4°C in Oslo." },
];
const OPENAI_EXPECTED = {
  modelCalls: 3,
  failures: 1,
  calls: [
    { id: "call_w1", tool: "get_weather", args: OSLO },
    { id: "call_b1", tool: "book_table", args: TABLE },
    { id: "call_b2", tool: "book_table", args: TABLE },
  ],
};

type ToolSpan = (call: { id: string; name: string; args: string }, run: () => Promise<string>) => Promise<string>;

/**
 * A hand-written agent loop on the OpenAI SDK, as users write one: call the model, run the
 * tools it asks for (the first booking fails), send the results back, until it answers.
 * `toolSpan` wraps each tool run in the span convention of the instrumentation under test.
 */
async function openAIAgentLoop(OpenAI: typeof import("openai").OpenAI, baseURL: string, toolSpan: ToolSpan) {
  const client = new OpenAI({ apiKey: "test-key", baseURL, maxRetries: 0 });
  type Msg = import("openai").OpenAI.Chat.Completions.ChatCompletionMessageParam;
  const messages: Msg[] = [
    { role: "system", content: "You book tables." },
    { role: "user", content: "Book Maaemo for two on Friday at 19 and tell me the weather." },
  ];
  const tools = ["get_weather", "book_table"].map((name) => ({
    type: "function" as const,
    function: { name, description: name.replace("_", " "), parameters: { type: "object", properties: {} } },
  }));
  let bookings = 0;
  for (let turn = 0; turn < 5; turn++) {
    const res = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools });
    const msg = res.choices[0].message;
    messages.push(msg);
    const calls = (msg.tool_calls ?? []).flatMap((c) => (c.type === "function" ? [c] : []));
    if (calls.length === 0) return msg.content;
    for (const c of calls) {
      const content = await toolSpan({ id: c.id, name: c.function.name, args: c.function.arguments }, async () => {
        if (c.function.name === "get_weather") return JSON.stringify({ city: "Oslo", temperature: 4 });
        bookings += 1;
        if (bookings === 1) throw new Error("booking service unavailable");
        return JSON.stringify({ confirmation: "MA-1" });
      }).catch((e: Error) => `Error: ${e.message}`);
      messages.push({ role: "tool", tool_call_id: c.id, content });
    }
  }
  throw new Error("the scripted model never answered");
}

/** Restores OpenAI's prototype methods an instrumentation wrapped, so the next test sees a clean SDK. */
function keepOpenAIPristine(OpenAI: typeof import("openai").OpenAI) {
  const targets = [
    OpenAI.Chat.Completions.prototype,
    OpenAI.Completions.prototype,
    OpenAI.Responses.prototype,
    OpenAI.Embeddings.prototype,
  ];
  const saved = targets.map((t) => t.create);
  return () => targets.forEach((t, i) => Object.assign(t, { create: saved[i] }));
}

test("OpenAI SDK + OpenInference instrumentation against a fake server: tool calls, one failure, messages, agent", async ({ request }) => {
  const openai = await import("openai");
  const { OpenAIInstrumentation } = await import("@arizeai/openinference-instrumentation-openai");
  const { SpanStatusCode } = await import("@opentelemetry/api");
  const restore = keepOpenAIPristine(openai.OpenAI);
  const fake = await fakeOpenAI(OPENAI_SCRIPT);
  const t = tracing("openinference-agent");
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: t.provider });
  try {
    // OpenInference reads `module.OpenAI` at run time: it wants the namespace, whatever its types say
    instrumentation.manuallyInstrument(openai as unknown as Parameters<typeof instrumentation.manuallyInstrument>[0]);
    const tracer = t.provider.getTracer("app");
    const answer = await tracer.startActiveSpan(
      "booking-agent",
      { attributes: { "openinference.span.kind": "AGENT", "agent.name": "booking-agent" } },
      async (root) => {
        // tools are the application's own code: OpenInference TOOL spans, as its docs show
        const toolSpan: ToolSpan = (call, run) =>
          tracer.startActiveSpan(
            call.name,
            {
              attributes: {
                "openinference.span.kind": "TOOL",
                "tool.name": call.name,
                "tool_call.id": call.id,
                "input.value": call.args,
                "input.mime_type": "application/json",
              },
            },
            async (span) => {
              try {
                const out = await run();
                span.setAttribute("output.value", out);
                return out;
              } catch (e) {
                span.recordException(e as Error);
                span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
                throw e;
              } finally {
                span.end();
              }
            },
          );
        try {
          return await openAIAgentLoop(openai.OpenAI, fake.baseURL, toolSpan);
        } finally {
          root.end();
        }
      },
    );
    expect(answer).toMatch(/Booked/);
  } finally {
    instrumentation.disable();
    restore();
    await t.finish();
    await fake.close();
  }
  expect(fake.seen).toHaveLength(OPENAI_SCRIPT.length);
  const { run, events } = await storedRun(request, t.traceIds);
  expect(run.agent).toBe("booking-agent");
  const { requests } = expectFaithful(run, events, OPENAI_EXPECTED);
  // the system prompt and the earlier turns reach the stored request
  const last = requests.at(-1)!.data.messages as Message[];
  expect(last[0]).toMatchObject({ role: "system", content: "You book tables." });
  expect(last.filter((m) => m.role === "tool")).toHaveLength(3);
});

test("OpenAI SDK + Traceloop (OpenLLMetry) instrumentation against a fake server: tool calls, one failure, messages, agent", async ({
  request,
}) => {
  const openai = await import("openai");
  const { OpenAIInstrumentation } = await import("@traceloop/instrumentation-openai");
  const { SpanStatusCode } = await import("@opentelemetry/api");
  const restore = keepOpenAIPristine(openai.OpenAI);
  const fake = await fakeOpenAI(OPENAI_SCRIPT);
  const t = tracing("traceloop-agent");
  const instrumentation = new OpenAIInstrumentation({ traceContent: true, enrichTokens: false });
  instrumentation.setTracerProvider(t.provider);
  try {
    // Traceloop wants the OpenAI class, not the module namespace
    instrumentation.manuallyInstrument(openai.OpenAI);
    const tracer = t.provider.getTracer("app");
    // the agent and its tools in the OTel GenAI conventions OpenLLMetry follows
    const answer = await tracer.startActiveSpan(
      "invoke_agent booking-agent",
      { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "booking-agent" } },
      async (root) => {
        const toolSpan: ToolSpan = (call, run) =>
          tracer.startActiveSpan(
            `execute_tool ${call.name}`,
            {
              attributes: {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call.name,
                "gen_ai.tool.call.id": call.id,
                "gen_ai.tool.call.arguments": call.args,
              },
            },
            async (span) => {
              try {
                const out = await run();
                span.setAttribute("gen_ai.tool.call.result", out);
                return out;
              } catch (e) {
                span.recordException(e as Error);
                span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
                throw e;
              } finally {
                span.end();
              }
            },
          );
        try {
          return await openAIAgentLoop(openai.OpenAI, fake.baseURL, toolSpan);
        } finally {
          root.end();
        }
      },
    );
    expect(answer).toMatch(/Booked/);
  } finally {
    instrumentation.disable();
    restore();
    await t.finish();
    await fake.close();
  }
  expect(fake.seen).toHaveLength(OPENAI_SCRIPT.length);
  const { run, events } = await storedRun(request, t.traceIds);
  expect(run.agent).toBe("booking-agent");
  const { requests } = expectFaithful(run, events, OPENAI_EXPECTED);
  const last = requests.at(-1)!.data.messages as Message[];
  expect(last[0]).toMatchObject({ role: "system", content: "You book tables." });
  expect(last.filter((m) => m.role === "tool")).toHaveLength(3);
});

test("LangChain.js createAgent + OpenInference instrumentation with a scripted chat model: tool calls, one failure, messages, agent", async ({
  request,
}) => {
  const { BaseChatModel } = await import("@langchain/core/language_models/chat_models");
  const { AIMessage } = await import("@langchain/core/messages");
  const { tool } = await import("@langchain/core/tools");
  const callbacks = await import("@langchain/core/callbacks/manager");
  const { createAgent, toolErrorMiddleware } = await import("langchain");
  const { LangChainInstrumentation } = await import("@arizeai/openinference-instrumentation-langchain");
  type Messages = Parameters<InstanceType<typeof BaseChatModel>["_generate"]>[0];

  // the model's script: the same turns as the other libraries, one AIMessage per call
  const turns = [
    new AIMessage({
      content: "",
      tool_calls: [
        { id: "call_w1", name: "get_weather", args: OSLO, type: "tool_call" },
        { id: "call_b1", name: "book_table", args: TABLE, type: "tool_call" },
      ],
    }),
    new AIMessage({ content: "", tool_calls: [{ id: "call_b2", name: "book_table", args: TABLE, type: "tool_call" }] }),
    new AIMessage({ content: "Booked Maaemo for Friday 19:00; 4°C in Oslo." }),
  ];
  class ScriptedChatModel extends BaseChatModel {
    calls = 0;
    _llmType() {
      return "scripted";
    }
    override bindTools() {
      return this;
    }
    async _generate(_messages: Messages) {
      const message = turns[this.calls++];
      if (!message) throw new Error("the script has no more turns");
      const text = typeof message.content === "string" ? message.content : "";
      return {
        generations: [{ text, message }],
        llmOutput: { tokenUsage: { promptTokens: 50, completionTokens: 12, totalTokens: 62 } },
      };
    }
  }
  const model = new ScriptedChatModel({});

  const t = tracing("langchain-agent");
  const instrumentation = new LangChainInstrumentation({ tracerProvider: t.provider });
  instrumentation.manuallyInstrument(callbacks);
  let bookings = 0;
  try {
    const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 4 }), {
      name: "get_weather",
      description: "Weather for a city",
      schema: { type: "object", properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] },
    });
    const bookTable = tool(
      async () => {
        bookings += 1;
        if (bookings === 1) throw new Error("booking service unavailable");
        return JSON.stringify({ confirmation: "MA-1" });
      },
      { name: "book_table", description: "Book a table", schema: { type: "object", properties: {} } },
    );
    const agent = createAgent({
      name: "booking-agent",
      model,
      tools: [getWeather, bookTable],
      systemPrompt: "You book tables.",
      // the failed booking goes back to the model as an error ToolMessage, as users configure it
      middleware: [toolErrorMiddleware({ onError: (e) => `Error: ${(e as Error).message}` })],
    });
    const out = await agent.invoke({
      messages: [{ role: "user", content: "Book Maaemo for two on Friday at 19 and tell me the weather." }],
    });
    expect(String(out.messages.at(-1)?.content)).toMatch(/Booked/);
  } finally {
    instrumentation.disable();
    await t.finish();
  }
  expect(model.calls).toBe(turns.length);
  expect(bookings).toBe(2);
  const { run, events } = await storedRun(request, t.traceIds);
  expect(run.agent).toBe("booking-agent");
  const { requests } = expectFaithful(run, events, OPENAI_EXPECTED);
  const last = requests.at(-1)!.data.messages as Message[];
  expect(last[0]).toMatchObject({ role: "system", content: "You book tables." });
  expect(last.filter((m) => m.role === "tool")).toHaveLength(3);
});

/** A hand-instrumented agent loop on the Langfuse SDK, given only `baseUrl` = Retrace; the stored run. */
async function langfuseRun(request: APIRequestContext) {
  const { LangfuseSpanProcessor } = await import("@langfuse/otel");
  const { setLangfuseTracerProvider, startActiveObservation } = await import("@langfuse/tracing");
  // only the base URL: the SDK posts to /api/public/otel/v1/traces on it
  const processor = new LangfuseSpanProcessor({ baseUrl: BASE, publicKey: "pk-lf-retrace", secretKey: "sk-lf-retrace" });
  const t = tracing("langfuse-agent", processor);
  setLangfuseTracerProvider(t.provider);

  // a hand-instrumented agent loop, as Langfuse's docs show it without a framework
  type ChatMessage = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
  const messages: ChatMessage[] = [
    { role: "system", content: "You book tables." },
    { role: "user", content: "Book Maaemo for two on Friday at 19 and tell me the weather." },
  ];
  let bookings = 0;
  try {
    await startActiveObservation(
      "booking-agent",
      async (agent) => {
        agent.update({ input: messages[1].content });
        for (const reply of OPENAI_SCRIPT) {
          const assistant: ChatMessage = {
            role: "assistant",
            content: reply.text ?? null,
            ...(reply.toolCalls
              ? {
                  tool_calls: reply.toolCalls.map((c) => ({
                    id: c.id,
                    type: "function",
                    function: { name: c.name, arguments: JSON.stringify(c.args) },
                  })),
                }
              : {}),
          };
          await startActiveObservation(
            "chat gpt-4o-mini",
            async (generation) => {
              generation.update({
                model: "gpt-4o-mini",
                input: [...messages],
                output: assistant,
                usageDetails: { input: 50, output: 12, total: 62 },
              });
            },
            { asType: "generation" },
          );
          messages.push(assistant);
          for (const call of reply.toolCalls ?? []) {
            const content = await startActiveObservation(
              call.name,
              async (span) => {
                span.update({ input: call.args });
                if (call.name === "book_table" && ++bookings === 1) {
                  span.update({ level: "ERROR", statusMessage: "booking service unavailable" });
                  return "Error: booking service unavailable";
                }
                const out = call.name === "get_weather" ? { city: "Oslo", temperature: 4 } : { confirmation: "MA-1" };
                span.update({ output: out });
                return JSON.stringify(out);
              },
              { asType: "tool" },
            );
            messages.push({ role: "tool", tool_call_id: call.id, content });
          }
        }
        agent.update({ output: messages.at(-1)?.content });
      },
      { asType: "agent" },
    );
  } finally {
    await t.finish();
  }
  expect(bookings).toBe(2);
  return storedRun(request, t.traceIds);
}

test("Langfuse SDK (@langfuse/otel + @langfuse/tracing) with only baseUrl set to Retrace: observations become model and tool calls", async ({
  request,
}) => {
  const { run, events } = await langfuseRun(request);
  // the agent observation's name
  expect(run.agent).toBe("booking-agent");
  const { requests } = expectFaithful(run, events, OPENAI_EXPECTED);
  expect(requests[0].data.messages as Message[]).toEqual([
    { role: "system", content: "You book tables." },
    { role: "user", content: "Book Maaemo for two on Friday at 19 and tell me the weather." },
  ]);
});

test("OpenAI Agents SDK + OpenInference instrumentation, chat completions on a fake server: tool calls, one failure, messages, agent", async ({
  request,
}) => {
  const agents = await import("@openai/agents");
  const { OpenAI } = await import("openai");
  const { OpenAIAgentsInstrumentation } = await import("@arizeai/openinference-instrumentation-openai-agents");
  const fake = await fakeOpenAI(OPENAI_SCRIPT);
  const t = tracing("openai-agents");
  // exclusive: the SDK's own exporter (to OpenAI, over the network) is replaced
  const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: t.provider });
  instrumentation.manuallyInstrument(agents);
  agents.setDefaultOpenAIClient(new OpenAI({ apiKey: "test-key", baseURL: fake.baseURL, maxRetries: 0 }));
  agents.setOpenAIAPI("chat_completions");
  let bookings = 0;
  try {
    const getWeather = agents.tool({
      name: "get_weather",
      description: "Weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, unit: { type: "string" } },
        required: [],
        additionalProperties: true,
      },
      strict: false,
      execute: async (input) => JSON.stringify({ city: (input as { city?: string }).city, temperature: 4 }),
    });
    const bookTable = agents.tool({
      name: "book_table",
      description: "Book a table",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async () => {
        bookings += 1;
        if (bookings === 1) throw new Error("booking service unavailable");
        return JSON.stringify({ confirmation: "MA-1" });
      },
    });
    const agent = new agents.Agent({
      name: "booking-agent",
      instructions: "You book tables.",
      model: "gpt-4o-mini",
      tools: [getWeather, bookTable],
    });
    const result = await agents.run(agent, "Book Maaemo for two on Friday at 19 and tell me the weather.");
    expect(String(result.finalOutput)).toMatch(/Booked/);
  } finally {
    await t.finish();
    instrumentation.disable();
    await fake.close();
  }
  expect(fake.seen).toHaveLength(OPENAI_SCRIPT.length);
  expect(bookings).toBe(2);
  const { run, events } = await storedRun(request, t.traceIds);
  expect(run.agent).toBe("booking-agent");
  const { requests } = expectFaithful(run, events, OPENAI_EXPECTED);
  const last = requests.at(-1)!.data.messages as Message[];
  expect(last[0]).toMatchObject({ role: "system", content: "You book tables." });
  expect(last.filter((m) => m.role === "tool")).toHaveLength(3);
});
