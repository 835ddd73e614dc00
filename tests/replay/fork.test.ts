/**
 * Mode 2, what-if forks: each override shows its change at the event it should, marks
 * what depends on it stale, and never presents a stale event as what would have happened.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashOf } from "../../lib/canonical";
import { readJournalText } from "../../lib/journal/reader";
import type { JournalEvent } from "../../lib/journal/types";
import { createReplay, parseForkOverride, ReplayError, type ForkOverride, type Replay } from "../../lib/replay";
import { journal, result, start, writeCall } from "../analyze/journal-builder";

const DIR = path.resolve(__dirname, "../fixtures/examples");
const load = async (file: string): Promise<JournalEvent[]> => (await readJournalText(readFileSync(path.join(DIR, file), "utf8"))).events;
const fork = (events: JournalEvent[], seq: number, override: ForkOverride) => createReplay(events, { fork: { seq, override } });
const changes = (r: Replay) => r.changes.map((c) => `${c.hypothetical ? "~" : ""}${c.kind}@${c.seq}`);
const framesAt = (r: Replay, seq: number) => r.frames.filter((f) => f.seq === seq);

describe("a fork that denies an approval", () => {
  it("makes the gated write call not allowed at that call, and everything after it stale", async () => {
    const events = await load("00-refund-clean.jsonl");
    const r = fork(events, 17, { approval: "denied" });
    expect(changes(r)).toEqual(["overridden@17", "approval@18"]);
    const [decision] = framesAt(r, 17);
    expect(decision.provenance).toBe("simulated");
    expect(decision.event.data.decision).toBe("denied");
    const [call] = framesAt(r, 18);
    expect(call.provenance).toBe("blocked");
    expect(call.note).toMatch(/not allowed in the fork: its approval is denied/);
    expect(call.stale).toBe(false);
    expect(r.summary().fork?.firstChange?.seq).toBe(17);
    expect(r.summary().fork?.firstStale).toBe(19);
    for (const f of r.frames.filter((x) => x.seq > 18)) expect(f.stale).toBe(true);
  });

  it("finds the decision from its request or from the gated call", async () => {
    const events = await load("00-refund-clean.jsonl");
    for (const seq of [16, 18]) expect(changes(fork(events, seq, { approval: "denied" }))).toEqual(["overridden@17", "approval@18"]);
  });

  it("changes nothing when it says what the run already did", async () => {
    const r = fork(await load("00-refund-clean.jsonl"), 17, { approval: "approved" });
    expect(r.changes).toEqual([]);
    expect(r.frames.every((f) => !f.stale && f.provenance !== "simulated")).toBe(true);
  });
});

describe("a fork that lowers maxSteps", () => {
  it("stops the run at the step.start that would now exceed it", async () => {
    const r = fork(await load("02-codefix-clean.jsonl"), 0, { policy: { maxSteps: 2 } });
    expect(changes(r)).toEqual(["stop@29"]);
    const [stop, step] = framesAt(r, 29);
    expect(stop.provenance).toBe("simulated");
    expect(stop.recorded).toBeNull();
    expect(stop.event).toMatchObject({ type: "decision", data: { action: "stop" } });
    expect(step.event.type).toBe("step.start");
    expect(step.provenance).toBe("stale");
    expect(r.summary().fork?.stoppedAt).toBe(29);
    for (const f of r.frames.filter((x) => x.seq > 29)) expect(["stale", "blocked"]).toContain(f.provenance);
  });

  it("counts the steps before the fork seq too", async () => {
    expect(changes(fork(await load("02-codefix-clean.jsonl"), 20, { policy: { maxSteps: 2 } }))).toEqual(["stop@29"]);
  });

  it("raising it clears a stop the recorded policy required, without marking anything stale", async () => {
    const r = fork(await load("12-codefix-loop.max-steps.jsonl"), 0, { policy: { maxSteps: 10 } });
    expect(changes(r)).toEqual(["stop@42"]);
    expect(r.changes[0]).toMatchObject({ recorded: "stop", forked: "continue" });
    expect(r.frames.some((f) => f.stale)).toBe(false);
  });
});

describe("a fork that changes the policy's requireApproval", () => {
  it("makes the first unapproved call to the newly gated tool not allowed", async () => {
    const r = fork(await load("00-refund-clean.jsonl"), 0, { policy: { requireApproval: ["issue_refund", "send_email"] } });
    expect(changes(r)).toEqual(["approval@27"]);
    expect(framesAt(r, 27)[0]).toMatchObject({ provenance: "blocked", stale: false });
    expect(r.summary().fork?.firstStale).toBe(28);
  });

  it("applies only from the fork seq on", async () => {
    const events = await load("00-refund-clean.jsonl");
    expect(changes(fork(events, 28, { policy: { requireApproval: ["send_email"] } }))).toEqual([]);
  });
});

describe("a fork that overrides a tool result or a model output", () => {
  it("simulates the result and marks everything after it stale, writes still blocked", async () => {
    const r = fork(await load("00-refund-clean.jsonl"), 8, { toolResult: { status: "error", error: "boom" } });
    expect(changes(r)).toEqual(["overridden@9"]);
    expect(r.changes[0]).toMatchObject({ recorded: { status: "ok", error: null }, forked: { status: "error", error: "boom" } });
    const [result] = framesAt(r, 9);
    expect(result).toMatchObject({ provenance: "simulated", substituted: false, stale: false });
    expect(result.event.data.status).toBe("error");
    expect(r.frames.filter((f) => f.seq > 9).every((f) => f.stale)).toBe(true);
    expect(framesAt(r, 18)[0].provenance).toBe("blocked");
  });

  it("an edited result replaces the recorded one: status ok does not keep the recorded error beside it", () => {
    const events = journal([
      start(),
      writeCall("c1", "issue_refund", { orderId: "A-1" }),
      result("c1", "error", { error: { message: "gateway 502" }, partial: true, latencyMs: 40 }),
    ]);
    const seq = events[2].seq;
    const r = fork(events, seq, { toolResult: { status: "ok", result: { id: "rf_1" } } });
    expect(framesAt(r, seq)[0].event.data).toEqual({ call: "c1", status: "ok", result: { id: "rf_1" }, latencyMs: 40 });
    expect(r.changes[0]).toMatchObject({ recorded: { status: "error", error: { message: "gateway 502" }, partial: true } });
    // an edit that names no status keeps the recorded one, and still replaces the rest of the outcome
    const msg = fork(events, seq, { toolResult: { error: { message: "card declined" } } });
    expect(framesAt(msg, seq)[0].event.data).toEqual({ call: "c1", status: "error", error: { message: "card declined" }, latencyMs: 40 });
  });

  it("replaces a model.response's output", async () => {
    const r = fork(await load("00-refund-clean.jsonl"), 6, { modelOutput: { text: "no tool needed" } });
    expect(changes(r)).toEqual(["overridden@7"]);
    expect(framesAt(r, 7)[0].event.data.output).toEqual({ text: "no tool needed" });
  });
});

describe("a fork that replaces the state", () => {
  it("inserts the state after the fork event; later recorded state hashes now diverge", async () => {
    const events = await load("00-refund-clean.jsonl");
    const r = fork(events, 12, { state: { status: "refund", order: null, vip: true } });
    expect(changes(r)).toEqual(["overridden@12", "~approval-state@16", "~approval-state@17", "~state@20", "~state@21", "~state@29"]);
    const [, inserted] = framesAt(r, 12);
    expect(inserted).toMatchObject({ provenance: "simulated", recorded: null });
    expect(r.stateAt(inserted.index)).toEqual({ status: "refund", order: null, vip: true });
    expect(r.viewAt(inserted.index).recordedState).toMatchObject({ status: "refund", order: { id: "A-1214" } });
    const [checkpoint] = framesAt(r, 21);
    expect(checkpoint.provenance).toBe("simulated"); // the fork checkpoints its own state
    expect(checkpoint.event.data.hash).toBe(hashOf(r.stateAt(checkpoint.index)));
  });

  it("applies a state patch, and reports one that does not apply", async () => {
    const events = await load("00-refund-clean.jsonl");
    const ok = fork(events, 2, { statePatch: [{ op: "add", path: "/vip", value: true }] });
    expect(ok.stateAt(framesAt(ok, 2)[1].index)).toMatchObject({ vip: true, status: "triage" });
    const bad = fork(events, 2, { statePatch: [{ op: "replace", path: "/nope", value: 1 }] });
    expect(changes(bad)).toEqual(["state-patch@2"]);
    expect(bad.frames.some((f) => f.stale)).toBe(false);
  });

  it("makes a stop condition true on the fork's state: the run would stop at that decision", () => {
    const events = journal([
      start(),
      { type: "state", data: { set: { status: "working" }, hash: hashOf({ status: "working" }) } },
      { type: "step.start", data: { name: "s1" } },
      { type: "decision", data: { action: "continue", stop: { condition: "status == done", met: false } } },
      { type: "step.start", data: { name: "s2" } },
    ]);
    const r = fork(events, 2, { state: { status: "done" } });
    expect(changes(r)).toEqual(["overridden@2", "~stop-condition@3", "~stop@3"]);
    expect(r.summary().fork?.stoppedAt).toBe(3);
    const [decision] = framesAt(r, 3);
    expect(decision.event.data).toMatchObject({ action: "stop", stop: { met: true } });
    expect(framesAt(r, 4)[0]).toMatchObject({ provenance: "stale", stale: true });
  });
});

describe("fork overrides that cannot apply", () => {
  it.each([
    [{ bogus: 1 }, /unknown override field/],
    [{}, /empty/],
    [{ policy: { maxSteps: "two" } }, /maxSteps/],
    [{ toolResult: { status: "maybe" } }, /status/],
    [{ approval: "perhaps" }, /approved/],
    [{ state: {}, statePatch: [] }, /either/],
    [{ statePatch: { op: "add" } }, /array/],
  ])("refuses %j", (override, message) => {
    expect(() => parseForkOverride(override)).toThrow(message);
  });

  it("refuses an override whose target event is not where the fork says", async () => {
    const events = await load("00-refund-clean.jsonl");
    expect(() => fork(events, 3, { toolResult: { status: "error" } })).toThrow(ReplayError);
    expect(() => fork(events, 3, { approval: "denied" })).toThrow(/approval override/);
    expect(() => fork(events, 3, { modelOutput: { text: "x" } })).toThrow(/modelOutput/);
    expect(() => fork(events, 999, { state: {} })).toThrow(/no event with seq 999/);
  });
});
