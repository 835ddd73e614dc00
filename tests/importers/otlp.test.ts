/**
 * OTLP: binary protobuf requests produced by the real OpenTelemetry JS SDK and serializer
 * decode to the same spans as their JSON encoding, with exact ids and nanosecond times;
 * `spansToRuns` is a pure function of the span set (the `/v1/traces` receiver relies on it).
 */
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator } from "@opentelemetry/sdk-trace-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { spansFromOtlpJson, spansFromOtlpProtobuf, spansToRuns, type NormalizedSpan } from "@/lib/importers";
import { parseJsonExact, parseLine } from "@/lib/journal/parse-line";
import { readCorpus, summarize } from "./helpers";

class FixedIds implements IdGenerator {
  private n = 0;
  // The trace id has its top bit set and the span ids exceed 2^53, so rounding would show.
  generateTraceId = () => "f0e1d2c3b4a5968778695a4b3c2d1e0f";
  generateSpanId = () => (0xfedcba9876543200n + BigInt(++this.n)).toString(16).padStart(16, "0");
}

/** An agent run recorded with the real SDK: agent span > model call + tool call (error). */
function recordSdkSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: new FixedIds(),
    resource: resourceFromAttributes({ "service.name": "refund-agent", "deployment.environment.name": "staging" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("test-agent", "1.2.3");
  // Times as [seconds, nanoseconds]: 1777555053.780274701 s is beyond 2^53 ns.
  const t = (ns: number): [number, number] => [1777555053, 780274701 + ns];
  const root = tracer.startSpan("invoke_agent refunder", {
    startTime: t(0),
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refunder" },
  });
  const ctx = trace.setSpan(context.active(), root);
  const llm = tracer.startSpan(
    "chat gpt-test",
    {
      kind: SpanKind.CLIENT,
      startTime: t(1000),
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.request.temperature": 0.25,
        "gen_ai.input.messages": JSON.stringify([{ role: "user", content: "Refund order A-1" }]),
        "gen_ai.output.messages": JSON.stringify([
          {
            role: "assistant",
            parts: [{ type: "tool_call", id: "call_1", name: "issue_refund", arguments: { order: "A-1" } }],
            finish_reason: "tool_call",
          },
        ]),
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 7,
        "gen_ai.response.finish_reasons": ["tool_call"],
        "app.flags": [true, false],
      },
    },
    ctx,
  );
  llm.end(t(5_000_000));
  const tool = tracer.startSpan(
    "execute_tool issue_refund",
    {
      startTime: t(6_000_000),
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "issue_refund",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": '{"order":"A-1"}',
      },
    },
    ctx,
  );
  tool.addEvent("exception", { "exception.type": "TimeoutError", "exception.message": "payment gateway timed out" }, t(7_000_000));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: "timed out" });
  tool.end(t(9_000_000));
  root.setStatus({ code: SpanStatusCode.ERROR, message: "refund failed" });
  root.end(t(10_000_000));
  return exporter.getFinishedSpans();
}

describe("OTLP protobuf", () => {
  const sdkSpans = recordSdkSpans();
  const bytes = ProtobufTraceSerializer.serializeRequest(sdkSpans);
  const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(sdkSpans));

  it("decodes an ExportTraceServiceRequest from the SDK's serializer with exact ids and times", () => {
    expect(bytes).toBeInstanceOf(Uint8Array);
    const spans = spansFromOtlpProtobuf(bytes!);
    expect(spans).toHaveLength(3);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const root = byName.get("invoke_agent refunder")!;
    const llm = byName.get("chat gpt-test")!;
    const tool = byName.get("execute_tool issue_refund")!;
    expect(root.traceId).toBe("f0e1d2c3b4a5968778695a4b3c2d1e0f");
    expect(root.parentSpanId).toBeUndefined();
    expect(llm.parentSpanId).toBe(root.spanId);
    expect(tool.parentSpanId).toBe(root.spanId);
    for (const s of spans) expect(BigInt(`0x${s.spanId}`) > 0xfedcba9876543200n).toBe(true);
    expect(root.startTimeUnixNano).toBe("1777555053780274701");
    expect(llm.startTimeUnixNano).toBe("1777555053780275701");
    expect(tool.events[0]).toEqual({
      name: "exception",
      timeUnixNano: "1777555053787274701",
      attributes: { "exception.type": "TimeoutError", "exception.message": "payment gateway timed out" },
    });
    expect(llm.kind).toBe("client");
    expect(root.kind).toBe("internal");
    expect(tool.status).toEqual({ code: "error", message: "timed out" });
    expect(llm.attributes["gen_ai.usage.input_tokens"]).toBe(120);
    expect(llm.attributes["gen_ai.request.temperature"]).toBe(0.25);
    expect(llm.attributes["app.flags"]).toEqual([true, false]);
    expect(llm.resource["service.name"]).toBe("refund-agent");
    expect(llm.scope).toEqual({ name: "test-agent", version: "1.2.3" });
  });

  it("gives the same spans as the JSON encoding of the same request", () => {
    const fromJson = spansFromOtlpJson(parseJsonExact(json));
    const fromProto = spansFromOtlpProtobuf(bytes!);
    expect(canonicalJson(fromProto)).toBe(canonicalJson(fromJson));
  });

  it("normalized spans are plain JSON (they are stored by the receiver)", () => {
    const spans = spansFromOtlpProtobuf(bytes!);
    expect(JSON.parse(JSON.stringify(spans))).toEqual(spans);
  });

  it("maps the SDK run to a journal: model call, failing tool call, errors, failed run", () => {
    const runs = spansToRuns(spansFromOtlpProtobuf(bytes!));
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run.runId).toBe("otel-f0e1d2c3b4a5968778695a4b3c2d1e0f");
    for (const e of run.events) {
      const r = parseLine(canonicalJson(e));
      expect(r.ok, r.ok ? "" : `${e.type}: ${r.message} ${canonicalJson(e)}`).toBe(true);
    }
    const s = summarize(run.events);
    // Errors: the tool span's exception event only; the root's ERROR status (no exception event
    // of its own) is inherited from the tool, so it is not a second error.
    expect(s).toMatchObject({
      steps: 3,
      modelCalls: 1,
      toolCalls: 1,
      errors: 1,
      inputTokens: 120,
      outputTokens: 7,
      status: "failed",
      toolFailures: { error: 1 },
    });
    const start = run.events[0].data;
    expect(start).toMatchObject({
      workflow: { name: "refund-agent" },
      agent: { name: "refunder" },
      environment: "staging",
      input: "Refund order A-1",
      versions: { models: { "gpt-test": "gpt-test" } },
    });
    const req = run.events.find((e) => e.type === "model.request")!;
    expect(req.data).toMatchObject({
      model: "gpt-test",
      messages: [{ role: "user", content: "Refund order A-1" }],
      params: { temperature: 0.25 },
    });
    const resp = run.events.find((e) => e.type === "model.response")!;
    expect(resp.data).toMatchObject({
      output: { toolCalls: [{ id: "call_1", name: "issue_refund", args: { order: "A-1" } }] },
      finishReason: "tool_call",
      latencyMs: 4.999,
    });
    const call = run.events.find((e) => e.type === "tool.call")!;
    // "refund" is a writing verb (lib/importers/effects.ts): inferred, not recorded
    expect(call.data).toMatchObject({
      call: "call_1",
      tool: "issue_refund",
      args: { order: "A-1" },
      effect: "write",
      effectInferred: true,
    });
    const result = run.events.find((e) => e.type === "tool.result")!;
    expect(result.data).toMatchObject({ call: "call_1", status: "error", error: "timed out" });
    expect(result.parent).toBe(call.seq);
    expect(run.events.at(-1)?.data).toMatchObject({ status: "failed", error: { message: "refund failed" } });
  });

  it("refuses bytes that are not a request", () => {
    expect(() => spansFromOtlpProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0xff]))).toThrow(/OTLP/);
  });
});

describe("spansToRuns is a pure function of the span set", () => {
  const tempo = spansFromOtlpJson(parseJsonExact(readCorpus("otel-genai/kagent-helm-agent.tempo-otlp.json")));
  const reference = canonicalJson(spansToRuns(tempo));

  // Seeded shuffle so a failure can be reproduced (the seed is in the test name).
  const shuffle = <T>(list: T[], seed: number): T[] => {
    const out = [...list];
    let x = seed;
    for (let i = out.length - 1; i > 0; i--) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const j = x % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  it.each([1, 7, 42, 2024])("gives the same runs for spans in any order (seed %i)", (seed) => {
    expect(canonicalJson(spansToRuns(shuffle(tempo, seed)))).toBe(reference);
  });

  it("ignores spans that arrive twice (a resent request)", () => {
    expect(canonicalJson(spansToRuns([...tempo, ...tempo.slice(0, 30)]))).toBe(reference);
  });

  it("a trace split over several export requests gives the same run as one request", () => {
    const text = readCorpus("otel-genai/kagent-helm-agent.tempo-otlp.json");
    const whole = parseJsonExact(text) as { batches: unknown[] };
    const half = Math.floor(whole.batches.length / 2);
    const first = spansFromOtlpJson({ batches: whole.batches.slice(0, half) });
    const second = spansFromOtlpJson({ batches: whole.batches.slice(half) });
    // The receiver stores the spans of each request and re-derives the run from all of them.
    const stored: NormalizedSpan[] = JSON.parse(JSON.stringify([...second, ...first]));
    expect(canonicalJson(spansToRuns(stored))).toBe(reference);
  });

  it("groups spans of different traces into separate runs", () => {
    const other = tempo.slice(0, 5).map((s) => ({ ...s, traceId: "0123456789abcdef0123456789abcdef" }));
    const runs = spansToRuns([...tempo, ...other]);
    expect(runs.map((r) => r.runId).sort()).toEqual(["otel-0123456789abcdef0123456789abcdef", "otel-dd547580319ab0312cee07f1def50dad"]);
  });
});

describe("OTLP JSON variants", () => {
  const span = (over: Record<string, unknown>) => ({
    traceId: "5B8EFFF798038103D269B633813FC60C",
    spanId: "EEE19B7EC3C1B174",
    name: "chat m",
    kind: 3,
    startTimeUnixNano: "1544712660000000000",
    endTimeUnixNano: "1544712661000000000",
    attributes: [
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "big", value: { intValue: "9007199254740993" } },
    ],
    status: { code: 2, message: "boom" },
    ...over,
  });

  it("reads int kinds and status codes, upper-case hex ids and int64 attributes beyond 2^53", () => {
    const [s] = spansFromOtlpJson({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "x" }, spans: [span({})] }] }],
    });
    expect(s.traceId).toBe("5b8efff798038103d269b633813fc60c");
    expect(s.spanId).toBe("eee19b7ec3c1b174");
    expect(s.kind).toBe("client");
    expect(s.status).toEqual({ code: "error", message: "boom" });
    expect(s.attributes.big).toBe("9007199254740993");
  });

  it("treats an empty parentSpanId as a root and keeps spans whose parent is missing", () => {
    const spans = spansFromOtlpJson({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span({ spanId: "0000000000000001", parentSpanId: "" }),
                span({ spanId: "0000000000000002", parentSpanId: "00000000000000ff", status: {} }),
                span({ spanId: "0000000000000003", parentSpanId: "0000000000000001", status: {} }),
              ],
            },
          ],
        },
      ],
    });
    const [run] = spansToRuns(spans);
    const starts = run.events.filter((e) => e.type === "step.start");
    expect(starts.map((e) => e.step)).toEqual(["0000000000000001", "0000000000000003", "0000000000000002"]);
    expect(starts.map((e) => e.parent)).toEqual([undefined, starts[0].seq, undefined]);
  });
});
