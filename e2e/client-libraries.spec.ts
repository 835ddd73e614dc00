import { expect, test, type APIRequestContext } from "@playwright/test";
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

/** A tracer provider exporting OTLP/HTTP JSON to Retrace; remembers the trace ids it saw. */
function tracing(serviceName: string, url = `${BASE}/v1/traces`) {
  const traceIds = new Set<string>();
  const recorder: SpanProcessor = {
    onStart: () => {},
    onEnd: (span: ReadableSpan) => void traceIds.add(span.spanContext().traceId),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [recorder, new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
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
function expectFaithful(events: Event[], script: { calls: ScriptedCall[]; failures: number; modelCalls: number }) {
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

  expect(
    types.filter((t) => t === "error"),
    "one error per failed tool",
  ).toHaveLength(script.failures);
  const failed = events.filter((e) => e.type === "tool.result" && e.data.status === "error");
  expect(failed, "failed tool results").toHaveLength(script.failures);
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
  expectFaithful(events, {
    modelCalls: 3,
    failures: 1,
    calls: [
      { id: "call_w1", tool: "get_weather", args: OSLO },
      { id: "call_b1", tool: "book_table", args: TABLE },
      { id: "call_b2", tool: "book_table", args: TABLE },
    ],
  });
});
