/**
 * Patronus trace exports: smolagents runs as OpenInference span trees nested in
 * `child_spans`, the shape of the TRAIL benchmark's GAIA and SWE-bench traces (two real files,
 * tests/fixtures/corpus/SOURCES.md). Every expected number is read off the raw JSON here
 * (the span tree walked with plain JSON, durations parsed with a regular expression), never
 * from the importer's output.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { ImportError } from "@/lib/importers/import-error";
import { parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { errorEvents } from "@/lib/semantics";
import { readCorpus, summarize } from "./helpers";

const GAIA = "patronus/trail-gaia-41bbc898aa7de0f31d2382ff57700a76.json.gz";
const SWE = "patronus/trail-swe-bench-72822db6e120878d916b515c2501246b.json";
const FILES = [GAIA, SWE];

interface Span {
  span_id: string;
  parent_span_id: string | null;
  span_name: string;
  timestamp: string;
  duration: string;
  status_code: string;
  span_attributes: Record<string, unknown>;
  events: Array<{ Name: string }>;
  child_spans: Span[];
}
interface Trace {
  trace_id: string;
  spans: Span[];
}

/** Every span of the tree, depth first, with duplicates (the same span_id written twice) kept once. */
function spansOf(text: string): Span[] {
  const out = new Map<string, Span>();
  const walk = (s: Span) => {
    if (!out.has(s.span_id)) out.set(s.span_id, s);
    s.child_spans.forEach(walk);
  };
  (JSON.parse(text) as Trace).spans.forEach(walk);
  return [...out.values()];
}

const kindOf = (s: Span) => s.span_attributes["openinference.span.kind"];
/** ISO 8601 duration → ms, by regular expression (PT1M17.284479S). */
function durationMs(d: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(d)!;
  return Math.round((Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1e6) / 1e3;
}
const tokens = (spans: Span[], k: string) => spans.reduce((n, s) => n + Number(s.span_attributes[k] ?? 0), 0);

const runOf = (file: string) => importTrace(readCorpus(file), { fileName: path.basename(file) });

describe.each(FILES)("TRAIL trace %s", (file) => {
  const text = readCorpus(file);
  const trace = JSON.parse(text) as Trace;
  const spans = spansOf(text);

  it("is detected from its content, whole and cut short", () => {
    expect(detectFormat(text).format).toBe("patronus-trace");
    expect(detectFormat(text, "trace.txt").format).toBe("patronus-trace");
    expect(detectFormat(text.slice(0, 64 * 1024)).format).toBe("patronus-trace");
    expect(detectFormat(text.slice(0, 1000)).format).toBe("patronus-trace");
  });

  it("gives one run with the steps, model calls, tool calls, tokens and errors the tree holds", () => {
    const { format, runs } = runOf(file);
    expect(format).toBe("patronus-trace");
    expect(runs.map((r) => r.runId)).toEqual([`patronus-${trace.trace_id}`]);
    const events = runs[0].events;
    for (const e of events) expect(parseLine(canonicalJson(e)).ok).toBe(true);
    const s = summarize(events);
    const llm = spans.filter((x) => kindOf(x) === "LLM");
    const tools = spans.filter((x) => kindOf(x) === "TOOL");
    const failedTools = tools.filter((x) => x.status_code === "Error").length;
    expect(s.steps).toBe(spans.length);
    expect(s.modelCalls).toBe(llm.length);
    expect(s.toolCalls).toBe(tools.length);
    expect(s.toolFailures).toEqual(failedTools > 0 ? { error: failedTools } : {});
    expect(s.inputTokens).toBe(tokens(llm, "llm.token_count.prompt"));
    expect(s.outputTokens).toBe(tokens(llm, "llm.token_count.completion"));
    // one error per failed span: its exception event and its failed result are one failure
    expect(errorEvents(events).filter(Boolean)).toHaveLength(spans.filter((x) => x.status_code === "Error").length);
    expect(s.status).toBe("succeeded");
  });

  it("keeps the tree: each step's parent is the span's parent_span_id", () => {
    const starts = runOf(file).runs[0].events.filter((e) => e.type === "step.start");
    const parentOf = new Map(starts.map((e) => [e.step, e.data.parentSpanId ?? null]));
    for (const x of spans) expect(parentOf.get(x.span_id), x.span_id).toBe(x.parent_span_id);
    // the smolagents span kinds decide the role: agents, steps (CHAIN), model calls, tools
    const kind = new Map(starts.map((e) => [e.step, e.data.kind]));
    for (const x of spans) {
      const want = { AGENT: "agent", CHAIN: "chain", LLM: "llm", TOOL: "tool" }[String(kindOf(x))];
      if (want) expect(kind.get(x.span_id)).toBe(want);
    }
  });

  it("times every call in ms: a model call's latency is the span's duration, its start the span's timestamp", () => {
    const events = runOf(file).runs[0].events;
    const llm = spans.filter((x) => kindOf(x) === "LLM");
    for (const x of llm) {
      const response = events.find((e) => e.type === "model.response" && e.step === x.span_id)!;
      expect(response.data.latencyMs, x.span_id).toBe(durationMs(x.duration));
      const start = events.find((e) => e.type === "step.start" && e.step === x.span_id)!;
      expect(start.ts).toBe(new Date(Date.parse(x.timestamp)).toISOString());
    }
  });
});

describe("TRAIL GAIA trace: a CodeAgent managing a ToolCallingAgent", () => {
  const spans = spansOf(readCorpus(GAIA));
  const events = runOf(GAIA).runs[0].events;
  const byStep = (id: string, type: string) => events.find((e) => e.step === id && e.type === type)!;

  it("reads smolagents tool inputs as object arguments: keyword arguments, positional ones named by tool.parameters", () => {
    const tools = spans.filter((x) => kindOf(x) === "TOOL");
    expect(tools.length).toBe(2);
    for (const x of tools) {
      const input = JSON.parse(String(x.span_attributes["input.value"])) as { args: unknown[]; kwargs: Record<string, unknown> };
      const names = Object.keys(JSON.parse(String(x.span_attributes["tool.parameters"])) as object);
      const want = { ...Object.fromEntries(input.args.map((a, i) => [names[i], a])), ...input.kwargs };
      const call = byStep(x.span_id, "tool.call");
      expect(call.data.tool).toBe(x.span_attributes["tool.name"]);
      expect(call.data.args).toEqual(want);
    }
  });

  it("links the failed tool to the call id the model asked for, after its response, and records its error", () => {
    const failed = spans.find((x) => kindOf(x) === "TOOL" && x.status_code === "Error")!;
    const asking = spans.find((x) =>
      Object.entries(x.span_attributes).some(
        ([k, v]) => k.endsWith("tool_call.function.name") && v === failed.span_attributes["tool.name"],
      ),
    )!;
    const callId = asking.span_attributes["llm.output_messages.0.message.tool_calls.0.tool_call.id"];
    const call = byStep(failed.span_id, "tool.call");
    expect(call.data.call).toBe(callId);
    expect(call.seq).toBeGreaterThan(byStep(asking.span_id, "model.response").seq);
    const result = byStep(failed.span_id, "tool.result");
    expect(result.data).toMatchObject({ call: callId, status: "error", latencyMs: durationMs(failed.duration) });
    const error = byStep(failed.span_id, "error") as JournalEvent;
    expect(String(error.data.message)).toContain("Could not convert");
  });

  it("gives each model call its model and messages", () => {
    const llm = spans.filter((x) => kindOf(x) === "LLM");
    for (const x of llm) {
      const request = byStep(x.span_id, "model.request");
      expect(request.data.model).toBe(x.span_attributes["llm.model_name"]);
      const input = JSON.parse(String(x.span_attributes["input.value"])) as { messages: unknown[] };
      expect((request.data.messages as unknown[]).length).toBe(input.messages.length);
    }
  });
});

describe("TRAIL SWE-bench trace: top-level spans whose parents are not in the file, one span written twice", () => {
  const text = readCorpus(SWE);
  const trace = JSON.parse(text) as Trace;

  it("keeps every top-level span as a root, says so, and reads the duplicate once", () => {
    const { runs, warnings } = runOf(SWE);
    const written = JSON.stringify(trace.spans).match(/"span_name":/g)!.length;
    expect(written - spansOf(text).length).toBe(1);
    expect(warnings).toEqual([
      `trace ${trace.trace_id}: ${trace.spans.length} span(s) name a parent that is not in the data; they are shown as roots`,
    ]);
    expect(summarize(runs[0].events).steps).toBe(spansOf(text).length);
  });

  it("a step of minutes lasts its ISO duration", () => {
    const long = trace.spans.find((s) => /M/.test(s.duration))!;
    const events = runOf(SWE).runs[0].events;
    const start = events.find((e) => e.type === "step.start" && e.step === long.span_id)!;
    const end = events.find((e) => e.type === "step.end" && e.step === long.span_id)!;
    // microseconds since the epoch, from the timestamp's digits; the journal's ts is whole ms
    const micros = Date.parse(long.timestamp) * 1000 + Number(/\.\d{3}(\d{3})/.exec(long.timestamp)![1]);
    const endMicros = micros + Math.round(durationMs(long.duration) * 1000);
    expect(durationMs(long.duration)).toBeGreaterThan(60_000);
    expect(Date.parse(end.ts) - Date.parse(start.ts)).toBe(Math.floor(endMicros / 1000) - Math.floor(micros / 1000));
  });
});

describe("bad input", () => {
  it("a trace with no spans, or no span ids, is one ImportError", () => {
    expect(() => importTrace('{"trace_id": "41bbc898aa7de0f31d2382ff57700a76", "spans": []}')).toThrow(ImportError);
    const noIds =
      '{"trace_id": null, "spans": [{"span_id": "", "span_name": "main", "span_attributes": {}, "timestamp": "2025-03-19T17:32:33Z", "child_spans": []}]}';
    expect(detectFormat(noIds).format).toBe("patronus-trace");
    expect(() => importTrace(noIds)).toThrow(ImportError);
  });

  it("a file cut short is one ImportError, nothing half-read", () => {
    const text = readCorpus(GAIA);
    expect(() => importTrace(text.slice(0, text.length / 2))).toThrow(ImportError);
  });
});
