/**
 * Mode 1, reconstruct: the state at every point, state hashes and the chain verified, the
 * deterministic policy decisions re-evaluated and compared with what the run recorded.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashOf } from "../../lib/canonical";
import { readJournalText } from "../../lib/journal/reader";
import type { JournalEvent } from "../../lib/journal/types";
import { createReplay, evaluateCondition } from "../../lib/replay";
import { EMPTY_STATE_HASH } from "../../lib/state";
import { journal, start, writeCall } from "../analyze/journal-builder";

const DIR = path.resolve(__dirname, "../fixtures/examples");
const load = async (file: string): Promise<JournalEvent[]> => (await readJournalText(readFileSync(path.join(DIR, file), "utf8"))).events;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();
const clean = files.filter((f) => f.includes("-clean"));

/** What each non-clean example reports (kind@seq; "~" marks one that follows from an earlier one). */
const EXPECTED: Record<string, string[]> = {
  "03-codefix-journal.gap.jsonl": ["gap@33"],
  "04-refund-journal.chain.jsonl": ["chain@25"],
  "05-booking-context.missing.jsonl": [],
  "06-codefix-context.instruction-omitted.jsonl": [],
  "07-refund-retrieval.stale.jsonl": [],
  "08-refund-tool.partial.jsonl": [],
  "09-refund-approval.missing.jsonl": ["approval@16"],
  "10-refund-approval.stale-state.jsonl": ["approval-state@18"],
  "11-booking-loop.past-stop.jsonl": ["past-stop@37"],
  "12-codefix-loop.max-steps.jsonl": ["max-steps@42"],
  "13-refund-effect.no-idempotency.jsonl": [],
  "14-booking-effect.retry-after-unknown.jsonl": ["retry-after-unknown@31"],
  "15-codefix-effect.duplicate.jsonl": [],
  "16-refund-state.hash-mismatch.jsonl": ["state-hash@10", "~approval-state@17", "~state-hash@20", "~state-hash@21"],
  "17-booking-secret.exposed.jsonl": [],
};

describe("reconstruct on the example journals", () => {
  it.each(clean)("%s: an unchanged clean run replays with zero divergences", async (file) => {
    const replay = createReplay(await load(file));
    expect(replay.divergences).toEqual([]);
    expect(replay.firstMeaningful).toBeNull();
    expect(replay.bestEffort).toBe(false);
    const s = replay.summary();
    expect(s.provenance.simulated + s.provenance.stale).toBe(0);
    expect(s.provenance.blocked).toBe(replay.frames.filter((f) => f.event.type === "tool.call" && f.event.data.effect === "write").length);
    expect(s.provenance.blocked).toBeGreaterThan(0);
  });

  it.each(Object.keys(EXPECTED))("%s reports what it should, first meaningful marked", async (file) => {
    const replay = createReplay(await load(file));
    expect(replay.divergences.map((d) => `${d.meaningful ? "" : "~"}${d.kind}@${d.seq}`)).toEqual(EXPECTED[file]);
    const first = EXPECTED[file].find((k) => !k.startsWith("~"));
    expect(replay.firstMeaningful ? `${replay.firstMeaningful.kind}@${replay.firstMeaningful.seq}` : undefined).toBe(first);
  });

  it("lists every non-clean example", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(files.filter((f) => !clean.includes(f)));
  });

  it("rebuilds the recorded state hash at every state and checkpoint event of a clean run", async () => {
    const replay = createReplay(await load("00-refund-clean.jsonl"));
    for (const f of replay.frames) {
      if (f.event.type === "state" || f.event.type === "checkpoint") expect(f.stateHash).toBe(f.event.data.hash);
    }
    const last = replay.frames.length - 1;
    expect(hashOf(replay.stateAt(last))).toBe(replay.frames[last].stateHash);
  });

  it("takes chain verdicts from the caller (ingest's stored ones) instead of re-hashing", async () => {
    const events = await load("04-refund-journal.chain.jsonl");
    expect(createReplay(events, { chainVerdict: () => "ok" }).divergences).toEqual([]);
    const told = createReplay(events, { chainVerdict: (seq) => (seq === 25 ? "fail" : seq === 3 ? undefined : "ok") });
    expect(told.divergences.map((d) => `${d.kind}@${d.seq}`)).toEqual(["chain@25"]);
  });

  it("gives a state hash mismatch's expected (rebuilt) and actual (recorded) hashes", async () => {
    const replay = createReplay(await load("16-refund-state.hash-mismatch.jsonl"));
    const d = replay.divergences[0];
    expect(d.actual).toBe("sha256:3f8f7b2808ac5a6f231ad12071e787adcf46dd0f4065b1b1aa01cf3fa9cf5db9");
    expect(d.expected).toBe(hashOf(replay.stateAt(replay.frameIndexOfSeq(10))));
  });
});

describe("reconstruct on hand-written runs", () => {
  const state = (data: object) => ({ type: "state", data: data as never });

  it("reports a patch that does not apply strictly, and what follows from it until a checkpoint", () => {
    const events = journal([
      start(),
      state({ set: { a: 1 }, hash: hashOf({ a: 1 }) }),
      state({ patch: [{ op: "replace", path: "/missing", value: 2 }], hash: hashOf({ a: 1, missing: 2 }) }),
      state({ patch: [{ op: "add", path: "/b", value: 3 }], hash: hashOf({ a: 1, missing: 2, b: 3 }) }),
      {
        type: "checkpoint",
        data: { id: "cp", state: { a: 1, missing: 2, b: 3 }, hash: hashOf({ a: 1, missing: 2, b: 3 }), durable: true },
      },
      state({ patch: [{ op: "add", path: "/c", value: 4 }], hash: hashOf({ a: 1, missing: 2, b: 3, c: 4 }) }),
    ]);
    const replay = createReplay(events);
    expect(replay.divergences.map((d) => `${d.meaningful ? "" : "~"}${d.kind}@${d.seq}`)).toEqual([
      "state-patch@2",
      "~state-hash@3",
      "~state-hash@4",
    ]);
    expect(replay.divergences[1].causedBy).toBe(2);
  });

  it("checks no state hash against a state stored redacted, until one replaces it whole", () => {
    // What the browser replays: the stored form, a secret replaced by its placeholder; the
    // recorder hashed the state with the secret in it.
    const raw = { apiKey: "sk-secret", n: 0 };
    const stored = { apiKey: "[redacted:openai-key:0123456789ab]", n: 0 };
    const events = journal([
      start(),
      state({ set: stored, hash: hashOf(raw) }),
      state({ patch: [{ op: "replace", path: "/n", value: 1 }], hash: hashOf({ ...raw, n: 1 }) }),
      { type: "approval.decision", data: { approval: "a1", decision: "approved", by: "u1", stateHash: hashOf({ ...raw, n: 1 }) } },
      state({ set: { n: 5 }, hash: hashOf({ n: 6 }) }), // replaced whole, and really wrong
      state({ patch: [{ op: "replace", path: "/n", value: 7 }], hash: hashOf({ n: 7 }) }),
    ]);
    const kinds = (r: ReturnType<typeof createReplay>) => r.divergences.map((d) => `${d.meaningful ? "" : "~"}${d.kind}@${d.seq}`);
    // told which event was stored redacted: only the real mismatch, after the replacement
    const told = createReplay(events, { redacted: (seq) => seq === 1 });
    expect(kinds(told)).toEqual(["state-hash@4"]);
    // the frames carry the recorder's hash for the redacted stretch, never the placeholder state's
    expect(told.viewAt(told.frameIndexOfSeq(2)).frame.stateHash).toBe(hashOf({ ...raw, n: 1 }));
    // not told: the placeholder makes every hash in that stretch look wrong
    expect(kinds(createReplay(events))).toEqual(["state-hash@1", "~state-hash@2", "~approval-state@3", "~state-hash@4"]);
  });

  it("re-evaluates a stop condition on the rebuilt state and reports a recorded met that disagrees", () => {
    const events = journal([
      start(),
      state({ set: { status: "working", attempts: 3 }, hash: hashOf({ status: "working", attempts: 3 }) }),
      { type: "decision", data: { action: "continue", stop: { condition: "status == done", met: false } } },
      { type: "decision", data: { action: "continue", stop: { condition: "attempts >= 3", met: false } } },
      { type: "decision", data: { action: "continue", stop: { condition: "tests pass", met: true } } },
    ]);
    const replay = createReplay(events);
    expect(replay.divergences.map((d) => `${d.kind}@${d.seq}:${String(d.expected)}/${String(d.actual)}`)).toEqual([
      "stop-condition@3:true/false",
    ]);
  });

  it("reports a call made although its approval was denied, or not yet decided", () => {
    const events = journal([
      start({ requireApproval: [] }),
      { type: "approval.request", data: { approval: "a1", call: "c1", stateHash: EMPTY_STATE_HASH } },
      { type: "approval.decision", data: { approval: "a1", decision: "denied", by: "r", stateHash: EMPTY_STATE_HASH } },
      writeCall("c1", "email", {}, "k1"),
      { type: "approval.request", data: { approval: "a2", call: "c2", stateHash: EMPTY_STATE_HASH } },
      writeCall("c2", "email", {}, "k2"),
    ]);
    const replay = createReplay(events);
    // c2 repeats c1 (same tool and args, another key) before c1's result came: a retry after an unknown outcome too
    expect(replay.divergences.map((d) => `${d.kind}@${d.seq}`)).toEqual(["approval@3", "approval@5", "retry-after-unknown@5"]);
    expect(replay.divergences[0].reason).toContain("denied");
  });

  it("replays a trace (no run.start versions, no state) best-effort and says why", () => {
    const events = journal([
      { type: "model.request", data: { call: "m", model: "x", messages: [] } },
      { type: "model.response", data: { call: "m", output: { text: "hi" } } },
    ]);
    const replay = createReplay(events);
    expect(replay.fidelity).toBe("trace");
    expect(replay.bestEffort).toBe(true);
    expect(replay.bestEffortReason).toMatch(/run\.start/);
    expect(createReplay(events, { fidelity: "trace" }).bestEffortReason).toMatch(/imported from a trace/);
  });

  it("marks a run without state events partial, and a run with a gap best-effort", () => {
    expect(createReplay(journal([start(), { type: "note", data: { text: "x" } }])).fidelity).toBe("partial");
    const gapped = journal([start(), state({ set: {}, hash: EMPTY_STATE_HASH }), { type: "note", seq: 5, data: { text: "x" } }]);
    const replay = createReplay(gapped);
    expect(replay.fidelity).toBe("replayable");
    expect(replay.bestEffort).toBe(true);
    expect(replay.bestEffortReason).toMatch(/3 events are missing/);
  });

  it("replays the run asked for, and refuses one the journal does not have", () => {
    const events = [...journal([start()], { run: "a" }), ...journal([start(), start()], { run: "b" })];
    expect(createReplay(events, { run: "b" }).events).toHaveLength(2);
    expect(createReplay(events).run).toBe("a");
    expect(() => createReplay(events, { run: "zzz" })).toThrow(/no run "zzz"/);
  });
});

describe("stop conditions", () => {
  const state = { status: "done", n: 3, order: { total: 120, lines: [{ sku: "a" }] }, flag: true };
  it.each([
    ["status == done", true],
    ["status == 'done'", true],
    ['status == "done"', true],
    ["status != done", false],
    ["n >= 3", true],
    ["n < 3", false],
    ["order.total > 100", true],
    ["order.lines[0].sku == a", true],
    ["flag == true", true],
    ["missing == 1", null],
    ["failed == 0", null],
    ["status > 1", null],
    ["tests pass", null],
  ])("%s evaluates to %s", (condition, expected) => {
    expect(evaluateCondition(condition, state)).toBe(expected);
  });
});
