/** lib/live/plan.ts, pure: the operation's recorded calls, the key to send, the refusal, the branch journal. */
import { describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { callLedger as recordedCalls } from "@/lib/semantics";
import { branchJournal, branchRunId, newIdempotencyKey, previewReconcile, previewReexecute } from "@/lib/live/plan";

const ev = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ run: "r", seq, ts: "2026-12-01T10:00:00.000Z", type, data, hash: "sha256:x" }) as unknown as JournalEvent;
const EX = { id: "ex_1", environment: "sandbox", name: "*", url: "http://bank" };
const events = [
  ev(0, "run.start", { workflow: { name: "w" } }),
  ev(1, "tool.call", { call: "a", tool: "pay", args: { n: 1 }, effect: "write" }),
  ev(2, "tool.result", { call: "a", status: "timeout" }),
  ev(3, "tool.call", { call: "b", tool: "pay", args: { n: 1 }, effect: "write" }),
  ev(4, "tool.result", { call: "b", status: "ok", externalId: "p2" }),
  ev(5, "tool.call", { call: "c", tool: "pay", args: { n: 2 }, effect: "write", idempotencyKey: "k2" }),
  ev(6, "tool.result", { call: "c", status: "ok", externalId: "p3" }),
];

describe("live plan", () => {
  it("refuses while a call of the same operation is unreconciled, and counts a branch's reconcile", () => {
    const before = previewReexecute({ run: "r", seq: 3, events, branchReconciles: [], executor: EX, earlierExecutions: 0 });
    expect(before.refusal).toMatch(/#1 \(timeout\)/);
    expect(before.same.map((c) => c.seq)).toEqual([1, 3]);
    const after = previewReexecute({
      run: "r",
      seq: 3,
      events,
      branchReconciles: [{ run: "r.rec-1", call: "a", outcome: "succeeded", externalId: "p1" }],
      executor: EX,
      earlierExecutions: 0,
    });
    expect(after.refusal).toBeNull();
    expect(after.confirmed.map((c) => c.seq)).toEqual([1, 3]);
    expect(after.needsOperationName).toBe(true);
    expect(after.keySource).toBe("new");
    expect(after.idempotencyKey).toBe(newIdempotencyKey("r", 3, 1));
    // another call of another operation is not refused by the first's timeout; its recorded key is reused
    const other = previewReexecute({ run: "r", seq: 6, events, branchReconciles: [], executor: EX, earlierExecutions: 3 });
    expect(other).toMatchObject({ refusal: null, keySource: "recorded", idempotencyKey: "k2", seq: 5 });
    expect(other.request).toEqual({
      method: "POST",
      url: "http://bank/call",
      headers: { "content-type": "application/json", "idempotency-key": "k2" },
      body: { tool: "pay", args: { n: 2 }, idempotencyKey: "k2" },
    });
  });

  it("a new key is the same for the same execution and differs for the next", () => {
    expect(newIdempotencyKey("r", 3, 1)).toBe(newIdempotencyKey("r", 3, 1));
    expect(newIdempotencyKey("r", 3, 1)).not.toBe(newIdempotencyKey("r", 3, 2));
    expect(newIdempotencyKey("r", 3, 1)).toMatch(/^rtx-[0-9a-f]{24}$/);
  });

  it("reconciles only an unknown or timeout outcome, once", () => {
    expect(previewReconcile({ run: "r", seq: 2, events, branchReconciles: [], executor: EX })).toMatchObject({
      refusal: null,
      resultSeq: 2,
      status: "timeout",
      call: "a",
    });
    expect(previewReconcile({ run: "r", seq: 4, events, branchReconciles: [], executor: EX }).refusal).toMatch(/ended ok/);
    const withJournal = [...events, ev(7, "reconcile", { call: "a", outcome: "failed", by: "x" })];
    expect(previewReconcile({ run: "r", seq: 1, events: withJournal, branchReconciles: [], executor: EX }).refusal).toMatch(
      /already reconciled as failed at #7/,
    );
    expect(recordedCalls(withJournal)[0].reconciled).toMatchObject({ outcome: "failed", where: "journal" });
  });

  it("a branch journal is the original's events up to the point, forkOf on run.start, new seqs after", () => {
    const b = branchJournal({
      branchRun: "r.live-1",
      original: "r",
      forkSeq: 3,
      events,
      upTo: 2,
      added: [
        { type: "tool.call", data: { call: "b" } },
        { type: "tool.result", data: { call: "b", status: "ok" }, parent: 3 },
      ],
      ts: "2026-12-02T00:00:00.000Z",
    });
    expect(b.map((e) => [e.seq, e.type, e.run])).toEqual([
      [0, "run.start", "r.live-1"],
      [1, "tool.call", "r.live-1"],
      [2, "tool.result", "r.live-1"],
      [3, "tool.call", "r.live-1"],
      [4, "tool.result", "r.live-1"],
    ]);
    expect(b[0].data.forkOf).toEqual({ run: "r", seq: 3 });
    expect(b.every((e) => e.hash === undefined)).toBe(true);
    expect(events[0].data.forkOf).toBeUndefined();
    expect(branchRunId("x".repeat(128), "reconcile", "abcd")).toHaveLength(128);
  });
});
