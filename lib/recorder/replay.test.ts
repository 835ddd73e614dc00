/**
 * The recorder's replay mode on small agents recorded here with the real recorder: recorded
 * outcomes answered as they were (unknown stays unknown), calls missing or extra, live reads,
 * the branch written to a file Retrace's reader accepts, and bad input refused with a reason.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifyChain } from "../journal/chain";
import { readJournalText } from "../journal/reader";
import type { JournalEvent } from "../journal/types";
import {
  createRecorder,
  memorySink,
  replayAgainst,
  ReplayDivergenceError,
  ToolOutcomeUnknownError,
  type Recorder,
  type ReplayableAgent,
} from "./index";

const tmp = mkdtempSync(join(tmpdir(), "retrace-replay-unit-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const clock = () => {
  let t = Date.UTC(2026, 11, 7, 9, 0, 0);
  return () => (t += 10);
};

async function record(agent: ReplayableAgent, runId = "unit-1"): Promise<JournalEvent[]> {
  const sink = memorySink();
  const rec = createRecorder({ runId, workflow: { name: "unit" }, sink, clock: clock() });
  try {
    await agent(rec);
    await rec.end("succeeded");
  } catch (e) {
    await rec.end("failed", { error: e instanceof Error ? e : String(e) });
  }
  return sink.events;
}

/** An agent that asks the model once, then pays (a write whose outcome nobody knows), then reads. */
function payingAgent(opts: { calls: string[]; payThrows?: Error; extraModelCall?: boolean; skipRead?: boolean }): ReplayableAgent {
  return async (rec: Recorder) => {
    const ctx = rec.context({ messages: [{ role: "user", content: "pay 5" }] });
    await rec.model({ model: "m-1", context: ctx }, async () => ({ text: "paying", toolCalls: [] }));
    try {
      await rec.tool("pay", { effect: "write", idempotencyKey: "k" }, { amount: 5 }, async () => {
        opts.calls.push("pay");
        if (opts.payThrows) throw opts.payThrows;
        return { id: "p1" };
      });
    } catch (e) {
      opts.calls.push(`caught ${(e as Error).name}`);
    }
    if (!opts.skipRead)
      await rec.tool("status", { effect: "read" }, { id: "p1" }, async () => {
        opts.calls.push("status");
        return { state: "settled" };
      });
    if (opts.extraModelCall) await rec.model({ model: "m-1" }, async () => ({ text: "again" }));
  };
}

describe("replayAgainst", () => {
  it("answers a recorded unknown outcome as unknown again, flagged, without calling the tool", async () => {
    const recorded = await record(payingAgent({ calls: [], payThrows: new ToolOutcomeUnknownError("connection reset after send") }));
    const calls: string[] = [];
    const result = await replayAgainst(recorded, payingAgent({ calls }));
    expect(calls).toEqual(["caught ToolOutcomeUnknownError"]);
    expect(result.match).toBe(true);
    const pay = result.branch.events.find((e) => e.type === "tool.result" && e.data.status !== "ok")!;
    expect(pay.data).toMatchObject({
      status: "unknown",
      error: { message: "connection reset after send" },
      replay: { unresolved: true, outcome: "unknown", match: true },
    });
    const read = result.branch.events.filter((e) => e.type === "tool.result").at(-1)!;
    expect(read.data).toMatchObject({ status: "ok", result: { state: "settled" } });
    expect(read.data.replay).not.toHaveProperty("unresolved");
  });

  it("reports a model call the replay never made as missing-request, one past the recording as extra-request", async () => {
    const recorded = await record(payingAgent({ calls: [], extraModelCall: true }));
    const secondContext = recorded.filter((e) => e.type === "model.request")[1];
    const fewer = await replayAgainst(recorded, payingAgent({ calls: [] }));
    expect(fewer.divergence).toMatchObject({ seq: secondContext.seq, kind: "missing-request", replayed: null });

    const shorter = await record(payingAgent({ calls: [] }), "unit-2");
    const runEnd = shorter.find((e) => e.type === "run.end")!;
    const more = await replayAgainst(shorter, payingAgent({ calls: [], extraModelCall: true }));
    expect(more.divergence).toMatchObject({ seq: runEnd.seq, kind: "extra-request", recorded: null });
    // the agent got an error for the call the recording cannot answer
    expect(more.error).toBeInstanceOf(ReplayDivergenceError);
  });

  it("reports a recorded tool call the replay never made as tool-call with nothing replayed", async () => {
    const recorded = await record(payingAgent({ calls: [] }));
    const read = recorded.filter((e) => e.type === "tool.call").at(-1)!;
    const result = await replayAgainst(recorded, payingAgent({ calls: [], skipRead: true }));
    expect(result.divergence).toEqual({
      seq: read.seq,
      kind: "tool-call",
      reason: "missing-call",
      path: "",
      recorded: { tool: "status", args: { id: "p1" } },
      replayed: null,
    });
  });

  it("in model-live, runs a read the recording does not have only with liveReads, marked live", async () => {
    const recorded = await record(payingAgent({ calls: [], skipRead: true }));
    const model = async () => ({ text: "live answer" });
    const refused: string[] = [];
    const strict = await replayAgainst(recorded, payingAgent({ calls: refused }), { mode: "model-live", model });
    expect(refused).toEqual([]);
    expect(strict.error).toBeInstanceOf(ReplayDivergenceError);
    const ran: string[] = [];
    const live = await replayAgainst(recorded, payingAgent({ calls: ran }), { mode: "model-live", model, liveReads: true });
    expect(ran).toEqual(["status"]);
    const read = live.branch.events.filter((e) => e.type === "tool.result").at(-1)!;
    expect(read.data).toMatchObject({ status: "ok", result: { state: "settled" }, live: { action: "continue" } });
  });

  it("writes the branch to a file Retrace's reader accepts, its chain intact", async () => {
    const recorded = await record(payingAgent({ calls: [] }));
    const out = join(tmp, "branch.jsonl");
    const result = await replayAgainst(recorded, payingAgent({ calls: [] }), { out, runId: "unit-1.replay" });
    const { events, errors } = await readJournalText(readFileSync(out, "utf8"));
    expect(errors).toEqual([]);
    expect(events).toHaveLength(result.branch.events.length);
    expect(verifyChain(events).firstFailure).toBeNull();
    expect(events[0].data).toMatchObject({ replayOf: { run: "unit-1", head: recorded.at(-1)!.hash }, mode: "recorded" });
  });

  it("refuses bad input with a reason: a bad line by number, an unknown mode, model-live without a model, several runs", async () => {
    const recorded = await record(payingAgent({ calls: [] }));
    const file = join(tmp, "bad.jsonl");
    const lines = recorded.map((e) => JSON.stringify(e));
    lines.splice(2, 0, '{"run": "unit-1", "seq": "three"', "[1, 2]");
    writeFileSync(file, lines.join("\n"));
    const agent = payingAgent({ calls: [] });
    await expect(replayAgainst(file, agent)).rejects.toThrow(`${file}:3: not JSON`);
    await expect(replayAgainst(file, agent)).rejects.toThrow(`${file}:4: not a JSON object`);
    await expect(replayAgainst(recorded, agent, { mode: "live" as never })).rejects.toThrow(/mode must be "recorded" or "model-live"/);
    await expect(replayAgainst(recorded, agent, { mode: "model-live" })).rejects.toThrow(/needs a model/);
    const two = [...recorded, ...(await record(agent, "unit-9"))];
    await expect(replayAgainst(two, agent)).rejects.toThrow(/holds 2 runs; pick one/);
    expect((await replayAgainst(two, agent, { run: "unit-9" })).run).toBe("unit-9");
  });
});
