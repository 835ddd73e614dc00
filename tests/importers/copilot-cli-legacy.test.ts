/**
 * A GitHub Copilot CLI legacy session (`~/.copilot/history-session-state/session_<id>_<ms>.json`)
 * written by `@github/copilot` 0.0.340 from npm, the only published version that writes this
 * file, run offline against the scripted fake OpenAI upstream (tests/fixtures/agent-cli/SOURCES.md).
 * Every expected value is read off the raw file with plain JSON here, never from the importer.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Obj = Record<string, unknown>;
const text = readFileSync(new URL("../fixtures/agent-cli/copilot-cli-0.0.340-legacy-session.json", import.meta.url), "utf8");
const doc = JSON.parse(text) as { sessionId: string; startTime: string; chatMessages: Obj[]; timeline: Obj[] };
const assistants = doc.chatMessages.filter((m) => m.role === "assistant");
const toolCalls = assistants.flatMap((m) => (m.tool_calls as Obj[] | undefined) ?? []);
const completed = doc.timeline.filter((e) => e.type === "tool_call_completed");
const ms = (iso: unknown) => Date.parse(String(iso));

describe("GitHub Copilot CLI 0.0.340 legacy session (history-session-state JSON)", () => {
  const r = importTrace(text, { fileName: "session.json" });
  const events = r.runs[0].events;

  it("is detected from its content and imports every model call, tool call and failure", () => {
    expect(detectFormat(text, "upload.json").format).toBe("copilot-cli");
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0].runId).toBe(`copilot-${doc.sessionId}`);
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistants.length);
    expect(s.toolCalls).toBe(toolCalls.length);
    // the timeline says which tool failed (`result.type: failure`); the tool message alone does not
    const failures = completed.filter((e) => (e.result as Obj).type === "failure").length;
    expect(failures).toBe(1);
    expect(s.toolFailures).toEqual({ error: failures });
  });

  it("joins each tool call to its answer, with the failure's message from the timeline", () => {
    for (const c of toolCalls) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === c.id)!;
      expect(call.data.args).toEqual(JSON.parse(String((c.function as Obj).arguments)));
      const answer = doc.chatMessages.find((m) => m.role === "tool" && m.tool_call_id === c.id)!;
      const result = events.find((e) => e.type === "tool.result" && e.data.call === c.id)!;
      expect(result.data.result).toBe(answer.content);
      const done = completed.find((e) => e.callId === c.id)!;
      const outcome = done.result as Obj;
      expect(result.data.status).toBe(outcome.type === "failure" ? "error" : "ok");
      if (outcome.type === "failure") expect(result.data.error).toBe(outcome.log);
      // a tool's answer is dated when the timeline says it completed
      expect(Date.parse(result.ts)).toBe(ms(done.timestamp));
    }
  });

  it("dates the prompt and each shown answer from the timeline, not all at the session's start", () => {
    const input = events.find((e) => e.type === "input")!;
    expect(Date.parse(input.ts)).toBe(ms(doc.timeline.find((e) => e.type === "user")!.timestamp));
    const shown = doc.timeline.filter((e) => e.type === "copilot").map((e) => ms(e.timestamp));
    const answered = events
      .filter((e) => e.type === "model.response" && typeof (e.data.output as Obj | undefined)?.text === "string")
      .map((e) => Date.parse(e.ts));
    expect(answered).toEqual(shown);
    expect(Date.parse(events[0].ts)).toBe(ms(doc.startTime));
    expect(r.warnings).toEqual([]);
    // no duration the file does not hold: no latency on any call or tool
    for (const e of events) expect(e.data).not.toHaveProperty("latencyMs");
  });
});
