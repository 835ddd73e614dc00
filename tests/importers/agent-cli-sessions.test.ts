/**
 * Sessions written by coding-agent CLIs installed from npm and run here against a scripted
 * loopback model (tests/fixtures/agent-cli/SOURCES.md): Gemini CLI's upsert log and Qwen
 * Code's record tree. Every expected count is read off the raw file with plain JSON here,
 * never from the importer's output.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Obj = Record<string, unknown>;
const read = (name: string) => readFileSync(new URL(`../fixtures/agent-cli/${name}`, import.meta.url), "utf8");
const records = (text: string): Obj[] =>
  text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Obj);

describe("Gemini CLI 0.61 chat recording (.jsonl)", () => {
  const text = read("gemini-cli-0.61-session.jsonl");
  const raw = records(text);
  // the last copy of each gemini message carries its tool calls with their results
  const last = new Map<string, Obj>();
  for (const r of raw) if (r.type === "gemini") last.set(String(r.id), r);
  const calls = [...last.values()].flatMap((m) => (m.toolCalls as Obj[] | undefined) ?? []);
  const failed = calls.filter((c) =>
    ((c.result as Obj[] | undefined) ?? []).some(
      (p) => ((p.functionResponse as Obj | undefined)?.response as Obj | undefined)?.error !== undefined,
    ),
  );
  const prompt = raw.find(
    (r) => r.type === "user" && Array.isArray(r.content) && (r.content as Obj[]).every((p) => typeof p.text === "string"),
  );

  it("is detected from its content and imports every model call, tool call and failure", () => {
    expect(detectFormat(text, "session.jsonl").format).toBe("gemini-cli");
    const r = importTrace(text, { fileName: "session.jsonl" });
    expect(r.warnings).toEqual([]);
    const events = r.runs[0].events;
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    expect(r.runs[0].runId).toBe(`gemini-${String(raw[0].sessionId)}`);
    const s = summarize(events);
    expect(s.modelCalls).toBe(last.size);
    expect(s.toolCalls).toBe(calls.length);
    expect(s.toolFailures.error ?? 0).toBe(failed.length);
    expect(failed.length).toBeGreaterThan(0);
    const outTokens = [...last.values()].reduce((n, m) => n + Number((m.tokens as Obj).output), 0);
    expect(s.outputTokens).toBe(outTokens);
    // each call joined to its own result
    for (const c of calls) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === c.id);
      const res = events.find((e) => e.type === "tool.result" && e.data.call === c.id);
      expect(call?.data.args).toEqual(c.args);
      expect(res && call && res.parent === call.seq).toBe(true);
    }
    // the typed prompt is the input; the copies of tool results in the history are not inputs
    expect(events.filter((e) => e.type === "input").map((e) => e.data.content)).toEqual([((prompt?.content as Obj[])[0] as Obj).text]);
    // write_file is a write; the session context Gemini CLI set is the first request's messages
    expect(events.find((e) => e.type === "tool.call" && e.data.tool === "write_file")?.data.effect).toBe("write");
    const first = events.find((e) => e.type === "model.request");
    expect(String((first?.data.messages as Obj[])[0].content)).toContain("<session_context>");
  });

  it("a $rewindTo drops that message and every later one, as Gemini CLI reads it", () => {
    const ids = [...last.keys()];
    const rewound = `${text.trim()}\n${JSON.stringify({ $rewindTo: ids[ids.length - 2] })}\n`;
    const s = summarize(importTrace(rewound, { fileName: "s.jsonl" }).runs[0].events);
    expect(s.modelCalls).toBe(last.size - 2);
  });

  it("a message written again replaces its first copy in place (no call counted twice)", () => {
    const copies = raw.filter((r) => r.type === "gemini").length;
    expect(copies).toBeGreaterThan(last.size);
  });
});

describe("Gemini CLI 0.20 chat recording (legacy .json)", () => {
  const text = read("gemini-cli-0.20-session.json");
  const doc = JSON.parse(text) as { sessionId: string; messages: Obj[] };

  it("imports the whole-file record: its messages, tool calls and failures", () => {
    const gemini = doc.messages.filter((m) => m.type === "gemini");
    const calls = gemini.flatMap((m) => (m.toolCalls as Obj[] | undefined) ?? []);
    const failed = calls.filter((c) => c.status === "error");
    expect(detectFormat(text, "session.json").format).toBe("gemini-cli");
    const r = importTrace(text, { fileName: "session.json" });
    expect(r.runs[0].runId).toBe(`gemini-${doc.sessionId}`);
    const s = summarize(r.runs[0].events);
    expect(s.modelCalls).toBe(gemini.length);
    expect(s.toolCalls).toBe(calls.length);
    expect(s.toolFailures.error ?? 0).toBe(failed.length);
    expect(failed.length).toBeGreaterThan(0);
  });
});

describe("Qwen Code 0.24 session (.jsonl record tree)", () => {
  const text = read("qwen-code-0.24-session.jsonl");
  const raw = records(text);
  const assistant = raw.filter((r) => r.type === "assistant");
  const parts = (r: Obj) => ((r.message as Obj | undefined)?.parts as Obj[] | undefined) ?? [];
  const calls = assistant.flatMap(parts).filter((p) => p.functionCall);
  const results = raw.filter((r) => r.type === "tool_result");
  const failed = results.filter((r) =>
    parts(r).some((p) => ((p.functionResponse as Obj | undefined)?.response as Obj | undefined)?.error !== undefined),
  );

  it("is told apart from a Claude Code session and imports every call with its result", () => {
    expect(detectFormat(text, "s.jsonl").format).toBe("qwen-code");
    const r = importTrace(text, { fileName: "s.jsonl" });
    const events = r.runs[0].events;
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    expect(r.runs[0].runId).toBe(`qwen-${String(raw[0].sessionId)}`);
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistant.length);
    expect(s.toolCalls).toBe(calls.length);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(results.length);
    expect(s.toolFailures.error ?? 0).toBe(failed.length);
    expect(failed.length).toBeGreaterThan(0);
    const outTokens = assistant.reduce((n, m) => n + Number((m.usageMetadata as Obj | undefined)?.candidatesTokenCount ?? 0), 0);
    expect(s.outputTokens).toBe(outTokens);
    const start = events[0].data as { agent: Obj; source: Obj };
    expect(start.agent.version).toBe(raw[0].version);
    expect(start.source.cwd).toBe(raw[0].cwd);
    // the bookkeeping records are named in one warning, not imported
    const system = raw.filter((x) => x.type === "system" && x.subtype !== "chat_compression").length;
    expect(r.warnings).toEqual([`left out ${system} bookkeeping record(s) (system telemetry, titles, snapshots, modes)`]);
  });
});

describe("OpenCode 1.18 session export", () => {
  const text = read("opencode-1.18-export.json");
  const doc = JSON.parse(text) as { info: Obj; messages: Array<{ info: Obj; parts: Obj[] }> };
  const assistant = doc.messages.filter((m) => m.info.role === "assistant");
  const parts = assistant.flatMap((m) => m.parts);
  const tools = parts.filter((p) => p.type === "tool");
  const failed = tools.filter((p) => (p.state as Obj).status === "error");

  it("imports one model call per step, every tool part joined to its result, with durations in ms", () => {
    expect(detectFormat(text, "export.json").format).toBe("opencode");
    const r = importTrace(text, { fileName: "export.json" });
    expect(r.runs[0].runId).toBe(`opencode-${String(doc.info.id)}`);
    const events = r.runs[0].events;
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    const s = summarize(events);
    expect(s.modelCalls).toBe(parts.filter((p) => p.type === "step-finish").length);
    expect(s.toolCalls).toBe(tools.length);
    expect(s.toolFailures.error ?? 0).toBe(failed.length);
    expect(failed.length).toBeGreaterThan(0);
    expect(s.outputTokens).toBe(parts.filter((p) => p.type === "step-finish").reduce((n, p) => n + Number((p.tokens as Obj).output), 0));
    // a tool's duration is its own end − start, in milliseconds
    for (const p of tools) {
      const t = (p.state as Obj).time as { start: number; end: number };
      const res = events.find((e) => e.type === "tool.result" && e.data.call === p.callID);
      expect(res?.data.latencyMs).toBe(t.end - t.start);
    }
    // the first call of a message: from the message's creation to its first tool starting
    const m0 = assistant[0];
    const firstTool = m0.parts.find((p) => p.type === "tool");
    const start = ((firstTool?.state as Obj).time as { start: number }).start;
    const resp = events.find((e) => e.type === "model.response" && e.data.call === m0.info.id);
    expect(resp?.data.latencyMs).toBe(start - Number((m0.info.time as Obj).created));
  });
});

describe("Claude Code 2.1.337 session, written by the CLI from npm", () => {
  const text = read("claude-code-2.1.337-session.jsonl");
  const raw = records(text);
  const blocks = (l: Obj): Obj[] => {
    const c = (l.message as Obj | undefined)?.content;
    return Array.isArray(c) ? (c as Obj[]) : [];
  };
  const uses = raw.flatMap(blocks).filter((b) => b.type === "tool_use");
  const results = raw.flatMap(blocks).filter((b) => b.type === "tool_result");
  const assistant = raw.filter((l) => l.type === "assistant");

  it("imports with all its tool calls, whatever new bookkeeping lines 2.1.3xx writes", () => {
    expect(new Set(raw.map((l) => l.type)).size).toBeGreaterThan(8);
    expect(detectFormat(text, "s.jsonl").format).toBe("claude-code");
    const r = importTrace(text, { fileName: "s.jsonl" });
    expect(r.warnings).toEqual([]);
    const events = r.runs[0].events;
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    const s = summarize(events);
    expect(s.modelCalls).toBe(new Set(assistant.map((l) => (l.message as Obj).id)).size);
    expect(s.toolCalls).toBe(uses.length);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(results.length);
    expect(s.toolFailures.error ?? 0).toBe(results.filter((b) => b.is_error === true).length);
    expect((events[0].data.agent as Obj).version).toBe(raw.find((l) => typeof l.version === "string")?.version);
  });

  it("a model call's latency runs from its api-request line to the response's last line", () => {
    const events = importTrace(text, { fileName: "s.jsonl" }).runs[0].events;
    let sent: number | undefined;
    const expected = new Map<unknown, number>();
    for (const l of raw) {
      if (l.type === "api-request") sent = Date.parse(String(l.timestamp));
      if (l.type === "assistant" && sent !== undefined) expected.set((l.message as Obj).id, Date.parse(String(l.timestamp)) - sent);
      if (l.type === "user") sent = undefined;
    }
    expect(expected.size).toBe(new Set(assistant.map((l) => (l.message as Obj).id)).size);
    for (const [id, ms] of expected) expect(events.find((e) => e.type === "model.response" && e.data.call === id)?.data.latencyMs).toBe(ms);
  });
});
