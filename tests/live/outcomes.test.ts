/**
 * The call ledger (lib/semantics ledger.ts) is the one reading of whether a recorded call acted. Every live
 * action agrees with it on every kind of call, so none lets through a call another holds
 * back: re-execute refuses while the operation has an open call, reconcile takes exactly
 * the open calls (and each reconcile closes one), the resume plan asks to reconcile exactly
 * the open writes and skips exactly the confirmed ones, and a continuation answers a write
 * from the recording exactly when it is confirmed.
 */
import { describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import type { ContinueStart } from "@/lib/live/continue-contract";
import { runContinuation } from "@/lib/live/loop";
import { callLedger as recordedCalls, isConfirmed, isOpen } from "@/lib/semantics";
import { previewReconcile, previewReexecute } from "@/lib/live/plan";
import { resumePlan } from "@/lib/live/resume-plan";
import type { BranchReconcile } from "@/lib/live/types";
import { hashOf } from "@/lib/canonical";

const ev = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ run: "r", seq, ts: "2026-12-01T10:00:00.000Z", type, data }) as unknown as JournalEvent;
const EX = { id: "ex_1", environment: "sandbox", name: "*", url: "http://bank" };

/** Every kind of call: its effect, then what followed it (results, reconciles), or nothing. */
interface Case {
  name: string;
  effect: string;
  after: Array<{ type: "tool.result"; status: string } | { type: "reconcile"; outcome: string }>;
  pending?: boolean;
  branch?: "succeeded" | "failed";
  open: boolean;
  confirmed: boolean;
}
const CASES: Case[] = [
  { name: "ok write", effect: "write", after: [{ type: "tool.result", status: "ok" }], open: false, confirmed: true },
  { name: "failed write", effect: "write", after: [{ type: "tool.result", status: "error" }], open: false, confirmed: false },
  { name: "timed-out write", effect: "write", after: [{ type: "tool.result", status: "timeout" }], open: true, confirmed: false },
  { name: "unknown write", effect: "write", after: [{ type: "tool.result", status: "unknown" }], open: true, confirmed: false },
  { name: "write with no result", effect: "write", after: [], open: true, confirmed: false },
  { name: "call of no named effect, no result", effect: "", after: [], open: true, confirmed: false },
  { name: "read with no result", effect: "read", after: [], open: false, confirmed: false },
  { name: "timed-out read", effect: "read", after: [{ type: "tool.result", status: "timeout" }], open: true, confirmed: false },
  { name: "write a live branch left unsent", effect: "write", after: [], pending: true, open: false, confirmed: false },
  {
    name: "timeout reconciled as succeeded in the journal",
    effect: "write",
    after: [
      { type: "tool.result", status: "timeout" },
      { type: "reconcile", outcome: "succeeded" },
    ],
    open: false,
    confirmed: true,
  },
  {
    name: "no result, reconciled as failed in the journal",
    effect: "write",
    after: [{ type: "reconcile", outcome: "failed" }],
    open: false,
    confirmed: false,
  },
  { name: "no result, reconciled as succeeded on a branch", effect: "write", after: [], branch: "succeeded", open: false, confirmed: true },
  {
    name: "timeout reconciled, then retried to another timeout",
    effect: "write",
    after: [
      { type: "tool.result", status: "timeout" },
      { type: "reconcile", outcome: "failed" },
      { type: "tool.result", status: "timeout" },
    ],
    open: true,
    confirmed: false,
  },
];

const ARGS = { order: "A-1", amount: 5 };
const CHECKPOINT_STATE = { phase: "start" };

/** A failed run with a durable checkpoint, then the case's call and what followed it. */
function runOf(c: Case): { events: JournalEvent[]; callSeq: number; branch: BranchReconcile[] } {
  const events = [
    ev(0, "run.start", { workflow: { name: "w" } }),
    ev(1, "checkpoint", { id: "start", state: CHECKPOINT_STATE, hash: hashOf(CHECKPOINT_STATE), durable: true }),
    ev(2, "tool.call", {
      call: "c1",
      tool: "pay",
      args: ARGS,
      ...(c.effect ? { effect: c.effect } : {}),
      idempotencyKey: "k1",
      ...(c.pending ? { live: { source: { kind: "none" }, pending: true } } : {}),
    }),
  ];
  for (const a of c.after)
    events.push(
      a.type === "tool.result"
        ? ev(events.length, "tool.result", { call: "c1", status: a.status })
        : ev(events.length, "reconcile", { call: "c1", outcome: a.outcome, by: "ops" }),
    );
  events.push(ev(events.length, "run.end", { status: "failed" }));
  const branch = c.branch ? [{ run: "r.rec-1", call: "c1", outcome: c.branch, externalId: "p1" }] : [];
  return { events, callSeq: 2, branch };
}

describe("one reading of a call's outcome, shared by every live action", () => {
  it.each(CASES)("$name", (c) => {
    const { events, callSeq, branch } = runOf(c);
    const rec = recordedCalls(events, branch).find((r) => r.seq === callSeq)!;
    expect(isOpen(rec)).toBe(c.open);
    expect(isConfirmed(rec)).toBe(c.confirmed);

    const reexecute = previewReexecute({ run: "r", seq: callSeq, events, branchReconciles: branch, executor: EX, earlierExecutions: 0 });
    expect(reexecute.refusal !== null).toBe(c.open);
    expect(reexecute.confirmed.length > 0).toBe(c.confirmed && c.effect === "write");

    const reconcile = previewReconcile({ run: "r", seq: callSeq, events, branchReconciles: branch, executor: EX });
    expect(reconcile.refusal === null).toBe(c.open);

    const plan = resumePlan({ run: "r", events, branchReconciles: branch });
    const row = plan.rows.find((r) => r.seq === callSeq)!;
    const write = c.effect !== "read";
    expect(row.action === "reconcile").toBe(c.open && write);
    expect(row.action === "skip").toBe(c.confirmed && write);
  });

  it.each(CASES.filter((c) => c.effect === "write"))("a continuation asked for the $name again", async (c) => {
    const { events, branch } = runOf(c);
    const kept = events.slice(0, 2);
    const start: ContinueStart = {
      original: "r",
      forkSeq: 1,
      upTo: 1,
      kept,
      edited: [],
      policy: null,
      messages: [{ role: "user", content: "refund" }],
      pending: [{ id: "ask-1", name: "pay", args: ARGS }],
      setup: { model: "m", params: {}, tools: [], instructions: [] },
      override: null,
    };
    const out = await runContinuation({
      start,
      recording: events,
      branchReconciles: branch,
      policy: { maxTurns: 1, reuseReads: true, reuseConfirmedWrites: true, writes: "block" },
      ports: { model: async () => ({ text: "done", toolCalls: [], finishReason: "stop", usage: null }), readTool: null },
      mark: { action: "continue", executor: "m", environment: "sandbox", actor: "t", reason: "t", at: "2026-12-01T10:00:00.000Z" },
    });
    expect(out.writesReused).toBe(c.confirmed ? 1 : 0);
    expect(out.writesBlocked).toBe(c.confirmed ? 0 : 1);
  });
});
