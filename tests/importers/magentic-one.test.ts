/**
 * Magentic-One `log.jsonl` (autogen-magentic-one, 2024): one real log of nine runs appended
 * to one file (tests/fixtures/agent-logs/SOURCES.md). Expected counts are read off the lines
 * with plain JSON reading and regular expressions, not through the importer: a run starts
 * at a `UserProxy` message (not answering `Orchestrator (-> UserProxy)`); every
 * `LLMCallEvent` is a model call with its tokens; an Executor reply "The script ran, then
 * exited with Unix exit code: N" is a code execution, failed when N is not 0.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Line = { timestamp: string; type: string; source?: string; message?: string; prompt_tokens?: number; completion_tokens?: number };
const DIR = fileURLToPath(new URL("../fixtures/agent-logs/", import.meta.url));
const FILE = "magentic-one-dream-team-log.jsonl";
const text = readFileSync(path.join(DIR, FILE), "utf8");
const lines = text
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Line);
const EXIT = /^The script ran, then exited with Unix exit code: (-?\d+)/;
/** microseconds of a log timestamp (local time without zone, read as UTC like the importer) */
const micros = (ts: string) => BigInt(Date.parse(`${ts.slice(0, 19)}Z`)) * 1000n + BigInt(ts.slice(20, 26));

describe("Magentic-One log", () => {
  const result = importTrace(text, { fileName: FILE });
  const all = result.runs.flatMap((r) => r.events);

  it("is detected from its content, also from a cut head, and every event is a valid journal line", () => {
    expect(detectFormat(text).format).toBe("magentic-one");
    expect(detectFormat(text, "log.txt").format).toBe("magentic-one");
    expect(detectFormat(text.slice(0, 2000)).format).toBe("magentic-one");
    for (const e of all) {
      const parsed = parseLine(canonicalJson(e));
      expect(parsed.ok, `${e.run} seq ${e.seq} (${e.type}): ${parsed.ok ? "" : parsed.message}`).toBe(true);
    }
  });

  it("splits the appended runs, one model call per LLMCallEvent with its tokens, one code execution per Executor reply", () => {
    const starts = lines.filter(
      (l, i) =>
        l.source === "UserProxy" &&
        lines
          .slice(0, i)
          .filter((p) => p.type === "OrchestrationEvent")
          .pop()?.source !== "Orchestrator (-> UserProxy)",
    );
    expect(result.runs.length).toBe(starts.length);
    const llm = lines.filter((l) => l.type === "LLMCallEvent");
    const s = summarize(all);
    expect(s.modelCalls).toBe(llm.length);
    expect(s.inputTokens).toBe(llm.reduce((n, l) => n + (l.prompt_tokens ?? 0), 0));
    expect(s.outputTokens).toBe(llm.reduce((n, l) => n + (l.completion_tokens ?? 0), 0));
    const execs = lines.filter((l) => EXIT.test(l.message ?? ""));
    expect(s.toolCalls).toBe(execs.length);
    expect(s.toolFailures.error ?? 0).toBe(execs.filter((l) => EXIT.exec(l.message ?? "")?.[1] !== "0").length);
    expect(s.inputs).toBe(lines.filter((l) => l.source === "UserProxy").length);
  });

  it("a run with a final answer succeeded; one the log stops in before its termination line is cancelled", () => {
    const finals = lines.filter((l) => l.source === "Orchestrator (final answer)");
    const terminations = lines.filter((l) => l.source === "Orchestrator (termination condition)");
    const ends = result.runs.map((r) => r.events[r.events.length - 1]);
    expect(ends.filter((e) => e.data.status === "succeeded").length).toBe(finals.length);
    expect(ends.filter((e) => e.data.status === "cancelled").length).toBe(result.runs.length - terminations.length);
    expect(ends.filter((e) => e.data.output !== undefined).map((e) => e.data.output)).toEqual(finals.map((l) => l.message));
    for (const r of result.runs) expect(r.runId).toMatch(/^magentic-one-\d{8}T\d{6}-[0-9a-f]{8}$/);
  });

  it("the code execution lasts from the line before the Executor's reply to the reply", () => {
    const i = lines.findIndex((l) => EXIT.test(l.message ?? ""));
    const expected = Number(micros(lines[i].timestamp) - micros(lines[i - 1].timestamp)) / 1000;
    expect(expected).toBe(9806.505);
    const res = all.find((e) => e.type === "tool.result");
    expect(res?.data.latencyMs).toBe(expected);
    const call = all.find((e) => e.type === "tool.call");
    expect(BigInt(res?.tsNs as string) - BigInt(call?.tsNs as string)).toBe(BigInt(expected * 1e6));
  });

  it("a model call answers with the message logged after it, at the LLMCallEvent's time, in the speaker's step", () => {
    const i = lines.findIndex((l) => l.source === "Coder");
    expect(lines[i - 1].type).toBe("LLMCallEvent");
    const run = result.runs[0].events;
    const res = run.find((e) => e.type === "model.response" && (e.data.output as { text?: string }).text === lines[i].message);
    expect(res?.tsNs).toBe(String(micros(lines[i - 1].timestamp) * 1000n));
    const start = run.find((e) => e.type === "step.start" && e.step === res?.step);
    expect(start?.data.agent).toBe("Coder");
  });
});
