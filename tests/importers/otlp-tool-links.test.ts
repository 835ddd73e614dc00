/**
 * Tool spans that name no call id (OpenInference TOOL spans, Langfuse tool observations)
 * take the id of the call the model requested. In a fast run a failed attempt, the model
 * call that asks again and the retry all start in one millisecond (OpenTelemetry JS stamps
 * starts in whole milliseconds): the attempts must take the requests in the order they ran,
 * whatever their random span ids say (seen as a flaky Langfuse client-library test).
 */
import { describe, expect, it } from "vitest";
import { spansFromOtlpJson, spansToRuns } from "@/lib/importers";

const T0 = 1796152863000000000n;
const TRACE = "5e1f0e2d3b4a59687766554433221100";
const s = (key: string, value: string) => ({ key, value: { stringValue: value } });
const at = (us: number) => String(T0 + BigInt(us) * 1000n);

function span(id: string, name: string, startUs: number, endUs: number, attributes: object[], error = false) {
  return {
    traceId: TRACE,
    spanId: id,
    parentSpanId: "00000000000000a0",
    name,
    kind: 1,
    startTimeUnixNano: at(startUs),
    endTimeUnixNano: at(endUs),
    attributes,
    status: { code: error ? 2 : 1 },
  };
}
const chat = (id: string, startUs: number, endUs: number, call: string) =>
  span(id, "chat m", startUs, endUs, [
    s("gen_ai.operation.name", "chat"),
    s("gen_ai.request.model", "m"),
    s("gen_ai.input.messages", JSON.stringify([{ role: "user", content: "Book a table" }])),
    s(
      "gen_ai.output.messages",
      JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: call, name: "book_table", arguments: { guests: 2 } }] }]),
    ),
  ]);
const book = (id: string, startUs: number, endUs: number, error: boolean) =>
  span(
    id,
    "book_table",
    startUs,
    endUs,
    [s("openinference.span.kind", "TOOL"), s("tool.name", "book_table"), s("input.value", JSON.stringify({ guests: 2 }))],
    error,
  );

describe("linking call-id-less tool spans to requests", () => {
  it("attempts starting in one millisecond take the requests in the order they ran (by end), not by span id", () => {
    // starts truncated to .001 ms: attempt 1 ran first (ends first); its span id sorts last
    const spans = [
      { ...span("00000000000000a0", "agent", 0, 3000, [s("gen_ai.operation.name", "invoke_agent")]), parentSpanId: undefined },
      chat("00000000000000c1", 0, 500, "call_b1"),
      book("fffffffffffffff1", 1000, 1400, true),
      chat("00000000000000c2", 1000, 1600, "call_b2"),
      book("0000000000000001", 1000, 1900, false),
    ];
    const [run] = spansToRuns(spansFromOtlpJson({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans }] }] }));
    const results = run.events.filter((e) => e.type === "tool.result").map((e) => [e.data.call, e.data.status]);
    expect(results.sort()).toEqual([
      ["call_b1", "error"],
      ["call_b2", "ok"],
    ]);
    // and each call after the response that requested it
    const seqOf = (type: string, pred: (d: Record<string, unknown>) => boolean) =>
      run.events.find((e) => e.type === type && pred(e.data))!.seq;
    for (const c of ["call_b1", "call_b2"]) {
      const asked = seqOf("model.response", (d) => JSON.stringify(d.output).includes(c));
      expect(seqOf("tool.call", (d) => d.call === c)).toBeGreaterThan(asked);
    }
  });
});
