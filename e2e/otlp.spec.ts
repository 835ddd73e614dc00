import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { errorAnswerSchema, eventsPageSchema, importsAnswerSchema, otlpAnswerSchema, runDetailSchema } from "../lib/view/api-types";
import { answer, getAnswer } from "./api-answers";
import { SERVERS } from "./servers";

/**
 * The real OpenTelemetry Node SDK with the OTLP/HTTP exporter (JSON and protobuf), pointed
 * at a running Retrace: the spans of one trace, exported in two batches, become one run.
 */
async function runInstrumentedAgent(exporter: JsonExporter | ProtoExporter): Promise<string> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "weather-agent" }),
    spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 2, scheduledDelayMillis: 50 })],
  });
  const tracer = provider.getTracer("e2e");
  let traceId = "";
  await tracer.startActiveSpan(
    "invoke_agent weather-agent",
    { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-agent" } },
    async (root) => {
      traceId = root.spanContext().traceId;
      const ctx = trace.setSpan(context.active(), root);
      const llm = tracer.startSpan(
        "chat gpt-4o",
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 120,
            "gen_ai.usage.output_tokens": 30,
            // the model asks for the tool call below (same id): the cause orders them
            "gen_ai.output.messages": JSON.stringify([
              { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }] },
            ]),
          },
        },
        ctx,
      );
      llm.end();
      const tool = tracer.startSpan(
        "execute_tool get_weather",
        {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": '{"city":"Oslo"}',
          },
        },
        ctx,
      );
      tool.setStatus({ code: SpanStatusCode.ERROR, message: "upstream 503" });
      tool.end();
      root.end();
    },
  );
  await provider.forceFlush();
  await provider.shutdown();
  return traceId;
}

for (const { name, base } of SERVERS) {
  for (const [encoding, make] of [
    ["JSON", () => new JsonExporter({ url: `${base}/v1/traces` })],
    ["protobuf", () => new ProtoExporter({ url: `${base}/v1/traces` })],
  ] as const) {
    test(`OpenTelemetry SDK → /v1/traces (${encoding}) on ${name}: one run with model, tool and error events, one error counted`, async ({
      request,
    }) => {
      const traceId = await runInstrumentedAgent(make());
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const runId = `otel-${traceId}`;
      const run = await getAnswer(request, `${base}/api/runs/${runId}`, runDetailSchema);
      expect(run).toMatchObject({ id: runId, fidelity: "trace" });
      const events = (await getAnswer(request, `${base}/api/runs/${runId}/events?limit=100`, eventsPageSchema)).events.map((e) => e.event);
      const types = events.map((e) => e.type);
      expect(types[0]).toBe("run.start");
      expect(types.filter((t) => t === "step.start")).toHaveLength(3);
      expect(events.find((e) => e.type === "model.response")?.data.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
      expect(events.find((e) => e.type === "tool.call")?.data).toMatchObject({
        tool: "get_weather",
        args: { city: "Oslo" },
      });
      // one failed tool is one error event (its ancestors inherit nothing), and the tool call
      // comes after the model response that requested it, though both started in the same
      // millisecond and the tool's recorded end may be the earlier one
      expect(types.filter((t) => t === "error")).toHaveLength(1);
      // and one error in the runs list (not its result, its error event and its step's end too)
      expect(run.errorCount).toBe(1);
      expect(types.indexOf("model.response")).toBeLessThan(types.indexOf("tool.call"));
      expect(events[0].data.source).toMatchObject({ format: encoding === "JSON" ? "otlp-json" : "otlp-protobuf" });
      expect(types.at(-1)).toBe("run.end");
    });
  }
}

test("POST /api/imports detects a trace export and stores it as a trace-fidelity run", async ({ request }) => {
  const body = fs.readFileSync("tests/fixtures/corpus/langfuse/langfuse-qa-chatbot-mcp-toolcall.json");
  const res = await request.post("/api/imports?name=langfuse.json", { data: body, headers: { "content-type": "application/json" } });
  const json = await answer(res, importsAnswerSchema, 201);
  expect(json.format).toBe("langfuse");
  expect(json.runs[0]).toMatchObject({ status: "stored" });
  const run = await getAnswer(request, `/api/runs/${json.runs[0].run}`, runDetailSchema);
  expect(run.fidelity).toBe("trace");
});

test("POST /v1/traces as JSON answers an OTLP export response; a wrong content type answers {error}, an empty upload a report saying so", async ({
  request,
}) => {
  const span = {
    traceId: "5b8efff798038103d269b633813fc60c",
    spanId: "eee19b7ec3c1b174",
    name: "invoke_agent e2e",
    kind: 1,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000001000000000",
    attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } }],
  };
  const otlp = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "e2e" }, spans: [span] }] }] };
  const ok = await answer(
    await request.post("/v1/traces", { data: otlp, headers: { "content-type": "application/json" } }),
    otlpAnswerSchema,
    200,
  );
  expect(ok.partialSuccess).toBeUndefined();
  await answer(
    await request.post("/v1/traces", { data: "<xml/>", headers: { "content-type": "application/xml" } }),
    errorAnswerSchema,
    415,
  );
  await answer(
    await request.post("/v1/traces", { data: Buffer.from("{"), headers: { "content-type": "application/json" } }),
    errorAnswerSchema,
    400,
  );
  const empty = await answer(await request.post("/api/imports", { data: Buffer.alloc(0) }), importsAnswerSchema, 400);
  expect(empty.error).toMatch(/empty/);
  expect(empty.runs).toEqual([]);
});

test("Langfuse's OTLP path /api/public/otel/v1/traces is the same receiver; an unknown /api path answers a JSON 404", async ({
  request,
}) => {
  const traceId = "6c1f0e2d3b4a59687766554433221100";
  const span = {
    traceId,
    spanId: "1a2b3c4d5e6f7081",
    name: "langfuse-trace",
    kind: 1,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000002000000000",
    attributes: [{ key: "langfuse.observation.type", value: { stringValue: "span" } }],
  };
  const otlp = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "langfuse-sdk" }, spans: [span] }] }] };
  await answer(
    await request.post("/api/public/otel/v1/traces", { data: otlp, headers: { "content-type": "application/json" } }),
    otlpAnswerSchema,
    200,
  );
  const run = await getAnswer(request, `/api/runs/otel-${traceId}`, runDetailSchema);
  expect(run.fidelity).toBe("trace");
  for (const res of [await request.get("/api/no/such/thing"), await request.post("/api/public/otel/v1/metrics", { data: {} })]) {
    expect(res.headers()["content-type"]).toMatch(/application\/json/);
    expect((await answer(res, errorAnswerSchema, 404)).error).toMatch(/no such API endpoint/);
  }
});

test("a tool span that comes in a later request than the model call that asked for it is linked to that call", async ({ request }) => {
  // batching exporters (LangChain, Langfuse) send a model call and the tool it requested in
  // different requests; the tool span names no call id (OpenInference when a tool fails)
  const traceId = "7d2e1f3a4b5c6d7e8f90a1b2c3d4e5f6";
  const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const span = (spanId: string, name: string, startMs: number, endMs: number, attributes: object[]) => ({
    traceId,
    spanId,
    parentSpanId: "00000000000000a1", // the agent span, still running
    name,
    kind: 1,
    startTimeUnixNano: `${1700000000000 + startMs}000000`,
    endTimeUnixNano: `${1700000000000 + endMs}000000`,
    attributes,
  });
  const args = { restaurant: "Maaemo", guests: 2 };
  const chat = span("00000000000000b1", "chat m", 0, 40, [
    attr("gen_ai.operation.name", "chat"),
    attr("gen_ai.request.model", "m"),
    attr("gen_ai.input.messages", JSON.stringify([{ role: "user", content: "Book Maaemo for two" }])),
    attr(
      "gen_ai.output.messages",
      JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: "call_book_1", name: "book_table", arguments: args }] }]),
    ),
  ]);
  const tool = {
    ...span("00000000000000b2", "book_table", 45, 60, [
      attr("openinference.span.kind", "TOOL"),
      attr("tool.name", "book_table"),
      attr("input.value", JSON.stringify(args)),
    ]),
    status: { code: 2, message: "no table free" },
  };
  const post = async (s: object) =>
    answer(
      await request.post("/v1/traces", {
        data: { resourceSpans: [{ resource: { attributes: [attr("service.name", "split-agent")] }, scopeSpans: [{ spans: [s] }] }] },
        headers: { "content-type": "application/json" },
      }),
      otlpAnswerSchema,
      200,
    );
  await post(chat);
  await post(tool);
  const runId = `otel-${traceId}`;
  const run = await getAnswer(request, `/api/runs/${runId}`, runDetailSchema);
  const { events } = await getAnswer(request, `/api/runs/${runId}/events?limit=500`, eventsPageSchema);
  const response = events.find((e) => e.event.type === "model.response")!.event;
  const call = events.find((e) => e.event.type === "tool.call")!.event;
  expect(call.data.call, "the tool call carries the id the model requested").toBe("call_book_1");
  expect(call.seq).toBeGreaterThan(response.seq);
  expect(events.find((e) => e.event.type === "tool.result")!.event.data).toMatchObject({ call: "call_book_1", status: "error" });
  // the failed tool is one error in the runs list
  expect(run.errorCount).toBe(1);
});
