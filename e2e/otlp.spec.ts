import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
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
    test(`OpenTelemetry SDK → /v1/traces (${encoding}) on ${name}: one run with model, tool and error events`, async ({ request }) => {
      const traceId = await runInstrumentedAgent(make());
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const runId = `otel-${traceId}`;
      const run = await (await request.get(`${base}/api/runs/${runId}`)).json();
      expect(run).toMatchObject({ id: runId, fidelity: "trace" });
      const events = (await (await request.get(`${base}/api/runs/${runId}/events?limit=100`)).json()).events.map(
        (e: { event: { type: string; data: Record<string, unknown> } }) => e.event,
      );
      const types = events.map((e: { type: string }) => e.type);
      expect(types[0]).toBe("run.start");
      expect(types.filter((t: string) => t === "step.start")).toHaveLength(3);
      expect(events.find((e: { type: string }) => e.type === "model.response")?.data.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
      expect(events.find((e: { type: string }) => e.type === "tool.call")?.data).toMatchObject({
        tool: "get_weather",
        args: { city: "Oslo" },
      });
      expect(types).toContain("error");
    });
  }
}

test("POST /api/imports detects a trace export and stores it as a trace-fidelity run", async ({ request }) => {
  const body = fs.readFileSync("tests/fixtures/corpus/langfuse/langfuse-qa-chatbot-mcp-toolcall.json");
  const res = await request.post("/api/imports?name=langfuse.json", { data: body, headers: { "content-type": "application/json" } });
  expect(res.status()).toBe(201);
  const json = await res.json();
  expect(json.format).toBe("langfuse");
  expect(json.runs[0]).toMatchObject({ status: "stored" });
  const run = await (await request.get(`/api/runs/${json.runs[0].run}`)).json();
  expect(run.fidelity).toBe("trace");
});
