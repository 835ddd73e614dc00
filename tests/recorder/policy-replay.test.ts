/**
 * The recorder SDK's replay under a declared policy (issue 33): a refund agent recorded here
 * with the real recorder and a policy (one refund per order, a "yes" from the user before a
 * refund, an args schema), replayed as it was (a match) and changed to break the policy:
 * the breaking call is refused at that call, naming the rule, the invariant and the evidence
 * seq of the replay's own journal; the agent's tool never runs and the recording's answer is
 * not given. The refusal reads the replay's events before the call only, and it agrees with
 * what the analyzer finds on the branch journal.
 */
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import type { JournalEvent, JsonValue, RunPolicy } from "@/lib/journal/types";
import { createRecorder, memorySink, replayAgainst, type PolicyDivergence, type Recorder, type ReplayableAgent } from "@/lib/recorder";

const POLICY: JsonValue = {
  tools: {
    refund: {
      effect: "write",
      idempotency: "not-applicable",
      args: {
        type: "object",
        required: ["order_id", "amount"],
        properties: { order_id: { type: "string" }, amount: { type: "number", minimum: 0, maximum: 100 } },
      },
    },
  },
  invariants: [
    { id: "refund-once", kind: "once-per", tools: ["refund"], arg: "/order_id" },
    { id: "confirm-refund", kind: "confirmed-by-input", tools: ["refund"], words: ["yes"] },
  ],
};

interface Plan {
  /** what the user answers when asked to confirm (null: the agent never asks) */
  confirm: string | null;
  refunds: Array<{ order_id: string; amount: number }>;
  /** said by the user after the refunds */
  after?: string;
}

/** Runs of the agent: which tools really ran, and what each refund call threw. */
interface Trace {
  executed: string[];
  thrown: string[];
}

function refundAgent(plan: Plan, trace: Trace): ReplayableAgent {
  return async (rec: Recorder) => {
    rec.input("please refund order A-1");
    await rec.tool("lookup_order", { effect: "read" }, { order_id: "A-1" }, async () => {
      trace.executed.push("lookup_order");
      return { order_id: "A-1", total: 40 };
    });
    if (plan.confirm !== null) rec.input(plan.confirm);
    for (const r of plan.refunds) {
      try {
        await rec.tool("refund", { effect: "write" }, r, async () => {
          trace.executed.push(`refund ${r.order_id} ${r.amount}`);
          return { refunded: r.amount };
        });
      } catch (e) {
        trace.thrown.push((e as Error).name);
      }
    }
    if (plan.after !== undefined) rec.input(plan.after);
  };
}

const fresh = (): Trace => ({ executed: [], thrown: [] });

async function record(plan: Plan, policy: JsonValue | undefined): Promise<JournalEvent[]> {
  let t = Date.UTC(2026, 11, 7, 9, 0, 0);
  const sink = memorySink();
  const rec = createRecorder({
    runId: "refund-1",
    workflow: { name: "refunds" },
    sink,
    clock: () => (t += 10),
    ...(policy === undefined ? {} : { policy: policy as RunPolicy }),
  });
  await refundAgent(plan, fresh())(rec);
  await rec.end("succeeded");
  return sink.events;
}

const RECORDED: Plan = { confirm: "yes, go ahead", refunds: [{ order_id: "A-1", amount: 40 }] };

const seqOf = (events: readonly JournalEvent[], pick: (e: JournalEvent) => boolean, nth = 0): number => events.filter(pick)[nth].seq;
const isRefund = (e: JournalEvent) => e.type === "tool.call" && e.data.tool === "refund";

describe("replayAgainst with a declared policy", async () => {
  const recorded = await record(RECORDED, POLICY);
  const recordedRefund = seqOf(recorded, isRefund);

  it("an agent that obeys the policy replays as recorded, no tool run", async () => {
    const trace = fresh();
    const result = await replayAgainst(recorded, refundAgent(RECORDED, trace));
    expect(result.divergence).toBeNull();
    expect(result.match).toBe(true);
    expect(trace).toEqual({ executed: [], thrown: [] });
    // the branch says the policy it was judged by
    expect(result.branch.events[0].data.policy).toEqual(POLICY);
  });

  it("a refund without a yes is refused at that call: rule, invariant and the replay's own input as evidence", async () => {
    const trace = fresh();
    const result = await replayAgainst(recorded, refundAgent({ ...RECORDED, confirm: "hmm, not sure" }, trace));
    const branch = result.branch.events;
    const call = seqOf(branch, isRefund);
    // the recording's "yes" does not count: the replay's last user input is the evidence
    const evidence = seqOf(branch, (e) => e.type === "input" && e.data.content === "hmm, not sure");
    expect(result.match).toBe(false);
    expect(result.divergence).toMatchObject({
      seq: recordedRefund,
      kind: "policy",
      rule: "policy.confirmed-by-input",
      invariant: "confirm-refund",
      evidence,
      at: call,
      path: "",
      recorded: { tool: "refund", args: { order_id: "A-1", amount: 40 } },
      replayed: { tool: "refund", args: { order_id: "A-1", amount: 40 } },
    });
    // neither executed nor answered from the recording: the agent got the refusal
    expect(trace).toEqual({ executed: [], thrown: ["PolicyRefusedError"] });
    const answer = branch.find((e) => e.type === "tool.result" && e.parent === call)!;
    expect(answer.data).toMatchObject({
      status: "error",
      error: { name: "PolicyRefusedError" },
      replay: { refused: "policy.confirmed-by-input" },
    });
    expect(answer.data.result).toBeUndefined();
    const end = branch.at(-1)!;
    expect(end.data).toMatchObject({ replay: { match: false, divergence: { kind: "policy", rule: "policy.confirmed-by-input" } } });
    // the kernel's verdict: the analyzer finds the same rule at the same call of the branch
    expect(analyzeEvents(branch).filter((f) => f.rule.startsWith("policy."))).toEqual([
      expect.objectContaining({ rule: "policy.confirmed-by-input", seq: call }),
    ]);
  });

  it("args the contract's schema refuses: tool.args-invalid with the keyword and the path", async () => {
    const trace = fresh();
    const result = await replayAgainst(recorded, refundAgent({ ...RECORDED, refunds: [{ order_id: "A-1", amount: 400 }] }, trace));
    expect(result.divergence).toMatchObject({
      seq: recordedRefund,
      kind: "policy",
      rule: "tool.args-invalid",
      keyword: "maximum",
      invariant: null,
      path: "/args/amount",
      replayed: { tool: "refund", args: { order_id: "A-1", amount: 400 } },
    });
    expect(trace).toEqual({ executed: [], thrown: ["PolicyRefusedError"] });
  });

  it("a second refund of the same order is refused, its evidence the first refund of the replay", async () => {
    const trace = fresh();
    const twice = { ...RECORDED, refunds: [RECORDED.refunds[0], RECORDED.refunds[0]] };
    const result = await replayAgainst(recorded, refundAgent(twice, trace));
    const branch = result.branch.events;
    expect(result.divergence).toMatchObject({
      kind: "policy",
      rule: "policy.once-per",
      invariant: "refund-once",
      evidence: seqOf(branch, isRefund, 0),
      at: seqOf(branch, isRefund, 1),
      path: "/args/order_id",
      // past the recording's last call: placed at its run.end
      seq: recorded.at(-1)!.seq,
      recorded: null,
    });
    // the first refund was answered from the recording; the second neither answered nor run
    expect(trace).toEqual({ executed: [], thrown: ["PolicyRefusedError"] });
    expect((result.divergence as PolicyDivergence).message).toContain('policy.once-per: refund breaks invariant "refund-once"');
  });

  it("past-only: a yes the user gives after the refund does not make it allowed", async () => {
    const trace = fresh();
    const result = await replayAgainst(recorded, refundAgent({ ...RECORDED, confirm: null, after: "yes" }, trace));
    const branch = result.branch.events;
    const firstInput = seqOf(branch, (e) => e.type === "input");
    expect(result.divergence).toMatchObject({ rule: "policy.confirmed-by-input", evidence: firstInput, at: seqOf(branch, isRefund) });
    expect(branch.some((e) => e.type === "input" && e.data.content === "yes" && e.seq > seqOf(branch, isRefund))).toBe(true);
    expect(trace.executed).toEqual([]);
  });

  it("judged by another policy (a workflow's attached one): a call the recording answers is refused all the same", async () => {
    // recorded with no policy, refunding A-1 twice; replayed with the policy given in place of none
    const twice = { ...RECORDED, refunds: [RECORDED.refunds[0], RECORDED.refunds[0]] };
    const lax = await record(twice, undefined);
    const asRecorded = await replayAgainst(lax, refundAgent(twice, fresh()));
    expect(asRecorded.match).toBe(true);
    const trace = fresh();
    const judged = await replayAgainst(lax, refundAgent(twice, trace), { policy: POLICY });
    expect(judged.divergence).toMatchObject({
      seq: seqOf(lax, isRefund, 1),
      rule: "policy.once-per",
      recorded: { tool: "refund", args: { order_id: "A-1", amount: 40 } },
    });
    expect(trace).toEqual({ executed: [], thrown: ["PolicyRefusedError"] });
    expect(judged.branch.events[0].data.policy).toEqual(POLICY);
  });

  it("a policy given in code whose invariant the kernel cannot read is refused before anything runs", async () => {
    const bad = { invariants: [{ id: "x", kind: "once-per", tools: ["refund"] }] };
    await expect(replayAgainst(recorded, refundAgent(RECORDED, fresh()), { policy: bad })).rejects.toThrow(
      "policy.invariants[0] is not an invariant",
    );
  });
});
