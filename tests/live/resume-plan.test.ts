/** lib/live/resume-plan.ts, pure: reuse, skip, reconcile first, run again; which checkpoint; why not. */
import { describe, expect, it } from "vitest";
import { hashOf } from "@/lib/canonical";
import type { JournalEvent } from "@/lib/journal/types";
import { resumePlan, resumeRecording, resumeRunId } from "@/lib/live/resume-plan";

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
  ev(2, "model.request", { call: "m0", model: "m", messages: [{ role: "user", content: "refund A" }] }),
  ev(3, "model.response", { call: "m0", output: { toolCalls: [{ id: "look", name: "lookup_order", args: { orderId: "A" } }] } }),
  call(4, "look", "lookup_order", "read", { orderId: "A" }),
  result(5, "look", "ok", { result: { id: "A" } }),
  cp(6, "triaged", true, { phase: "triaged" }),
  ev(7, "model.response", { call: "m1", output: {} }),
  call(8, "kb", "kb_search", "read", { q: "policy" }),
  result(9, "kb", "ok", { result: ["refund"] }),
  call(10, "pay1", "issue_refund", "write", { n: 1 }),
  result(11, "pay1", "ok", { externalId: "rf_1" }),
  cp(12, "after-pay", false, { phase: "paid-1" }),
  call(13, "pay2", "issue_refund", "write", { n: 2 }),
  result(14, "pay2", "timeout"),
  call(15, "kb2", "kb_search", "read", { q: "x" }),
  result(16, "kb2", "error"),
  call(17, "pay3", "issue_refund", "write", { n: 3 }),
  result(18, "pay3", "error"),
  ev(19, "run.end", { status: "failed", error: { message: "refund outcome unknown" } }),
];

describe("resume plan", () => {
  it("from the last durable checkpoint: reads reused, confirmed writes skipped, the timeout to reconcile first, failures run again", () => {
    const p = resumePlan({ run: "r", events: failed });
    expect(p.impossible).toBeNull();
    expect(p.notContinuable).toBeNull();
    expect(p.status).toBe("failed");
    expect(p.checkpoint).toMatchObject({ id: "triaged", seq: 6, durable: true });
    expect(p.checkpoints.map((c) => [c.id, c.durable])).toEqual([
      ["start", true],
      ["triaged", true],
      ["after-pay", false],
    ]);
    expect(p.rows.map((r) => [r.seq, r.action])).toEqual([
      [8, "reuse"],
      [10, "skip"],
      [13, "reconcile"],
      [15, "redo"],
      [17, "redo"],
    ]);
    expect(p.rows[1]).toMatchObject({ resultSeq: 11, externalId: "rf_1" });
    expect(p.counts).toEqual({ reuse: 1, skip: 1, reconcile: 1, redo: 2 });
    expect(p.modelCallsAfter).toBe(1);
    expect(p.refusal).toMatch(/^reconcile first: #14 issue_refund \(timeout\)/);
  });

  it("a reconcile recorded on a branch run settles the timeout: skipped, and the resume is no longer refused", () => {
    const p = resumePlan({
      run: "r",
      events: failed,
      branchReconciles: [{ run: "r.rec-1", call: "pay2", outcome: "succeeded", externalId: "rf_2" }],
    });
    expect(p.rows.find((r) => r.seq === 13)).toMatchObject({
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
    expect(f.rows.find((r) => r.seq === 13)?.action).toBe("redo");
    expect(f.refusal).toBeNull();
    expect(f.digest).not.toBe(p.digest);
  });

  it("a reconcile in the journal counts too, and the digest follows what the plan would do, not the order events came in", () => {
    const withRec = [
      ...failed.slice(0, 15),
      ev(15, "reconcile", { call: "pay2", outcome: "succeeded", evidence: { paymentId: "rf_2" }, by: "executor" }),
      ...failed.slice(15).map((e) => ({ ...e, seq: e.seq + 1 }) as JournalEvent),
    ];
    const p = resumePlan({ run: "r", events: withRec });
    expect(p.rows.find((r) => r.seq === 13)).toMatchObject({ action: "skip", reconcileSeq: 15, externalId: "rf_2" });
    expect(p.refusal).toBeNull();
    const again = resumePlan({ run: "r", events: [...withRec].reverse() });
    expect(again.digest).toBe(p.digest);
  });

  it("another durable checkpoint can be chosen; a non-durable or missing one cannot; one before any model call cannot be continued", () => {
    const p = resumePlan({ run: "r", events: failed, checkpoint: "start" });
    expect(p.checkpoint?.seq).toBe(1);
    expect(p.rows.map((r) => [r.seq, r.action])[0]).toEqual([4, "reuse"]);
    expect(p.impossible).toBeNull();
    expect(p.notContinuable).toMatch(/no model call at or before seq 1/);
    expect(p.refusal).toMatch(/^the agent cannot be continued from checkpoint "start"/);
    expect(resumePlan({ run: "r", events: failed, checkpoint: "after-pay" }).impossible).toMatch(/"after-pay" \(#12\) is not durable/);
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
    const bad = failed.map((e) => (e.seq === 6 ? ev(6, "checkpoint", { ...e.data, hash: "sha256:00" }) : e));
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

  it("the continuation's recording: the run's events, and each branch reconcile as a reconcile event after them", () => {
    const rec = resumeRecording(failed, [{ run: "r.rec-1", call: "pay2", outcome: "succeeded", externalId: "rf_2" }]);
    expect(rec.slice(0, failed.length)).toEqual(failed);
    expect(rec.at(-1)).toMatchObject({
      seq: 20,
      type: "reconcile",
      data: { call: "pay2", outcome: "succeeded", by: "branch:r.rec-1", evidence: { externalId: "rf_2", branch: "r.rec-1" } },
    });
    expect(resumeRunId("r", "abcd")).toBe("r.resume-abcd");
    expect(resumeRunId("x".repeat(128), "abcd")).toHaveLength(128);
  });
});
