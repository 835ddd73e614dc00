/**
 * OpenAI Agents SDK saved run states: two real ones from cloudflare/agents (a final answer,
 * and a run paused on a tool approval; SDK schema 1.0) and one written by the real
 * @openai/agents 0.20 against a scripted model (schema 1.22: a handoff, a failing tool, a
 * pending approval; scripts/fixtures/openai-agents-runstate.ts). Expected counts are read off
 * the files with plain JSON reading.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { summarize } from "./helpers";

type Obj = Record<string, unknown>;
const read = (name: string) => readFileSync(new URL(`../fixtures/agent-logs/${name}`, import.meta.url), "utf8");
const FILES = [
  "cloudflare-agents-runstate-final-output.json",
  "cloudflare-agents-runstate-pending-approval.json",
  "openai-agents-0.20-runstate-pending-approval.json",
];

describe.each(FILES)("OpenAI Agents RunState %s", (name) => {
  const text = read(name);
  const state = JSON.parse(text) as Obj;
  const items = state.generatedItems as Obj[];
  const responses = state.modelResponses as Obj[];
  const interruptions = (((state.currentStep as Obj).data as Obj | undefined)?.interruptions as Obj[] | undefined) ?? [];
  const result = importTrace(text, { fileName: name });
  const events = result.runs[0].events;

  it("is detected from its content and every event is a valid journal line", () => {
    expect(detectFormat(text).format).toBe("openai-agents");
    expect(detectFormat(text, "state.txt").format).toBe("openai-agents");
    for (const e of events) {
      const parsed = parseLine(canonicalJson(e));
      expect(parsed.ok, `seq ${e.seq} (${e.type}): ${parsed.ok ? "" : parsed.message}`).toBe(true);
    }
  });

  it("imports its model calls, tool calls and failed tool calls", () => {
    const s = summarize(events);
    expect(s.modelCalls).toBe(responses.length);
    expect(s.toolCalls).toBe(items.filter((i) => i.type === "tool_call_item" || i.type === "handoff_call_item").length);
    const failed = items.filter(
      (i) => i.type === "tool_call_output_item" && /^An error occurred while running the tool/.test(String(i.output)),
    );
    expect(s.toolFailures.error ?? 0).toBe(failed.length);
    const tokens = responses.reduce((n, r) => n + Number((r.usage as Obj).inputTokens), 0);
    expect(s.inputTokens).toBe(tokens);
  });

  it("a pending approval is an approval.request with no decision, and the paused run has no run.end", () => {
    const requests = events.filter((e) => e.type === "approval.request");
    expect(requests.map((e) => e.data.call)).toEqual(interruptions.map((i) => (i.rawItem as Obj).callId));
    expect(events.filter((e) => e.type === "approval.decision")).toHaveLength(0);
    expect(events.some((e) => e.type === "run.end")).toBe(interruptions.length === 0);
  });

  it("records no durations: the state has no times", () => {
    for (const e of events) if (e.type === "model.response") expect(e.data).not.toHaveProperty("latencyMs");
    expect((events[0].data.source as Obj).timestamps).toBeDefined();
  });
});

describe("OpenAI Agents RunState with a handoff (real SDK)", () => {
  const events = importTrace(read("openai-agents-0.20-runstate-pending-approval.json")).runs[0].events;
  const stepStart = (name: string) =>
    events.find((e) => e.type === "step.start" && e.data.kind === "agent" && e.data.name === name) as JournalEvent;

  it("the agent handed off to is a child step of the agent that handed off", () => {
    const triage = stepStart("triage");
    const refund = stepStart("refund_agent");
    expect(refund.parent).toBe(triage.seq);
    // the refund agent's model calls run as that agent
    const calls = events.filter((e) => e.type === "step.start" && e.data.kind === "llm");
    expect(calls.map((e) => e.data.agent)).toEqual(["triage", "refund_agent", "refund_agent", "refund_agent"]);
  });

  it("keeps reasoning apart from text and tool arguments as objects", () => {
    const out = events.filter((e) => e.type === "model.response").map((e) => e.data.output as Obj);
    expect(out[0]).toMatchObject({ reasoning: "A refund request: the refund agent handles it." });
    expect(out[0]).not.toHaveProperty("text");
    expect(out[3]).toMatchObject({
      text: "Refunding 40 EUR.",
      toolCalls: [{ id: "call_r1", name: "issue_refund", args: { order: "A-1001", amount: 40 } }],
    });
  });

  it("the second request holds the handoff's result, joined to its call", () => {
    const second = events.filter((e) => e.type === "model.request")[1];
    expect(second.data.messages).toEqual([
      { role: "tool", content: '{"assistant":"refund_agent"}', toolCallId: "call_h1", name: "transfer_to_refund_agent" },
    ]);
  });
});
