/**
 * lib/playback, pure: a tool call answered from a recorded run, or how it diverges (the
 * recorded seq, a kind, the JSON diff of the arguments), on the call ledger's outcomes.
 */
import { describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { indexRecording, playToolCall, type PlaybackRules } from "@/lib/playback";

const ev = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ run: "r", seq, ts: "2026-12-01T10:00:00.000Z", type, data }) as unknown as JournalEvent;
const RESUME: PlaybackRules = { reuseReads: true, reuseConfirmedWrites: true, gated: new Set() };
const CONTINUE: PlaybackRules = { ...RESUME, reuseConfirmedWrites: false };

const recording = indexRecording([
  ev(0, "run.start", {}),
  ev(1, "tool.call", { call: "r1", tool: "lookup", args: { order: "A-1", fields: ["amount", "currency"] }, effect: "read" }),
  ev(2, "tool.result", { call: "r1", status: "ok", result: { amount: 5 } }),
  ev(3, "tool.call", { call: "r2", tool: "lookup", args: { order: "B-2" }, effect: "read" }),
  ev(4, "tool.result", { call: "r2", status: "timeout" }),
  ev(5, "tool.call", { call: "w1", tool: "pay", args: { order: "A-1", amount: 5 }, effect: "write", idempotencyKey: "k1" }),
  ev(6, "tool.result", { call: "w1", status: "ok", externalId: "p-1" }),
  ev(7, "tool.call", { call: "w2", tool: "pay", args: { order: "B-2", amount: 7 }, effect: "write", idempotencyKey: "k2" }),
  ev(8, "tool.result", { call: "w2", status: "unknown", error: { message: "gateway" } }),
  ev(9, "reconcile", { call: "w2", outcome: "succeeded", by: "ops" }),
  ev(10, "tool.call", { call: "w3", tool: "pay", args: { order: "C-3", amount: 1 }, effect: "write" }),
]);

describe("playToolCall", () => {
  it("answers a read by canonically equal arguments (key order does not matter) with the recorded result", () => {
    const p = playToolCall(recording, { tool: "lookup", args: { fields: ["amount", "currency"], order: "A-1" } }, CONTINUE);
    expect(p).toMatchObject({ kind: "recorded", effect: "read", recorded: { seq: 1 }, answer: { status: "ok", result: { amount: 5 } } });
  });

  it("does not answer a read the recording did not confirm: it diverges, not-confirmed, at that call", () => {
    const p = playToolCall(recording, { tool: "lookup", args: { order: "B-2" } }, CONTINUE);
    expect(p).toMatchObject({ kind: "diverges", effect: "read", divergence: { kind: "not-confirmed", recordedSeq: 3, diff: [] } });
  });

  it("answers a confirmed write only when confirmed writes are reused; a reconcile as succeeded confirms", () => {
    expect(playToolCall(recording, { tool: "pay", args: { order: "A-1", amount: 5 } }, RESUME)).toMatchObject({
      kind: "recorded",
      recorded: { seq: 5, key: "k1" },
      answer: { status: "ok", externalId: "p-1" },
    });
    const reconciled = playToolCall(recording, { tool: "pay", args: { order: "B-2", amount: 7 } }, RESUME);
    expect(reconciled).toMatchObject({ kind: "recorded", recorded: { seq: 7 }, answer: { status: "ok" } });
    // the reconcile says it acted: the recorded error is not repeated
    expect(reconciled.kind === "recorded" ? reconciled.answer.error : "none").toBeUndefined();
    expect(playToolCall(recording, { tool: "pay", args: { order: "A-1", amount: 5 } }, CONTINUE)).toMatchObject({
      kind: "diverges",
      divergence: { kind: "reuse-off", recordedSeq: 5 },
    });
  });

  it("never answers an open write (no result came)", () => {
    expect(playToolCall(recording, { tool: "pay", args: { order: "C-3", amount: 1 } }, RESUME)).toMatchObject({
      kind: "diverges",
      effect: "write",
      divergence: { kind: "not-confirmed", recordedSeq: 10 },
    });
  });

  it("says how the arguments differ from the tool's latest recorded call, as JSON diff lines", () => {
    const p = playToolCall(recording, { tool: "pay", args: { order: "C-3", amount: 2 } }, RESUME);
    expect(p.kind).toBe("diverges");
    if (p.kind !== "diverges") return;
    expect(p.divergence.kind).toBe("arguments-differ");
    expect(p.divergence.recordedSeq).toBe(10);
    expect(p.divergence.diff).toEqual([{ op: "replace", path: "/amount", old: "1", value: "2" }]);
  });

  it("treats a tool never recorded, or one the policy gates, as a write", () => {
    expect(playToolCall(recording, { tool: "email", args: {} }, RESUME)).toMatchObject({
      kind: "diverges",
      effect: "write",
      divergence: { kind: "unrecorded-tool", recordedSeq: null, diff: [] },
    });
    const gated = playToolCall(
      recording,
      { tool: "lookup", args: { order: "A-1", fields: ["amount", "currency"] } },
      {
        ...CONTINUE,
        gated: new Set(["lookup"]),
      },
    );
    expect(gated).toMatchObject({ kind: "diverges", effect: "write", gated: true, divergence: { kind: "reuse-off", recordedSeq: 1 } });
  });
});
