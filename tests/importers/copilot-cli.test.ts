/**
 * A GitHub Copilot CLI session (`~/.copilot/session-state/<id>/events.jsonl`) written by
 * `@github/copilot` 1.0.102 from npm, run offline against the scripted fake OpenAI upstream
 * (tests/fixtures/agent-cli/SOURCES.md), with a sub-agent. Every expected value is read off
 * the raw file with plain JSON here, never from the importer's output.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importSessionFiles, importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Obj = Record<string, unknown>;
const text = readFileSync(new URL("../fixtures/agent-cli/copilot-cli-1.0.102-events.jsonl", import.meta.url), "utf8");
const lines = text
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Obj);
const data = (e: Obj) => e.data as Obj;
const ofType = (t: string) => lines.filter((e) => e.type === t);
const ms = (iso: unknown) => Date.parse(String(iso));

describe("GitHub Copilot CLI 1.0.102 session (events.jsonl)", () => {
  const messages = ofType("assistant.message");
  const requests = messages.flatMap((m) => (data(m).toolRequests as Obj[]) ?? []);
  const completes = ofType("tool.execution_complete");
  const usage = ofType("session.usage_record").map((e) => ({ t: ms(e.timestamp), u: data(e).usage as Obj, agent: e.agentId }));
  const start = data(ofType("session.start")[0]);

  it("is detected from its content and imports every model call, tool call, failure, sub-agent and duration", () => {
    expect(detectFormat(text, "log.jsonl").format).toBe("copilot-cli");
    const r = importTrace(text, { fileName: "events.jsonl" });
    expect(r.warnings).toEqual([]);
    const events = r.runs[0].events;
    for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
    expect(r.runs[0].runId).toBe(`copilot-${String(start.sessionId)}`);
    const s = summarize(events);
    expect(s.modelCalls).toBe(messages.length);
    expect(s.toolCalls).toBe(requests.length);
    expect(s.toolFailures.error ?? 0).toBe(completes.filter((c) => data(c).success === false).length);
    expect(s.toolFailures.error).toBeGreaterThan(0);
    expect(s.errors).toBe(ofType("session.error").length);
    expect(s.inputTokens).toBe(usage.reduce((n, x) => n + Number(x.u.inputTokens), 0));
    expect(s.outputTokens).toBe(usage.reduce((n, x) => n + Number(x.u.outputTokens), 0));
    // a model call's duration is the one its usage record gives, and it was asked that long before the record
    const responses = events.filter((e) => e.type === "model.response");
    expect(responses.map((e) => e.data.latencyMs).sort()).toEqual(usage.map((x) => Number(x.u.duration)).sort());
    for (const x of usage) {
      const res = responses.find((e) => ms(e.ts) === x.t && e.data.latencyMs === Number(x.u.duration));
      expect(res).toBeDefined();
      const req = events.find((e) => e.type === "model.request" && e.data.call === res?.data.call);
      expect(x.t - ms(req?.ts)).toBe(Math.round(Number(x.u.duration)));
    }
    // each tool call joined to its result, its duration from its start and complete events
    for (const q of requests) {
      const id = q.toolCallId;
      const call = events.find((e) => e.type === "tool.call" && e.data.call === id);
      const res = events.find((e) => e.type === "tool.result" && e.data.call === id);
      expect(call?.data.args).toEqual(q.arguments);
      expect(res?.parent).toBe(call?.seq);
      const began = ofType("tool.execution_start").find((e) => data(e).toolCallId === id);
      const done = completes.find((e) => data(e).toolCallId === id);
      expect(res?.data.latencyMs).toBe(ms(done?.timestamp) - ms(began?.timestamp));
    }
    // the sub-agent is a step under the call that started it, its model calls inside it
    const started = ofType("subagent.started")[0];
    const agentStep = events.find((e) => e.type === "step.start" && e.data.kind === "agent");
    const taskCall = events.find((e) => e.type === "tool.call" && e.data.call === data(started).toolCallId);
    const taskStep = events.find((e) => e.type === "step.start" && e.step === taskCall?.step);
    expect(agentStep?.parent).toBe(taskStep?.seq);
    const inside = events.filter((e) => e.type === "step.start" && e.data.kind === "llm" && e.parent === agentStep?.seq);
    expect(inside).toHaveLength(messages.filter((m) => m.agentId === started.agentId).length);
    // only the user's prompt is the input; version and working directory are run facts
    expect(events.filter((e) => e.type === "input").map((e) => e.data.content)).toEqual(
      ofType("user.message")
        .filter((e) => !e.agentId)
        .map((e) => data(e).content),
    );
    const run = events[0].data as Obj;
    expect((run.agent as Obj).version).toBe(start.copilotVersion);
    expect((run.source as Obj).cwd).toBe((start.context as Obj).cwd);
  });

  it("the session folder imports the same run (workspace.yaml and other files left out, counted)", () => {
    const r = importSessionFiles([
      { name: "session-state/x/events.jsonl", text },
      { name: "session-state/x/workspace.yaml", text: "id: x\ncwd: /tmp\n" },
    ]);
    expect(r.format).toBe("copilot-cli");
    expect(r.runs).toHaveLength(1);
    expect(r.warnings.join("\n")).toMatch(/1 file\(s\) in the folder are in no format Retrace reads/);
  });
});
