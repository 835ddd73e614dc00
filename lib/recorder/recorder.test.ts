import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson, hashOf } from "../canonical";
import { parseLine } from "../journal/parse-line";
import { readJournalText } from "../journal/reader";
import { createRecorder, fileSink, memorySink, ToolOutcomeUnknownError, ToolTimeoutError, verifyChain } from "./index";

/** A clock that moves 5 ms each time it is read: reproducible times and latencies. */
function steppingClock(start = Date.UTC(2026, 10, 7, 11, 0, 0)) {
  let t = start;
  return () => (t += 5);
}

const tmp = mkdtempSync(join(tmpdir(), "retrace-recorder-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("recorder", () => {
  it("records a run whose events validate, are in seq order and whose chain hashes verify", async () => {
    const sink = memorySink();
    const errors: Error[] = [];
    const rec = createRecorder({
      runId: "rec-unit-1",
      workflow: { name: "refund", version: "1" },
      agent: { name: "refund-agent", version: "0.1.0" },
      versions: { models: { planner: "stub-1" } },
      environment: "test",
      initiator: { kind: "user", id: "u1" },
      policy: { requireApproval: ["pay"], maxSteps: 5 },
      sink,
      clock: steppingClock(),
      onError: (e) => errors.push(e),
    });
    rec.input("refund order A-1");
    const ctx = rec.context({ messages: [{ role: "user", content: "refund order A-1" }], instructions: ["policy"] });
    await rec.step("plan", async () => {
      const out = await rec.model({ model: "stub-1", context: ctx }, async () => ({
        choices: [
          {
            message: { content: null, tool_calls: [{ id: "c1", function: { name: "lookup", arguments: '{"order":"A-1"}' } }] },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 3 },
      }));
      expect(out.choices).toHaveLength(1);
      await rec.tool("lookup", { effect: "read" }, { order: "A-1" }, async () => ({ amount: 42 }));
    });
    expect(rec.state([{ op: "add", path: "/order", value: { id: "A-1", amount: 42 } }])).toBe(true);
    const approval = rec.approvalRequest("t_pay", { id: "default", version: "v1" });
    rec.approvalDecision(approval, "approved", "reviewer@example.com");
    await rec.tool(
      "pay",
      { effect: "write", idempotencyKey: "pay-A-1", call: "t_pay", externalId: (r) => (r as { id: string }).id },
      { amount: 42 },
      async () => ({ id: "pay_1" }),
    );
    rec.checkpoint({ durable: true });
    rec.decision("stop", { reason: "done", stop: { condition: "refunded", met: true } });
    rec.note("all good");
    expect(await rec.end("succeeded", { output: { refunded: 42 } })).toBe(true);

    const events = sink.events;
    expect(errors).toEqual([]);
    events.forEach((e, i) => {
      expect(e.seq).toBe(i);
      const r = parseLine(canonicalJson(e));
      expect(r.ok, r.ok ? "" : r.message).toBe(true);
    });
    expect(verifyChain(events).firstFailure).toBeNull();
    expect(events.map((e) => e.type)).toEqual([
      "run.start",
      "input",
      "context",
      "step.start",
      "model.request",
      "model.response",
      "tool.call",
      "tool.result",
      "step.end",
      "state",
      "approval.request",
      "approval.decision",
      "tool.call",
      "tool.result",
      "checkpoint",
      "decision",
      "note",
      "run.end",
    ]);
    const byType = (t: string) => events.filter((e) => e.type === t);
    const [req] = byType("model.request");
    const [resp] = byType("model.response");
    expect(req.data).toEqual({ call: "m_4", model: "stub-1", context: 2 });
    expect(resp.data).toEqual({
      call: "m_4",
      output: { toolCalls: [{ id: "c1", name: "lookup", args: { order: "A-1" } }] },
      finishReason: "tool_calls",
      usage: { inputTokens: 12, outputTokens: 3 },
      latencyMs: 5,
      // the client's result as the agent got it, for a replay to answer with again
      result: {
        choices: [
          {
            message: { content: null, tool_calls: [{ id: "c1", function: { name: "lookup", arguments: '{"order":"A-1"}' } }] },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 3 },
      },
    });
    expect(resp.parent).toBe(req.seq);
    expect(req.step).toBe("s1");
    const stateHash = hashOf({ order: { id: "A-1", amount: 42 } });
    expect(byType("state")[0].data.hash).toBe(stateHash);
    expect(byType("approval.request")[0].data).toMatchObject({ call: "t_pay", stateHash });
    expect(byType("approval.decision")[0].data).toMatchObject({ decision: "approved", stateHash });
    expect(byType("tool.call")[1].data).toMatchObject({ call: "t_pay", effect: "write", idempotencyKey: "pay-A-1" });
    expect(byType("tool.result")[1].data).toMatchObject({ call: "t_pay", status: "ok", externalId: "pay_1" });
    expect(byType("checkpoint")[0].data).toEqual({
      id: "cp_1",
      state: { order: { id: "A-1", amount: 42 } },
      hash: stateHash,
      durable: true,
    });
    expect(events[0].data).toMatchObject({ workflow: { name: "refund", version: "1" }, policy: { requireApproval: ["pay"], maxSteps: 5 } });
  });

  it("maps thrown tool errors to timeout / unknown / error and re-throws them unchanged", async () => {
    const sink = memorySink();
    const rec = createRecorder({ runId: "rec-unit-2", workflow: { name: "w" }, sink, clock: steppingClock() });
    const boom = new Error("declined");
    await expect(
      rec.tool("a", { effect: "write", idempotencyKey: "k" }, {}, async () => Promise.reject(new ToolTimeoutError())),
    ).rejects.toBeInstanceOf(ToolTimeoutError);
    await expect(
      rec.tool("b", { effect: "write", idempotencyKey: "k" }, {}, async () => Promise.reject(new ToolOutcomeUnknownError())),
    ).rejects.toBeInstanceOf(ToolOutcomeUnknownError);
    await expect(rec.tool("c", { effect: "read" }, {}, async () => Promise.reject(boom))).rejects.toBe(boom);
    // timeoutMs: the recorder stops waiting, the operation itself carries on.
    let finished = false;
    await expect(
      rec.tool(
        "d",
        { effect: "write", idempotencyKey: "k2", timeoutMs: 20 },
        {},
        () => new Promise((r) => setTimeout(() => r((finished = true)), 80)),
      ),
    ).rejects.toBeInstanceOf(ToolTimeoutError);
    expect(finished).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(finished).toBe(true);
    await expect(rec.model({ model: "m" }, async () => Promise.reject(new Error("rate limited")))).rejects.toThrow("rate limited");
    await rec.end("failed");
    const results = sink.events.filter((e) => e.type === "tool.result").map((e) => e.data.status);
    expect(results).toEqual(["timeout", "unknown", "error", "timeout"]);
    const modelResp = sink.events.find((e) => e.type === "model.response");
    expect(modelResp?.data.error).toMatchObject({ message: "rate limited" });
    expect(verifyChain(sink.events).firstFailure).toBeNull();
  });

  it("refuses an invalid state patch without throwing, and ignores events after run.end", async () => {
    const sink = memorySink();
    const errors: string[] = [];
    const rec = createRecorder({ runId: "rec-unit-3", workflow: { name: "w" }, sink, onError: (e) => errors.push(e.message) });
    expect(rec.state([{ op: "replace", path: "/missing", value: 1 }])).toBe(false);
    expect(rec.stateHash).toBe(hashOf({}));
    await rec.end("cancelled");
    rec.note("too late");
    expect(sink.events.map((e) => e.type)).toEqual(["run.start", "run.end"]);
    expect(errors).toHaveLength(2);
  });

  it("a step that throws ends with status error and the error propagates", async () => {
    const sink = memorySink();
    const rec = createRecorder({ runId: "rec-unit-4", workflow: { name: "w" }, sink });
    await expect(
      rec.step("outer", async () => {
        await rec.step("inner", async () => {
          rec.note("inside");
          throw new Error("nope");
        });
      }),
    ).rejects.toThrow("nope");
    const ev = sink.events;
    expect(ev.find((e) => e.type === "note")?.step).toBe("s2");
    expect(ev.filter((e) => e.type === "step.end").map((e) => [e.step, e.data.status])).toEqual([
      ["s2", "error"],
      ["s1", "error"],
    ]);
  });

  it("fileSink writes a journal that readJournalText reads back without errors", async () => {
    const path = join(tmp, "file-sink", "run.jsonl");
    const sink = fileSink(path);
    const rec = createRecorder({ runId: "rec-file-1", workflow: { name: "w" }, sink, clock: steppingClock() });
    for (let i = 0; i < 50; i++) rec.note(`note ${i}`);
    expect(await rec.end("succeeded")).toBe(true);
    const { events, errors } = await readJournalText(readFileSync(path, "utf8"));
    expect(errors).toEqual([]);
    expect(events.map((e) => e.seq)).toEqual([...Array(52).keys()]);
    expect(verifyChain(events).firstFailure).toBeNull();
  });
});
