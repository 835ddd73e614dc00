/**
 * Arize Phoenix's own span JSON (the REST API's span list, not OTLP): detected from its
 * content, read through the same OpenInference mapping as OTLP. Counts come from the file
 * itself (span kinds, statuses, token attributes), not from Retrace's output.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { isoToNanos } from "@/lib/importers/json-utils";
import { parseLine } from "@/lib/journal/parse-line";
import { errorEvents } from "@/lib/semantics";
import { summarize } from "./helpers";

const FILE = fileURLToPath(new URL("../fixtures/phoenix/phoenix-rest-spans.json", import.meta.url));
const text = readFileSync(FILE, "utf8");

interface PhoenixSpan {
  name: string;
  context: { trace_id: string; span_id: string };
  span_kind: string;
  parent_id: string | null;
  status_code: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string }>;
}
const source = (JSON.parse(text) as { data: PhoenixSpan[] }).data;
const traces = [...new Set(source.map((s) => s.context.trace_id))];

describe("Phoenix span export (REST /v1/projects/{id}/spans)", () => {
  it("is detected from its content, whole and cut short", () => {
    expect(detectFormat(text).format).toBe("phoenix-spans");
    expect(detectFormat(text.slice(0, 700)).format).toBe("phoenix-spans");
    // a bare array of Phoenix spans
    expect(detectFormat(JSON.stringify(source)).format).toBe("phoenix-spans");
  });

  it("gives one run per trace with the model calls, tool calls, tokens and errors the spans hold", () => {
    const { format, runs, warnings } = importTrace(text, { fileName: "phoenix-rest-spans.json" });
    expect(format).toBe("phoenix-spans");
    expect(warnings).toEqual([]);
    expect(runs.map((r) => r.runId).sort()).toEqual(traces.map((t) => `phoenix-${t}`).sort());
    for (const trace of traces) {
      const spans = source.filter((s) => s.context.trace_id === trace);
      const run = runs.find((r) => r.runId === `phoenix-${trace}`)!;
      for (const e of run.events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
      const s = summarize(run.events);
      const num = (k: string) => spans.reduce((n, x) => n + (typeof x.attributes[k] === "number" ? (x.attributes[k] as number) : 0), 0);
      const failedTools = spans.filter((x) => x.span_kind === "TOOL" && x.status_code === "ERROR").length;
      expect(s.steps).toBe(spans.length);
      expect(s.modelCalls).toBe(spans.filter((x) => x.span_kind === "LLM").length);
      expect(s.toolCalls).toBe(spans.filter((x) => x.span_kind === "TOOL").length);
      expect(s.toolFailures).toEqual(failedTools > 0 ? { error: failedTools } : {});
      expect(s.inputTokens).toBe(num("llm.token_count.prompt"));
      expect(s.outputTokens).toBe(num("llm.token_count.completion"));
      // one error per failed span: the exception event and the failed result are one failure
      expect(errorEvents(run.events).filter(Boolean)).toHaveLength(spans.filter((x) => x.status_code === "ERROR").length);
      const root = spans.find((x) => x.parent_id === null)!;
      expect(s.status).toBe(root.status_code === "ERROR" ? "failed" : "succeeded");
    }
  });

  it("links the tool span (no call id) to the call the model requested, after the response, with object arguments", () => {
    const run = importTrace(text).runs.find((r) => r.runId === "phoenix-649993371fa95c788177f739b7423818")!;
    const call = run.events.find((e) => e.type === "tool.call")!;
    const asked = run.events.find((e) => e.type === "model.response" && JSON.stringify(e.data.output).includes('"id":"call_1"'))!;
    expect(call.data).toMatchObject({ call: "call_1", tool: "get_weather", args: { city: "Oslo" } });
    expect(call.seq).toBeGreaterThan(asked.seq);
    // the OpenInference span kind, which Phoenix moves out of the attributes, decides the role
    expect(run.events.filter((e) => e.type === "step.start").map((e) => e.data.kind)).toEqual(["chain", "llm", "tool", "llm"]);
    // messages from the flattened llm.input_messages.*, tool result with its call id
    const second = run.events.filter((e) => e.type === "model.request")[1];
    expect(second.data.messages).toEqual([
      { role: "user", content: "What is the weather in Oslo?" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }] },
      { role: "tool", content: "Connection refused", toolCallId: "call_1" },
    ]);
  });

  it("maps a span as the OTLP path maps the same span", () => {
    // the OTLP form Phoenix itself serves (/spans/otlpv1): attributes as key/values, the span kind back in them
    const kv = (o: Record<string, unknown>) =>
      Object.entries(o).map(([key, v]) => ({
        key,
        value: typeof v === "number" ? (Number.isInteger(v) ? { intValue: v } : { doubleValue: v }) : { stringValue: String(v) },
      }));
    const ns = (iso: string) =>
      (BigInt(Date.parse(iso)) * 1_000_000n + BigInt(Number(/\.(\d{6})/.exec(iso)?.[1] ?? "0") % 1000) * 1000n).toString();
    const otlp = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              spans: source.map((s) => ({
                traceId: s.context.trace_id,
                spanId: s.context.span_id,
                ...(s.parent_id ? { parentSpanId: s.parent_id } : {}),
                name: s.name,
                kind: 1,
                startTimeUnixNano: ns((s as unknown as { start_time: string }).start_time),
                endTimeUnixNano: ns((s as unknown as { end_time: string }).end_time),
                attributes: kv({ ...s.attributes, "openinference.span.kind": s.span_kind }),
                status: { code: s.status_code === "ERROR" ? 2 : 1, message: (s as unknown as { status_message: string }).status_message },
                events: s.events.map((e) => ({
                  name: e.name,
                  timeUnixNano: ns((e as unknown as { timestamp: string }).timestamp),
                  attributes: kv((e as unknown as { attributes: Record<string, unknown> }).attributes),
                })),
              })),
            },
          ],
        },
      ],
    };
    const viaOtlp = importTrace(JSON.stringify(otlp)).runs;
    const viaPhoenix = importTrace(text).runs;
    const body = (events: (typeof viaOtlp)[number]["events"]) =>
      events.filter((e) => e.type !== "run.start" && e.type !== "step.start").map((e) => [e.type, e.step ?? null, e.data]);
    for (const run of viaPhoenix) {
      const twin = viaOtlp.find((r) => r.runId === run.runId.replace(/^phoenix-/, "otel-"))!;
      expect(body(run.events)).toEqual(body(twin.events));
    }
  });

  it("reads Phoenix's /spans/otlpv1 answer (OTLP spans, snake_case fields) as the same spans", () => {
    // the conversion of span_search_otlpv1 (spans.py): the span kind stays among the attributes
    const anyValue = (v: unknown) =>
      typeof v === "number"
        ? Number.isInteger(v)
          ? { int_value: v }
          : { double_value: v }
        : typeof v === "boolean"
          ? { bool_value: v }
          : { string_value: String(v) };
    const kv = (o: Record<string, unknown>) => Object.entries(o).map(([key, v]) => ({ key, value: anyValue(v) }));
    // Phoenix writes these as JSON integers beyond 2^53; as decimal strings (which its model also takes) they stay exact here
    const ns = (iso: string) => String(isoToNanos(iso));
    type Full = PhoenixSpan & { start_time: string; end_time: string; status_message: string };
    const otlpv1 = {
      data: (source as Full[]).map((s) => ({
        trace_id: s.context.trace_id,
        span_id: s.context.span_id,
        parent_span_id: s.parent_id,
        name: s.name,
        kind: "SPAN_KIND_INTERNAL",
        start_time_unix_nano: ns(s.start_time),
        end_time_unix_nano: ns(s.end_time),
        attributes: kv({ ...s.attributes, "openinference.span.kind": s.span_kind }),
        events: s.events.map((e) => {
          const ev = e as unknown as { name: string; timestamp: string; attributes: Record<string, unknown> };
          return { name: ev.name, attributes: kv(ev.attributes), time_unix_nano: ns(ev.timestamp) };
        }),
        status: { code: s.status_code === "ERROR" ? 2 : s.status_code === "OK" ? 1 : 0, message: s.status_message || null },
      })),
      next_cursor: null,
    };
    const textV1 = JSON.stringify(otlpv1);
    expect(detectFormat(textV1).format).toBe("phoenix-spans");
    const body = (runs: ReturnType<typeof importTrace>["runs"]) =>
      runs.map((r) => [r.runId, r.events.filter((e) => e.type !== "step.start").map((e) => [e.type, e.step ?? null, e.data])]);
    expect(body(importTrace(textV1).runs)).toEqual(body(importTrace(text).runs));
  });

  it("says when the file is one page of a longer list", () => {
    const page = JSON.stringify({ data: source.slice(0, 1), next_cursor: "U3BhbjoyMA==" });
    expect(importTrace(page).warnings.join(" ")).toMatch(/next_cursor/);
  });
});
