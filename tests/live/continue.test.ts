/**
 * lib/live (context.ts, loop.ts, chat-wire.ts, branch-journal.ts, side-by-side.ts), pure: continue the demo refund run (recorded by the real demo
 * agent) from a what-if fork, with the demo's scripted model and fakes as the ports.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent, JsonValue } from "@/lib/journal/types";
import { continuationJournal } from "@/lib/live/branch-journal";
import { chatCompletionsBody, parseChatCompletion, type ModelRequest } from "@/lib/live/chat-wire";
import { continuationStart } from "@/lib/live/context";
import { DEFAULT_POLICY, type ContinueMark, type ContinuePorts } from "@/lib/live/continue-contract";
import { runContinuation } from "@/lib/live/loop";
import { frameMode } from "@/lib/live/mode";
import { sideBySide } from "@/lib/live/side-by-side";
import { PlanError } from "@/lib/live/plan";
import { dataSchemas, envelopeSchema } from "@/lib/journal/schema";
import { ScriptedModel, type ChatMessage } from "@/scripts/demo-agent/model";
import { runScenarios } from "@/scripts/demo-agent/scenarios";

let events: JournalEvent[];
let timeoutSeq: number;
const MARK: ContinueMark = {
  action: "continue",
  executor: "ex_model",
  environment: "sandbox",
  actor: "user:op",
  reason: "what if it had said ok",
  at: "2026-12-01T10:00:00.000Z",
};

/** The scripted model behind the port, with every request kept. */
function scripted(): { ports: ContinuePorts; requests: ModelRequest[]; reads: string[] } {
  const model = new ScriptedModel();
  const requests: ModelRequest[] = [];
  const reads: string[] = [];
  return {
    requests,
    reads,
    ports: {
      model: async (req) => {
        requests.push(req);
        return parseChatCompletion(
          JSON.parse(JSON.stringify(model.complete(chatCompletionsBody(req).messages as unknown as ChatMessage[]))),
        );
      },
      readTool: async (c) => {
        reads.push(`${c.tool} ${JSON.stringify(c.args)}`);
        return { status: "ok", result: { fromExecutor: true } };
      },
    },
  };
}

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-continue-"));
  await runScenarios({ outDir: dir, dbDir: path.join(dir, "bank"), fixedClock: true, scenarios: ["refund-approval"] });
  events = fs
    .readFileSync(path.join(dir, "refund-approval.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as JournalEvent);
  fs.rmSync(dir, { recursive: true, force: true });
  timeoutSeq = events.find((e) => e.type === "tool.result" && e.data.status === "timeout")!.seq;
});

describe("continuation start", () => {
  it("assembles the recorded context up to the fork with the edited tool result substituted", () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok", result: { id: "rf_0001" } } } });
    expect(s.forkSeq).toBe(timeoutSeq);
    expect(s.upTo).toBe(timeoutSeq);
    expect(s.edited).toEqual([timeoutSeq]);
    expect(s.kept.map((e) => e.seq)).toEqual(events.filter((e) => e.seq <= timeoutSeq).map((e) => e.seq));
    expect(frameMode(s.kept[s.kept.length - 1])).toBe("simulated");
    expect(frameMode(s.kept[3])).toBe("recorded");
    const roles = s.messages.map((m) => `${m.role}${m.name ? `:${m.name}` : ""}`);
    expect(roles).toEqual([
      "system",
      "user",
      "assistant",
      "tool:lookup_order",
      "assistant",
      "tool:kb_search",
      "assistant",
      "tool:issue_refund",
    ]);
    // the edit, not the timeout, is what the agent reads back; the turn's assistant message names the call
    expect(s.messages[7]).toMatchObject({ role: "tool", tool_call_id: "call_3", content: '{"id":"rf_0001"}' });
    expect(s.messages[6].tool_calls?.[0].function.name).toBe("issue_refund");
    expect(s.pending).toEqual([]);
    expect(s.setup).toMatchObject({ model: "scripted-planner-1", tools: ["lookup_order", "kb_search", "issue_refund", "check_transfer"] });
  });

  it("refuses what it cannot continue, naming why", () => {
    expect(() => continuationStart(events, { seq: 2, override: { policy: { maxSteps: 1 } } })).toThrow(/no model call at or before seq 2/);
    expect(() => continuationStart(events, { seq: timeoutSeq, override: { approval: "denied" } })).toThrow(PlanError);
    expect(() => continuationStart(events, { seq: 9999 })).toThrow(/no event with seq 9999/);
    const end = events[events.length - 1].seq;
    expect(() => continuationStart(events, { seq: end })).toThrow(/ends the run/);
  });

  it("a model-output fork leaves the edited tool calls pending, answered before the model is called", async () => {
    const resp = events.find((e) => e.type === "model.response" && e.seq > 20)!; // turn 3's (issue_refund)
    const s = continuationStart(events, {
      seq: resp.seq,
      override: { modelOutput: { toolCalls: [{ id: "x1", name: "lookup_order", args: { orderId: "A-1001" } }] } },
    });
    expect(s.pending).toEqual([{ id: "x1", name: "lookup_order", args: { orderId: "A-1001" } }]);
    const m = scripted();
    const out = await runContinuation({ start: s, recording: events, policy: DEFAULT_POLICY, ports: m.ports, mark: MARK });
    // lookup_order with recorded args: answered from the recording (no executor read)
    expect(out.readsFromRecording).toBe(1);
    expect(m.reads).toEqual([]);
    const first = out.added[0];
    expect(first).toMatchObject({ type: "tool.call", data: { tool: "lookup_order", effect: "read" } });
    expect((first.data.live as Record<string, JsonValue>).source).toMatchObject({ kind: "recording" });
  });
});

describe("runContinuation", () => {
  it("tool result edited to ok with the payment: the model is called once and answers; the branch ends succeeded", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok", result: { id: "rf_0001" } } } });
    const m = scripted();
    const out = await runContinuation({ start: s, recording: events, policy: DEFAULT_POLICY, ports: m.ports, mark: MARK });
    expect(m.requests).toHaveLength(1);
    expect(m.requests[0].messages[7].content).toBe('{"id":"rf_0001"}');
    expect(out).toMatchObject({ stop: "final-answer", modelCalls: 1, pendingWrite: null });
    expect(out.finalText).toMatch(/Refunded 49\.99 for order A-1001 \(payment rf_0001\)/);
    expect(out.added.map((e) => e.type)).toEqual(["context", "model.request", "model.response", "decision", "run.end"]);
    expect(out.added[0].seq).toBe(timeoutSeq + 1);
    expect(out.added.every((e) => frameMode(e) === "live")).toBe(true);
    const journal = continuationJournal({ branchRun: "b1", start: s, outcome: out, ts: MARK.at });
    expect(journal[0].data).toMatchObject({ forkOf: { run: "demo-refund-approval", seq: timeoutSeq }, mode: "live" });
    expect(journal.map((e) => e.seq)).toEqual(journal.map((_e, i) => i));
    for (const e of journal) {
      expect(envelopeSchema.safeParse(e).success, `${e.seq} ${e.type}`).toBe(true);
      expect(dataSchemas[e.type as keyof typeof dataSchemas].safeParse(e.data).success, `${e.seq} ${e.type}`).toBe(true);
    }
    expect(journal.every((e) => e.hash === undefined && e.run === "b1")).toBe(true);
  });

  it("status ok with no result: the agent asks for the refund again, a write, and the continuation stops for confirmation", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok" } } });
    const m = scripted();
    const out = await runContinuation({ start: s, recording: events, policy: DEFAULT_POLICY, ports: m.ports, mark: MARK });
    expect(out.stop).toBe("write-needs-confirmation");
    expect(out.pendingWrite).toMatchObject({ tool: "issue_refund", args: { orderId: "A-1001", amountCents: 4999 } });
    const call = out.added.find((e) => e.type === "tool.call")!;
    expect((call.data.live as Record<string, JsonValue>).pending).toBe(true);
    // the scripted model numbers its calls from call_1 again: renamed, the same in the response and the call
    expect(call.data.call).toMatch(/^call_1\.live-\d+-0$/);
    const resp = out.added.find((e) => e.type === "model.response")!;
    expect((resp.data.output as { toolCalls: { id: string }[] }).toolCalls[0].id).toBe(call.data.call);
    // never answered: no tool.result for it, and nothing but the model was asked
    expect(out.added.filter((e) => e.type === "tool.result")).toEqual([]);
    expect(m.reads).toEqual([]);
    expect(out.added[out.added.length - 1]).toMatchObject({ type: "run.end", data: { status: "cancelled" } });
  });

  it("sandbox-only blocks the write with an error to the agent, and the turn bound stops the loop", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok" } } });
    const m = scripted();
    const out = await runContinuation({
      start: s,
      recording: events,
      policy: { ...DEFAULT_POLICY, writes: "block", maxTurns: 1 },
      ports: m.ports,
      mark: MARK,
    });
    expect(out).toMatchObject({ stop: "max-turns", modelCalls: 1, writesBlocked: 1, pendingWrite: null });
    expect(m.requests).toHaveLength(1);
    const blocked = out.added.filter((e) => e.type === "tool.result");
    expect(blocked.every((e) => e.data.status === "error" && JSON.stringify(e.data.error).includes("sandbox-only"))).toBe(true);
  });

  it("resume policy: a write equal to a confirmed recorded one is answered from the recording, not sent", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok" } } });
    const m = scripted();
    const out = await runContinuation({
      start: s,
      recording: events,
      policy: { ...DEFAULT_POLICY, reuseConfirmedWrites: true, maxTurns: 2 },
      ports: m.ports,
      mark: MARK,
    });
    // the recorded issue_refund timed out and was reconciled as succeeded: reused as ok
    expect(out.writesReused).toBeGreaterThan(0);
    const reused = out.added.find((e) => e.type === "tool.result")!;
    expect(reused.data).toMatchObject({ status: "ok" });
    expect(out.pendingWrite).toBeNull();
  });

  it("a read with arguments the recording lacks goes to the read executor; with none it stops and says so", async () => {
    const resp = events.find((e) => e.type === "model.response")!;
    const override = { modelOutput: { toolCalls: [{ id: "q", name: "kb_search", args: { query: "something else" } }] } };
    const m = scripted();
    const s = continuationStart(events, { seq: resp.seq, override });
    const out = await runContinuation({
      start: s,
      recording: events,
      policy: { ...DEFAULT_POLICY, maxTurns: 1 },
      ports: m.ports,
      mark: MARK,
    });
    expect(m.reads).toEqual(['kb_search {"query":"something else"}']);
    expect(out.readsFromExecutor).toBe(1);
    const none = await runContinuation({
      start: continuationStart(events, { seq: resp.seq, override }),
      recording: events,
      policy: DEFAULT_POLICY,
      ports: { ...m.ports, readTool: null },
      mark: MARK,
    });
    expect(none.stop).toBe("read-needs-executor");
    expect(none.modelCalls).toBe(0);
  });

  it("a model executor that fails stops with model-error and a failed run.end", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok" } } });
    const out = await runContinuation({
      start: s,
      recording: events,
      policy: DEFAULT_POLICY,
      ports: { model: async () => Promise.reject(new Error("HTTP 500")), readTool: null },
      mark: MARK,
    });
    expect(out.stop).toBe("model-error");
    expect(out.added.find((e) => e.type === "model.response")?.data.error).toEqual({ message: "HTTP 500" });
    expect(out.added[out.added.length - 1].data.status).toBe("failed");
  });
});

describe("sideBySide", () => {
  it("marks the first divergence at the edited seq, and every branch frame's mode", async () => {
    const s = continuationStart(events, { seq: timeoutSeq, override: { toolResult: { status: "ok", result: { id: "rf_0001" } } } });
    const out = await runContinuation({ start: s, recording: events, policy: DEFAULT_POLICY, ports: scripted().ports, mark: MARK });
    const branch = continuationJournal({ branchRun: "b1", start: s, outcome: out, ts: MARK.at });
    const from = timeoutSeq - 2;
    const view = sideBySide(
      events.filter((e) => e.seq >= from),
      branch.filter((e) => e.seq >= from),
    );
    expect(view.firstDivergence).toBe(timeoutSeq);
    expect(view.rows[0]).toMatchObject({ seq: from, differs: false, branch: { mode: "recorded" } });
    expect(view.rows.find((r) => r.seq === timeoutSeq)).toMatchObject({
      differs: true,
      branch: { type: "tool.result", mode: "simulated" },
    });
    expect(view.rows.find((r) => r.seq === timeoutSeq + 1)).toMatchObject({
      original: { type: "tool.call" },
      branch: { type: "context", mode: "live" },
    });
    // the copies before the fork are the original's, marks and hashes aside
    expect(sideBySide(events.slice(0, timeoutSeq), branch.slice(0, timeoutSeq)).firstDivergence).toBeNull();
  });
});
