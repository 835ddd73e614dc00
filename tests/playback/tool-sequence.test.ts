/**
 * lib/playback's one in-order tool matcher (ToolCallSequence), the one the recorder SDK's
 * replay and the MCP proxy's replay both call: recorded order (a divergence at the exact
 * seq where the replay departs) and first-equal (calls a client sent concurrently, arriving
 * in another order), each recorded call answering once, whatever its recorded outcome.
 */
import { describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { indexRecording, ToolCallSequence, type RecordedTool } from "@/lib/playback";

const ev = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ run: "r", seq, ts: "2026-12-01T10:00:00.000Z", type, data }) as unknown as JournalEvent;

// a status polled twice with the same arguments (two answers), a write, then a read that timed out
const EVENTS = [
  ev(0, "run.start", {}),
  ev(1, "tool.call", { call: "s1", tool: "status", args: { id: "p1" }, effect: "read" }),
  ev(2, "tool.result", { call: "s1", status: "ok", result: "pending" }),
  ev(3, "tool.call", { call: "w1", tool: "pay", args: { to: "bob", amount: 5 }, effect: "write" }),
  ev(4, "tool.result", { call: "w1", status: "ok", result: "paid" }),
  ev(5, "tool.call", { call: "s2", tool: "status", args: { id: "p1" }, effect: "read" }),
  ev(6, "tool.result", { call: "s2", status: "ok", result: "done" }),
  ev(7, "tool.call", { call: "l1", tool: "lookup", args: { q: "x" }, effect: "read" }),
  ev(8, "tool.result", { call: "l1", status: "timeout" }),
  ev(9, "run.end", { status: "succeeded" }),
];
const END = 9;
const calls: RecordedTool[] = [...indexRecording(EVENTS).byTool.values()].flat();
const strict = () => new ToolCallSequence(calls, END);
const concurrent = () => new ToolCallSequence(calls, END, { order: "first-equal" });
const answerOf = (s: { recorded: RecordedTool | null }) => s.recorded?.result?.result ?? s.recorded?.result?.status ?? null;

describe("ToolCallSequence, recorded order (the recorder SDK's replay)", () => {
  it("gives the same call asked twice each of its recorded answers in turn, and a timeout as recorded", () => {
    const m = strict();
    const got = [
      m.ask("status", { id: "p1" }),
      m.ask("pay", { amount: 5, to: "bob" }),
      m.ask("status", { id: "p1" }),
      m.ask("lookup", { q: "x" }),
    ];
    expect(got.map((s) => s.divergence)).toEqual([null, null, null, null]);
    expect(got.map(answerOf)).toEqual(["pending", "paid", "done", "timeout"]);
    expect(m.missing()).toBeNull();
    expect([m.replayed, m.recorded]).toEqual([4, 4]);
  });

  it("other arguments diverge at that call's seq with the first differing argument, and still stand for it", () => {
    const m = strict();
    m.ask("status", { id: "p1" });
    const s = m.ask("pay", { to: "eve", amount: 5 });
    expect(s.recorded?.seq).toBe(3);
    expect(s.divergence).toEqual({
      seq: 3,
      kind: "tool-call",
      reason: "arguments-differ",
      path: "/args/to",
      recorded: "bob",
      replayed: "eve",
    });
    // the next call is measured against the next recorded one, not the paid one again
    expect(m.ask("status", { id: "p1" }).divergence).toBeNull();
  });

  it("a call out of its recorded place diverges there (other-tool), consuming nothing", () => {
    const m = strict();
    const s = m.ask("pay", { to: "bob", amount: 5 });
    expect(s).toEqual({
      recorded: null,
      divergence: {
        seq: 1,
        kind: "tool-call",
        reason: "other-tool",
        path: "/tool",
        recorded: { tool: "status", args: { id: "p1" } },
        replayed: { tool: "pay", args: { to: "bob", amount: 5 } },
      },
    });
    expect(m.ask("status", { id: "p1" }).divergence).toBeNull();
  });

  it("a tool never recorded, a call past the last one, and a call never made each say so", () => {
    const m = strict();
    expect(m.ask("delete_all", {}).divergence).toMatchObject({ seq: 1, reason: "unrecorded-tool", path: "/tool" });
    expect(m.missing()).toEqual({
      seq: 1,
      kind: "tool-call",
      reason: "missing-call",
      path: "",
      recorded: { tool: "status", args: { id: "p1" } },
      replayed: null,
    });
    m.ask("status", { id: "p1" });
    m.ask("pay", { to: "bob", amount: 5 });
    m.ask("status", { id: "p1" });
    m.ask("lookup", { q: "x" });
    expect(m.ask("status", { id: "p1" }).divergence).toEqual({
      seq: END,
      kind: "tool-call",
      reason: "extra-call",
      path: "",
      recorded: null,
      replayed: { tool: "status", args: { id: "p1" } },
    });
  });
});

describe("ToolCallSequence, first-equal (the MCP proxy's replay)", () => {
  it("answers calls that arrive in another order than recorded, each recorded call once", () => {
    const m = concurrent();
    const got = [
      m.ask("lookup", { q: "x" }),
      m.ask("pay", { to: "bob", amount: 5 }),
      m.ask("status", { id: "p1" }),
      m.ask("status", { id: "p1" }),
    ];
    expect(got.map((s) => s.divergence)).toEqual([null, null, null, null]);
    expect(got.map(answerOf)).toEqual(["timeout", "paid", "pending", "done"]);
    expect(m.missing()).toBeNull();
  });

  it("a call made once more than recorded is repeated; other arguments diverge at the tool's next unanswered call", () => {
    const m = concurrent();
    m.ask("pay", { to: "bob", amount: 5 });
    expect(m.ask("pay", { to: "bob", amount: 5 }).divergence).toMatchObject({ seq: END, reason: "repeated", path: "" });
    expect(m.ask("status", { id: "p2" }).divergence).toMatchObject({
      seq: 1,
      reason: "arguments-differ",
      path: "/args/id",
      recorded: "p1",
      replayed: "p2",
    });
    // a diverging call consumed nothing: both status answers are still there
    expect(answerOf(m.ask("status", { id: "p1" }))).toBe("pending");
    expect(m.ask("status", { id: "p3" }).divergence).toMatchObject({ seq: 5, reason: "arguments-differ" });
    expect(m.ask("nope", {}).divergence).toMatchObject({ seq: 5, reason: "unrecorded-tool", path: "/tool" });
    expect(m.missing()).toMatchObject({ seq: 5, reason: "missing-call" });
  });
});

describe("ToolCallSequence.placeOf (where a refused call stands)", () => {
  it("says where a call would stand without asking it: nothing answered, nothing counted", () => {
    const m = strict();
    expect(m.placeOf("pay", { to: "bob", amount: 5 })).toMatchObject({ seq: 1, recorded: { tool: "status" } });
    m.ask("status", { id: "p1" });
    expect(m.placeOf("pay", { to: "eve", amount: 1 })).toMatchObject({ seq: 3, recorded: { tool: "pay" } });
    expect(m.replayed).toBe(1);
    // still unanswered: the pay is answered when asked
    expect(answerOf(m.ask("pay", { to: "bob", amount: 5 }))).toBe("paid");

    const c = concurrent();
    // first-equal: the equal unanswered call, else the tool's first unanswered one, else the next, else run.end
    expect(c.placeOf("lookup", { q: "x" }).seq).toBe(7);
    c.ask("status", { id: "p1" });
    expect(c.placeOf("status", { id: "zzz" }).seq).toBe(5);
    expect(c.placeOf("nope", {}).seq).toBe(3);
    c.ask("pay", { to: "bob", amount: 5 });
    c.ask("status", { id: "p1" });
    c.ask("lookup", { q: "x" });
    expect(c.placeOf("lookup", { q: "x" })).toEqual({ seq: END, recorded: null });
  });
});
