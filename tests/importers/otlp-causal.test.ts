/**
 * Causal order of an OTLP trace's events: by the span tree and by cause, not by raw start
 * time (OpenTelemetry JS takes starts in whole milliseconds but measures finer durations).
 * Spans are written by hand below; what each test expects follows from the spans alone.
 */
import { describe, expect, it } from "vitest";
import { spansToRuns, type NormalizedSpan } from "@/lib/importers";
import type { JournalEvent } from "@/lib/journal/types";

const T0 = 1_760_000_000_000_000_000n;
const ms = (x: number) => (T0 + BigInt(Math.round(x * 1_000_000))).toString();
const TRACE = "0af7651916cd43dd8448eb211c80319c";

function span(id: string, parent: string | undefined, name: string, start: number, end: number, attrs: NormalizedSpan["attributes"] = {}) {
  const s: NormalizedSpan = {
    traceId: TRACE,
    spanId: id.padStart(16, "0"),
    name,
    kind: "internal",
    startTimeUnixNano: ms(start),
    endTimeUnixNano: ms(end),
    status: { code: "unset" },
    attributes: attrs,
    events: [],
    resource: { "service.name": "causal-test" },
  };
  if (parent) s.parentSpanId = parent.padStart(16, "0");
  return s;
}

const llm = (id: string, parent: string, start: number, end: number, callId?: string) =>
  span(id, parent, "chat m", start, end, {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "m",
    "gen_ai.output.messages": JSON.stringify([
      { role: "assistant", parts: callId ? [{ type: "tool_call", id: callId, name: "lookup", arguments: { q: "x" } }] : [] },
    ]),
  });
const tool = (id: string, parent: string, start: number, end: number, callId: string) =>
  span(id, parent, "execute_tool lookup", start, end, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "lookup",
    "gen_ai.tool.call.id": callId,
  });

function events(spans: NormalizedSpan[], opts = {}): JournalEvent[] {
  const runs = spansToRuns(spans, opts);
  expect(runs).toHaveLength(1);
  return runs[0].events;
}
const seqOf = (evs: JournalEvent[], type: string, step: string) => {
  const e = evs.find((x) => x.type === type && x.step === step.padStart(16, "0"));
  if (!e) throw new Error(`no ${type} of ${step}`);
  return e.seq as number;
};

describe("causal order within a trace", () => {
  it("a tool call comes after the model response that requested it, though its start was cut to an earlier millisecond", () => {
    // The model ends at 5.4 ms; the tool really started at 5.9 ms but its start was taken as 5 ms.
    const evs = events([span("1", undefined, "agent", 0, 10), tool("3", "1", 5, 6, "call_a"), llm("2", "1", 5, 5.4, "call_a")]);
    expect(seqOf(evs, "model.response", "2")).toBeLessThan(seqOf(evs, "tool.call", "3"));
  });

  it("the cause wins even when the tool's start is a whole millisecond earlier", () => {
    // Clock skew: the tool claims to start 2 ms before the model that asked for it.
    const evs = events([span("1", undefined, "agent", 0, 20), llm("2", "1", 6, 8, "call_b"), tool("3", "1", 4, 9, "call_b")]);
    expect(seqOf(evs, "model.response", "2")).toBeLessThan(seqOf(evs, "tool.call", "3"));
  });

  it("siblings order by start, then by end when the starts share a millisecond", () => {
    const evs = events([
      span("1", undefined, "root", 0, 30),
      span("4", "1", "late", 10, 11),
      span("3", "1", "same-ms-longer", 2.1, 9),
      span("2", "1", "same-ms-shorter", 2.7, 3),
    ]);
    const order = evs.filter((e) => e.type === "step.start").map((e) => e.data.name);
    expect(order).toEqual(["root", "same-ms-shorter", "same-ms-longer", "late"]);
  });

  it("a parent's end comes after its last child's, even when the child's end is later by a sub-millisecond", () => {
    // The parent's end (4.0) is earlier than its child's (4.3): measured on different clocks.
    const evs = events([span("1", undefined, "root", 0, 4), span("2", "1", "child", 1, 4.3)]);
    expect(seqOf(evs, "step.end", "2")).toBeLessThan(seqOf(evs, "step.end", "1"));
    expect(evs.at(-1)?.type).toBe("run.end");
  });

  it("every child event is between its step's start and end, for a tree in any input order", () => {
    const spans = [
      span("1", undefined, "root", 0, 50),
      span("2", "1", "turn 1", 1, 20),
      llm("3", "2", 1.2, 8, "c1"),
      tool("4", "2", 8, 19.6, "c1"),
      span("5", "1", "turn 2", 20, 49.9),
      llm("6", "5", 20.1, 49.9),
    ];
    const reference = events(spans);
    for (const perm of [[...spans].reverse(), [spans[3], spans[5], spans[0], spans[2], spans[4], spans[1]]]) {
      expect(events(perm)).toEqual(reference);
    }
    const parentOf = new Map(spans.map((s) => [s.spanId, s.parentSpanId]));
    for (const e of reference) {
      if (!e.step || e.type === "step.start") continue;
      for (let p: string | undefined = e.step; p; p = parentOf.get(p)) {
        expect(seqOf(reference, "step.start", p)).toBeLessThan(e.seq as number);
        if (p !== e.step || e.type !== "step.end") expect(seqOf(reference, "step.end", p)).toBeGreaterThanOrEqual(e.seq as number);
      }
    }
  });
});

describe("failures and liveness", () => {
  it("a failed tool is one error: its ancestors' inherited ERROR status adds none", () => {
    const failing = tool("3", "2", 2, 3, "c9");
    failing.status = { code: "error", message: "upstream 503" };
    const agent = span("2", "1", "agent", 1, 4);
    agent.status = { code: "error", message: "upstream 503" };
    const root = span("1", undefined, "root", 0, 5);
    root.status = { code: "error" };
    const evs = events([root, agent, failing]);
    const errors = evs.filter((e) => e.type === "error");
    expect(errors.map((e) => e.step)).toEqual([failing.spanId]);
    // the steps still say how they ended, and the run failed
    expect(evs.filter((e) => e.type === "step.end" && e.data.status === "error")).toHaveLength(3);
    expect(evs.at(-1)?.data.status).toBe("failed");
  });

  it("an ancestor's own exception is its own failure and stays", () => {
    const failing = tool("3", "2", 2, 3, "c9");
    failing.status = { code: "error" };
    const agent = span("2", undefined, "agent", 1, 4);
    agent.status = { code: "error" };
    agent.events = [{ name: "exception", timeUnixNano: ms(3.5), attributes: { "exception.message": "retry budget exhausted" } }];
    const errors = events([agent, failing]).filter((e) => e.type === "error");
    expect(errors.map((e) => e.data.message)).toEqual(["span status ERROR", "retry budget exhausted"]);
  });

  it("without its root span, a trace received live has no run.end (a file's trace always has one)", () => {
    const spans = [span("2", "1", "turn", 1, 2), llm("3", "2", 1.1, 1.9)];
    expect(events(spans, { liveWithoutRoot: true }).some((e) => e.type === "run.end")).toBe(false);
    expect(events(spans).at(-1)?.type).toBe("run.end");
    expect(events([span("1", undefined, "root", 0, 3), ...spans], { liveWithoutRoot: true }).at(-1)?.type).toBe("run.end");
  });
});
