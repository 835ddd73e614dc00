/**
 * Every real trace in tests/fixtures/corpus (copied unchanged from /work/shared/corpus, see
 * SOURCES.md there) is imported and checked against numbers read off the files
 * independently of the importer. The counts were taken with short Python scripts over the
 * raw JSON (Python's json keeps 64-bit integers exact); each expectation says how.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import type { SourceFormat } from "@/lib/importers/types";
import { parseJsonExact, parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { readCorpus, summarize, type RunSummary } from "./helpers";

type Expected = Partial<RunSummary> & { runId: string };

interface Case {
  file: string;
  format: SourceFormat;
  runs: Expected[];
}

const sha16 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);

const CASES: Case[] = [
  {
    // spans: all spans under batches[].instrumentationLibrarySpans[] = 86. Model calls: the two
    // `openai.chat` spans (innermost of call_llm > generate_content > openai.chat, all three
    // carrying the same usage); tokens = sum of their gen_ai.usage.input/output_tokens
    // (2256+2392, 13+116). Tools: gen_ai.operation.name == execute_tool (1). Errors: 5 span
    // events named "exception", no span with status ERROR.
    file: "otel-genai/kagent-helm-agent.tempo-otlp.json",
    format: "tempo-otlp",
    runs: [
      {
        runId: "otel-dd547580319ab0312cee07f1def50dad",
        steps: 86,
        modelCalls: 2,
        toolCalls: 1,
        errors: 5,
        inputTokens: 4648,
        outputTokens: 129,
        status: "succeeded",
      },
    ],
  },
  {
    // 9 spans; 5 with gen_ai.operation.name call_llm (tokens 197+262+285+403+161, 36+33+94+32+60);
    // 3 execute_tool; trace id = hex of the decimal context.trace_id.
    file: "otel-genai/any-agent-llama-index.json",
    format: "otel-sdk-spans",
    runs: [
      {
        runId: "otel-89c41176422c506985d55a0d2d2091db",
        steps: 9,
        modelCalls: 5,
        toolCalls: 3,
        errors: 0,
        inputTokens: 1308,
        outputTokens: 255,
        status: "succeeded",
      },
    ],
  },
  {
    // 7 spans (6 name parents that are not in the file); 3 call_llm (672+770+809, 16+14+56); 3 execute_tool.
    file: "otel-genai/any-agent-google-adk.json",
    format: "otel-sdk-spans",
    runs: [
      {
        runId: "otel-cdbd7b99cef221c28dd6d03c27d09b4c",
        steps: 7,
        modelCalls: 3,
        toolCalls: 3,
        errors: 0,
        inputTokens: 2251,
        outputTokens: 86,
        status: "succeeded",
      },
    ],
  },
  {
    // 96 spans in data[0].spans; model calls: the 2 `openai.chat` spans nested in `call_llm`
    // (gen_ai.usage.prompt_tokens 1820+1956, completion_tokens 13+117); 1 execute_tool;
    // errors: 7 logs with event=exception (SOURCES.md says 8; jq counts 7) + 1 span tagged
    // otel.status_code=ERROR that has no exception log = 8.
    file: "jaeger/kagent-helm-agent.jaeger.json",
    format: "jaeger",
    runs: [
      {
        runId: "jaeger-3e289017fe03ffd7c4145316d2eb3d0d",
        steps: 96,
        modelCalls: 2,
        toolCalls: 1,
        errors: 8,
        inputTokens: 3776,
        outputTokens: 130,
        status: "succeeded",
      },
    ],
  },
  {
    // 3 export requests, 18 spans; 1 LLM span (llm.token_count.prompt 629, completion 19);
    // 1 RETRIEVER span with 3 retrieval.documents; trace id is base64 tH12H+eb6IruQTQs3VJyaA==.
    file: "openinference-otlp/quotient-rag-earnings-langchain.json",
    format: "otlp-json-array",
    runs: [
      {
        runId: "otel-b47d761fe79be88aee41342cdd527268",
        steps: 18,
        modelCalls: 1,
        toolCalls: 0,
        errors: 0,
        retrievals: 1,
        inputTokens: 629,
        outputTokens: 19,
        status: "succeeded",
      },
    ],
  },
  {
    // 8 spans; 6 LLM spans, sums of llm.token_count.prompt / completion; no TOOL spans.
    file: "openinference-otlp/quotient-smolagents-deep-research.json",
    format: "otlp-json-array",
    runs: [
      {
        runId: "otel-ba8ab01bf086833c989ce2a7a29eee31",
        steps: 8,
        modelCalls: 6,
        toolCalls: 0,
        errors: 0,
        inputTokens: 17952,
        outputTokens: 7122,
        status: "succeeded",
      },
    ],
  },
  {
    // 21 spans without ids; model calls are the 2 `ai.streamText.doStream` spans (179+246, 15+64;
    // the `ai.streamText` wrapper repeats their sum and is not a call); 1 `ai.toolCall`.
    // No trace id in the file: the run id is the first 16 hex digits of the content's SHA-256.
    file: "otel-js-spans/mastra-weather-agent.json",
    format: "otel-js-spans",
    runs: [
      { runId: "otel-<sha16>", steps: 21, modelCalls: 2, toolCalls: 1, errors: 0, inputTokens: 425, outputTokens: 79, status: "succeeded" },
    ],
  },
  {
    // 7 observations; GENERATIONs with a model: the 2 doStream ones (usageDetails.input 1115+17324,
    // output 44+429); 1 TOOL; no level ERROR.
    file: "langfuse/langfuse-qa-chatbot-mcp-toolcall.json",
    format: "langfuse",
    runs: [
      {
        runId: "langfuse-6f58ac41090ac81ce6203900dadf8e6b",
        steps: 7,
        modelCalls: 2,
        toolCalls: 1,
        errors: 0,
        inputTokens: 18439,
        outputTokens: 473,
        status: "succeeded",
      },
    ],
  },
  {
    // 12 trajectory entries = 12 steps, each one model call and one action; 3 observations start
    // with "Your proposed edit has introduced new syntax error" (rejected edits); exit_status submitted.
    file: "swe-agent/pydicom-1458-gpt4.traj",
    format: "swe-agent",
    runs: [
      {
        // the file's SHA-256 (first 8 hex) keeps two configurations of one instance apart
        runId: "swe-pydicom-1458-gpt4-<sha8>",
        steps: 12,
        modelCalls: 12,
        toolCalls: 12,
        errors: 0,
        toolFailures: { error: 3 },
        status: "succeeded",
      },
    ],
  },
  {
    // 11 entries; 1 rejected edit (entry 6); run id from replay_config.problem_statement.id.
    file: "swe-agent/marshmallow-1867-function-calling.traj",
    format: "swe-agent",
    runs: [
      {
        runId: "swe-marshmallow-code__marshmallow-1867-<sha8>",
        steps: 11,
        modelCalls: 11,
        toolCalls: 11,
        errors: 0,
        toolFailures: { error: 1 },
        status: "succeeded",
      },
    ],
  },
  {
    // 5 agent actions (ids 7, 9, 11, 13, 15) = 5 steps; 4 distinct model_response ids
    // (prompt_tokens 3439+3601+4769+5488, completion 104+1142+693+85); 4 tool actions
    // (2 run, 2 edit); 1 run observation with exit_code -1 (timed out).
    file: "openhands/vue-todo-app-gui-mode.json",
    format: "openhands",
    runs: [
      {
        runId: "openhands-vue-todo-app-gui-mode",
        steps: 5,
        modelCalls: 4,
        toolCalls: 4,
        errors: 0,
        toolFailures: { timeout: 1 },
        inputTokens: 17297,
        outputTokens: 2024,
        status: "succeeded",
      },
    ],
  },
  {
    // agent actions 3, 5, 7, 9 (read, run, read, finish); 4 responses (3475+3616+3804+3933,
    // 95+111+85+67); `finish` is not a tool execution, so 3 tool calls.
    file: "openhands/rename-file-wrong-initial-state.json",
    format: "openhands",
    runs: [
      {
        runId: "openhands-rename-file-wrong-initial-state",
        steps: 4,
        modelCalls: 4,
        toolCalls: 3,
        errors: 0,
        inputTokens: 14828,
        outputTokens: 358,
        status: "succeeded",
      },
    ],
  },
  {
    // 1 sample: 8 span_begin, 5 model events (input_tokens sum 15235 = stats.model_usage,
    // output 281), 4 tool events; log status success.
    file: "inspect-ai/browser-gpt-4o-mini.json",
    format: "inspect-ai",
    runs: [
      {
        runId: "inspect-Ta3ZFVTCTcjsb3AEX9FD9v-1-1",
        steps: 8,
        modelCalls: 5,
        toolCalls: 4,
        errors: 0,
        inputTokens: 15235,
        outputTokens: 281,
        status: "succeeded",
      },
    ],
  },
  {
    // 3 samples, each 4 span_begin and 1 model event (64/2, 58/2, 70/2); log status cancelled.
    file: "inspect-ai/popularity-cancelled.json",
    format: "inspect-ai",
    runs: [
      {
        runId: "inspect-7KyCuAQSqp76qKQZEKmG6M-1-1",
        steps: 4,
        modelCalls: 1,
        toolCalls: 0,
        inputTokens: 64,
        outputTokens: 2,
        status: "cancelled",
      },
      {
        runId: "inspect-7KyCuAQSqp76qKQZEKmG6M-2-1",
        steps: 4,
        modelCalls: 1,
        toolCalls: 0,
        inputTokens: 58,
        outputTokens: 2,
        status: "cancelled",
      },
      {
        runId: "inspect-7KyCuAQSqp76qKQZEKmG6M-3-1",
        steps: 4,
        modelCalls: 1,
        toolCalls: 0,
        inputTokens: 70,
        outputTokens: 2,
        status: "cancelled",
      },
    ],
  },
  {
    // TRAIL (Patronus trace export, smolagents): 21 spans in the child_spans tree; 9 with
    // openinference.span.kind LLM (sums of llm.token_count.prompt / completion, written as
    // strings), 2 TOOL (TextInspectorTool failed: status_code Error, 1 exception event; and
    // FinalAnswerTool); errors: 2 spans with status_code Error (the tool and its ToolCallingAgent step).
    file: "patronus/trail-gaia-41bbc898aa7de0f31d2382ff57700a76.json.gz",
    format: "patronus-trace",
    runs: [
      {
        runId: "patronus-41bbc898aa7de0f31d2382ff57700a76",
        steps: 21,
        modelCalls: 9,
        toolCalls: 2,
        errors: 2,
        toolFailures: { error: 1 },
        inputTokens: 24741,
        outputTokens: 7740,
        status: "succeeded",
      },
    ],
  },
  {
    // TRAIL SWE-bench: 14 spans written, 13 distinct span_ids (one LLM span is written twice
    // under Step 4); 6 LLM spans; no TOOL span (the CodeAgent runs its code inside the step); no errors.
    file: "patronus/trail-swe-bench-72822db6e120878d916b515c2501246b.json",
    format: "patronus-trace",
    runs: [
      {
        runId: "patronus-72822db6e120878d916b515c2501246b",
        steps: 13,
        modelCalls: 6,
        toolCalls: 0,
        errors: 0,
        inputTokens: 44526,
        outputTokens: 2244,
        status: "succeeded",
      },
    ],
  },
  {
    // task 2 trial 1: 30 assistant messages (model calls, one step each), 27 tool_calls and 27
    // tool messages, 4 user messages; reward 0.0. The id's hash: first 8 hex of the SHA-256 of
    // the record as sorted-key compact JSON, computed with Python's json + hashlib.
    file: "tau-bench/airline-gpt-4o-task2-failed.json",
    format: "tau-bench",
    runs: [{ runId: "tau-2-1-453dec74", steps: 30, modelCalls: 30, toolCalls: 27, errors: 0, inputs: 4, status: "failed" }],
  },
];

const imported = new Map<string, ReturnType<typeof importTrace>>();
function load(file: string) {
  let r = imported.get(file);
  if (!r) {
    r = importTrace(readCorpus(file), { fileName: file.split("/").pop() });
    imported.set(file, r);
  }
  return r;
}

function checkStructure(runId: string, events: JournalEvent[]) {
  expect(events[0].type).toBe("run.start");
  expect(events[events.length - 1].type).toBe("run.end");
  const stepStart = new Map<string, number>();
  const calls = new Set<string>();
  events.forEach((e, i) => {
    expect(e.seq).toBe(i);
    expect(e.run).toBe(runId);
    if (e.parent !== undefined) expect(e.parent).toBeLessThan(e.seq);
    if (e.type === "step.start" && e.step) stepStart.set(e.step, e.seq);
    else if (e.step !== undefined) {
      // Everything that belongs to a step comes after that step's start.
      expect(stepStart.has(e.step), `${e.type} at seq ${e.seq} before the start of step ${e.step}`).toBe(true);
    }
    if (e.type === "model.request") calls.add(String(e.data.call));
    if (e.type === "model.response") expect(calls.has(String(e.data.call))).toBe(true);
  });
}

describe.each(CASES)("corpus file $file", ({ file, format, runs }) => {
  it(`is detected as ${format}, also from a head cut mid-file`, () => {
    const text = readCorpus(file);
    expect(detectFormat(text, file.split("/").pop()).format).toBe(format);
    expect(detectFormat(text.slice(0, 64 * 1024)).format).toBe(format);
    expect(detectFormat(text.slice(0, 1000)).format).toBe(format);
  });

  it("imports into runs holding what the file holds", () => {
    const result = load(file);
    expect(result.format).toBe(format);
    const text = readCorpus(file);
    const expected = runs.map((r) => ({ ...r, runId: r.runId.replace("<sha16>", sha16(text)).replace("<sha8>", sha16(text).slice(0, 8)) }));
    expect(result.runs.map((r) => r.runId)).toEqual(expected.map((r) => r.runId));
    result.runs.forEach((run, i) => {
      const { runId, ...want } = expected[i];
      const got = summarize(run.events);
      expect(run.runId).toBe(runId);
      for (const [k, v] of Object.entries(want)) expect(got[k as keyof RunSummary], `${runId}: ${k}`).toEqual(v);
      if (!want.toolFailures) expect(got.toolFailures).toEqual({});
    });
  });

  it("produces well-formed journals: seq 0..n-1, run.start first, run.end last, children after parents", () => {
    for (const run of load(file).runs) checkStructure(run.runId, run.events);
  });

  it("every event validates with parseLine(canonicalJson(event)) and re-parses to the same JSON", () => {
    for (const run of load(file).runs) {
      for (const e of run.events) {
        const line = canonicalJson(e);
        const parsed = parseLine(line);
        expect(parsed.ok, `${run.runId} seq ${e.seq} (${e.type}): ${parsed.ok ? "" : parsed.message}`).toBe(true);
        expect(canonicalJson(parseJsonExact(line))).toBe(line);
      }
    }
  });

  it("records the source format in run.start", () => {
    for (const run of load(file).runs) {
      const data = run.events[0].data as { tags?: string[]; source?: { format?: string }; workflow?: { name?: string } };
      expect(data.source?.format).toBe(format);
      expect(data.tags).toContain(format);
      expect(typeof data.workflow?.name).toBe("string");
    }
  });
});

describe("exact ids and times survive", () => {
  const eventsOf = (file: string, i = 0) => load(file).runs[i].events;
  const stepStart = (events: JournalEvent[], step: string) => events.find((e) => e.type === "step.start" && e.step === step);

  it("Tempo: a bare-number nanosecond time beyond 2^53 is kept to the nanosecond in tsNs", () => {
    // First span of the file: "spanId":"21beb323d66610f7", "startTimeUnixNano":1777555053780274700 (a bare number).
    const text = readCorpus("otel-genai/kagent-helm-agent.tempo-otlp.json");
    expect(text).toContain('"spanId":"21beb323d66610f7"');
    expect(text).toContain('"startTimeUnixNano":1777555053780274700');
    const e = stepStart(eventsOf("otel-genai/kagent-helm-agent.tempo-otlp.json"), "21beb323d66610f7");
    expect(e?.tsNs).toBe("1777555053780274700");
    expect(e?.ts).toBe("2026-04-30T13:17:33.780Z");
  });

  it("any-agent: 64- and 128-bit decimal ids become exact hex", () => {
    const text = readCorpus("otel-genai/any-agent-llama-index.json");
    // The invoke_agent root's span id and the trace id, read as digits from the raw text.
    const traceDigits = /"trace_id": (\d+)/.exec(text)?.[1] ?? "";
    expect(traceDigits).toBe("183122279777172322684744876400756953563");
    const rootHex = BigInt("12253070288137891175").toString(16);
    expect(rootHex).toBe("aa0ba681ec5a2d67");
    const events = eventsOf("otel-genai/any-agent-llama-index.json");
    expect(load("otel-genai/any-agent-llama-index.json").runs[0].runId).toBe(`otel-${BigInt(traceDigits).toString(16).padStart(32, "0")}`);
    const root = stepStart(events, rootHex);
    expect(root?.data.name).toBe("invoke_agent [any_agent]");
    // All 8 other spans hang under it.
    expect(events.filter((e) => e.type === "step.start" && e.parent === root?.seq)).toHaveLength(8);
  });

  it("OpenInference: base64 ids are decoded to hex", () => {
    const hex = Buffer.from("tH12H+eb6IruQTQs3VJyaA==", "base64").toString("hex");
    expect(load("openinference-otlp/quotient-rag-earnings-langchain.json").runs[0].runId).toBe(`otel-${hex}`);
    const span = Buffer.from("ziprJqtLsl8=", "base64").toString("hex");
    expect(stepStart(eventsOf("openinference-otlp/quotient-rag-earnings-langchain.json"), span)?.data.name).toBe("RunnableLambda");
  });

  it("Google ADK (any-agent): spans whose parent is missing are kept as roots", () => {
    const events = eventsOf("otel-genai/any-agent-google-adk.json");
    const starts = events.filter((e) => e.type === "step.start");
    expect(starts).toHaveLength(7);
    expect(starts.every((e) => e.parent === undefined)).toBe(true);
  });

  it("Jaeger: the OpenLLMetry call is nested in ADK's call_llm, and its tool call ids are kept", () => {
    const events = eventsOf("jaeger/kagent-helm-agent.jaeger.json");
    const chat = stepStart(events, "6c728e555894414d");
    const parent = events[chat?.parent ?? -1];
    expect(parent.data.name).toBe("call_llm");
    const response = events.find((e) => e.type === "model.response" && e.step === "6c728e555894414d");
    expect(response?.data.output).toEqual({ toolCalls: [{ id: "call_P09kjRKHTTJA02oB9HIe4u5t", name: "helm_list_releases", args: {} }] });
    const tool = events.find((e) => e.type === "tool.call");
    expect(tool?.data).toMatchObject({
      call: "call_P09kjRKHTTJA02oB9HIe4u5t",
      tool: "helm_list_releases",
      effect: "read",
      effectInferred: true,
    });
  });

  it("Langfuse: JSON encoded twice inside a string is decoded", () => {
    const events = eventsOf("langfuse/langfuse-qa-chatbot-mcp-toolcall.json");
    // get-langfuse-prompt's output is a JSON string of a JSON string of an object.
    const prompt = stepStart(events, "d61d56256881d854");
    expect((prompt?.data.output as { name?: string }).name).toBe("langfuse-docs-assistant-text");
    const tool = events.find((e) => e.type === "tool.call");
    expect(tool?.data.args).toEqual({
      query: "What is a dataset in Langfuse? definition, use cases, evaluation, prompt testing, datasets feature docs",
    });
    expect(events[0].data.input).toBe("what is a dataset");
  });

  it("formats without times use 1970-01-01 plus the index in ms and say so", () => {
    for (const file of ["swe-agent/pydicom-1458-gpt4.traj", "tau-bench/airline-gpt-4o-task2-failed.json"]) {
      const r = load(file);
      expect(r.warnings.join(" ")).toMatch(/no timestamps/);
      r.runs[0].events.forEach((e, i) => expect(e.ts).toBe(new Date(i).toISOString()));
      // ...and run.start says so, so that no view shows those times as real ones
      expect(r.runs[0].events[0].data.source).toMatchObject({ timestamps: "synthetic" });
    }
    expect(eventsOf("langfuse/langfuse-qa-chatbot-mcp-toolcall.json")[0].data.source).not.toHaveProperty("timestamps");
  });

  it("SWE-agent: run-level token usage lands on run.end", () => {
    const events = eventsOf("swe-agent/pydicom-1458-gpt4.traj");
    // info.model_stats: tokens_sent 122612, tokens_received 1369, api_calls 12.
    expect(events[events.length - 1].data.usage).toMatchObject({ inputTokens: 122612, outputTokens: 1369, apiCalls: 12 });
  });
});

describe("journals", () => {
  it("a Retrace journal (NDJSON) is detected as retrace-journal and imported as is", () => {
    const text = readCorpus("../examples/00-refund-clean.jsonl");
    expect(detectFormat(text).format).toBe("retrace-journal");
    expect(detectFormat(text.slice(0, 300), "x.jsonl").format).toBe("retrace-journal");
    const r = importTrace(text);
    expect(r.format).toBe("retrace-journal");
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0].events).toHaveLength(text.trim().split("\n").length);
  });

  it("an imported run written as NDJSON reads back identically", () => {
    const run = load("otel-genai/any-agent-google-adk.json").runs[0];
    const ndjson = run.events.map((e) => canonicalJson(e)).join("\n") + "\n";
    expect(detectFormat(ndjson).format).toBe("retrace-journal");
    const back = importTrace(ndjson);
    expect(back.runs[0].events.map((e) => canonicalJson(e))).toEqual(run.events.map((e) => canonicalJson(e)));
  });

  it("text that is no known format is reported as unknown and refused", () => {
    expect(detectFormat("hello world").format).toBe("unknown");
    expect(detectFormat('{"some": "object"}').format).toBe("unknown");
    expect(() => importTrace("hello world")).toThrow(/not recognised/);
  });
});
