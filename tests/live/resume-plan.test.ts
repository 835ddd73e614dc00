/** lib/live/resume-plan.ts, pure: reuse, skip, reconcile first, run again; which checkpoint; why not. */
import { describe, expect, it } from "vitest";
import { hashOf } from "@/lib/canonical";
import type { JournalEvent } from "@/lib/journal/types";
import { resumeJournal, resumePlan, resumeRunId, type ResumeMark } from "@/lib/live/resume-plan";

const ev = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ run: "r", seq, ts: "2026-12-01T10:00:00.000Z", type, data, hash: "sha256:x" }) as unknown as JournalEvent;
const cp = (seq: number, id: string, durable: boolean, state: Record<string, unknown>) =>
  ev(seq, "checkpoint", { id, state, hash: hashOf(state as never), durable });
const call = (seq: number, id: string, tool: string, effect: string, args: Record<string, unknown> = {}) =>
  ev(seq, "tool.call", { call: id, tool, effect, args, ...(effect === "write" ? { idempotencyKey: `k-${id}` } : {}) });
const result = (seq: number, id: string, status: string, extra: Record<string, unknown> = {}) =>
  ev(seq, "tool.result", { call: id, status, ...extra });

/** A run that failed after its last durable checkpoint: every kind of row after it. */
const failed = [
  ev(0, "run.start", { workflow: { name: "w" } }),
  cp(1, "start", true, { phase: "start" }),
  call(2, "look", "lookup_order", "read", { orderId: "A" }),
  result(3, "look", "ok", { result: { id: "A" } }),
  cp(4, "triaged", true, { phase: "triaged" }),
  ev(5, "model.response", { call: "m1", output: {} }),
  call(6, "kb", "kb_search", "read", { q: "policy" }),
  result(7, "kb", "ok", { result: ["refund"] }),
  call(8, "pay1", "issue_refund", "write", { n: 1 }),
  result(9, "pay1", "ok", { externalId: "rf_1" }),
  cp(10, "after-pay", false, { phase: "paid-1" }),
  call(11, "pay2", "issue_refund", "write", { n: 2 }),
  result(12, "pay2", "timeout"),
  call(13, "kb2", "kb_search", "read", { q: "x" }),
  result(14, "kb2", "error"),
  call(15, "pay3", "issue_refund", "write", { n: 3 }),
  result(16, "pay3", "error"),
  ev(17, "run.end", { status: "failed", error: { message: "refund outcome unknown" } }),
];
const MARK: ResumeMark = {
  action: "resume",
  executor: "ex_m",
  environment: "sandbox",
  actor: "user:op",
  reason: "resume it",
  at: "2026-12-01T11:00:00.000Z",
};

describe("resume plan", () => {
  it("from the last durable checkpoint: reads reused, confirmed writes skipped, the timeout to reconcile first, failures run again", () => {
    const p = resumePlan({ run: "r", events: failed });
    expect(p.impossible).toBeNull();
    expect(p.status).toBe("failed");
    expect(p.checkpoint).toMatchObject({ id: "triaged", seq: 4, durable: true });
    expect(p.checkpoints.map((c) => [c.id, c.durable])).toEqual([
      ["start", true],
      ["triaged", true],
      ["after-pay", false],
    ]);
    expect(p.rows.map((r) => [r.seq, r.action])).toEqual([
      [6, "reuse"],
      [8, "skip"],
      [11, "reconcile"],
      [13, "redo"],
      [15, "redo"],
    ]);
    expect(p.rows[1]).toMatchObject({ resultSeq: 9, externalId: "rf_1" });
    expect(p.counts).toEqual({ reuse: 1, skip: 1, reconcile: 1, redo: 2 });
    expect(p.modelCallsAfter).toBe(1);
    expect(p.refusal).toMatch(/^reconcile first: #12 issue_refund \(timeout\)/);
    expect(() => resumeJournal({ branchRun: "b", plan: p, events: failed, mark: MARK })).toThrow(/reconcile first/);
  });

  it("a reconcile recorded on a branch run settles the timeout: skipped, and the resume is no longer refused", () => {
    const p = resumePlan({
      run: "r",
      events: failed,
      branchReconciles: [{ run: "r.rec-1", call: "pay2", outcome: "succeeded", externalId: "rf_2" }],
    });
    expect(p.rows.find((r) => r.seq === 11)).toMatchObject({
      action: "skip",
      externalId: "rf_2",
      why: expect.stringContaining("on branch r.rec-1"),
    });
    expect(p.refusal).toBeNull();
    // reconciled as failed on a branch: it did not happen, so a resume runs it again
    const f = resumePlan({
      run: "r",
      events: failed,
      branchReconciles: [{ run: "r.rec-2", call: "pay2", outcome: "failed", externalId: null }],
    });
    expect(f.rows.find((r) => r.seq === 11)?.action).toBe("redo");
    expect(f.refusal).toBeNull();
    expect(f.digest).not.toBe(p.digest);
  });

  it("a reconcile in the journal counts too, and the digest follows what the plan would do", () => {
    const withRec = [
      ...failed.slice(0, 13),
      ev(13, "reconcile", { call: "pay2", outcome: "succeeded", evidence: { paymentId: "rf_2" }, by: "executor" }),
      ...failed.slice(13).map((e) => ({ ...e, seq: e.seq + 1 }) as JournalEvent),
    ];
    const p = resumePlan({ run: "r", events: withRec });
    expect(p.rows.find((r) => r.seq === 11)).toMatchObject({ action: "skip", reconcileSeq: 13, externalId: "rf_2" });
    expect(p.refusal).toBeNull();
    const again = resumePlan({ run: "r", events: [...withRec].reverse() });
    expect(again.digest).toBe(p.digest);
  });

  it("another durable checkpoint can be chosen; a non-durable or missing one cannot", () => {
    const p = resumePlan({ run: "r", events: failed, checkpoint: "start" });
    expect(p.checkpoint?.seq).toBe(1);
    expect(p.rows.map((r) => [r.seq, r.action])[0]).toEqual([2, "reuse"]);
    expect(resumePlan({ run: "r", events: failed, checkpoint: "after-pay" }).impossible).toMatch(/"after-pay" \(#10\) is not durable/);
    expect(resumePlan({ run: "r", events: failed, checkpoint: "nope" }).impossible).toMatch(/no checkpoint "nope"/);
  });

  it("says why no resume is possible: not failed, no run.end, no durable checkpoint, a checkpoint whose hash does not hold", () => {
    const ok = failed.map((e) => (e.type === "run.end" ? ev(e.seq, "run.end", { status: "succeeded" }) : e));
    expect(resumePlan({ run: "r", events: ok }).impossible).toBe("the run succeeded: only a failed or cancelled run is resumed");
    expect(resumePlan({ run: "r", events: ok }).refusal).toMatch(/only a failed or cancelled/);
    expect(resumePlan({ run: "r", events: failed.slice(0, -1) }).impossible).toMatch(/no run.end/);
    const cancelled = failed.map((e) => (e.type === "run.end" ? ev(e.seq, "run.end", { status: "cancelled" }) : e));
    expect(resumePlan({ run: "r", events: cancelled }).impossible).toBeNull();
    const noDurable = failed.map((e) => (e.type === "checkpoint" ? ev(e.seq, "checkpoint", { ...e.data, durable: false }) : e));
    expect(resumePlan({ run: "r", events: noDurable }).impossible).toMatch(/none of the run's 3 checkpoints are durable/);
    const none = failed.filter((e) => e.type !== "checkpoint");
    const p = resumePlan({ run: "r", events: none });
    expect(p.impossible).toMatch(/recorded no checkpoint/);
    expect(p.rows).toEqual([]);
    const bad = failed.map((e) => (e.seq === 4 ? ev(4, "checkpoint", { ...e.data, hash: "sha256:00" }) : e));
    expect(resumePlan({ run: "r", events: bad }).impossible).toMatch(/does not match its recorded hash/);
  });

  it("a write with no result at all must be reconciled; a call made before the checkpoint whose result came after is in the plan", () => {
    const events = [
      ev(0, "run.start", {}),
      call(1, "slow", "kb_search", "read"),
      cp(2, "c", true, {}),
      result(3, "slow", "ok"),
      call(4, "w", "send_mail", "write"),
      ev(5, "run.end", { status: "cancelled" }),
    ];
    const p = resumePlan({ run: "r", events });
    expect(p.rows.map((r) => [r.seq, r.action, r.why])).toEqual([
      [1, "reuse", "read result recorded: answered from the recording"],
      [4, "reconcile", "write without a recorded result: it may have happened"],
    ]);
  });

  it("the resume branch: the original up to the checkpoint with resumeOf, then the reused and skipped calls marked", () => {
    const plan = resumePlan({
      run: "r",
      events: failed,
      branchReconciles: [{ run: "r.rec-1", call: "pay2", outcome: "succeeded", externalId: "rf_2" }],
    });
    const branch = resumeRunId("r", "abcd");
    expect(branch).toBe("r.resume-abcd");
    const j = resumeJournal({ branchRun: branch, plan, events: failed, mark: MARK });
    expect(j.every((e) => e.run === branch && e.hash === undefined)).toBe(true);
    expect(j.map((e) => e.seq)).toEqual([...j.keys()]);
    expect(j[0].data.resumeOf).toEqual({ run: "r", checkpoint: "triaged" });
    expect(j[0].data.forkOf).toBeUndefined();
    expect(j.slice(0, 5).map((e) => e.type)).toEqual(["run.start", "checkpoint", "tool.call", "tool.result", "checkpoint"]);
    const after = j.slice(5);
    expect(after.map((e) => [e.type, e.data.call, (e.data.resumed as { action: string; from: number }).from])).toEqual([
      ["tool.call", "kb", 6],
      ["tool.result", "kb", 7],
      ["tool.call", "pay1", 8],
      ["tool.result", "pay1", 9],
      ["tool.call", "pay2", 11],
      ["tool.result", "pay2", 12],
      ["reconcile", "pay2", 12],
    ]);
    expect(after.at(-1)?.data).toMatchObject({ outcome: "succeeded", by: "branch:r.rec-1", evidence: { externalId: "rf_2" } });
    expect(after.every((e) => (e.data.live as unknown as ResumeMark).action === "resume")).toBe(true);
    expect(after.filter((e) => e.type === "tool.result").map((e) => e.parent)).toEqual([5, 7, 9]);
  });
});
