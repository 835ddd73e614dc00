/**
 * Analysis and replay read one run semantics (lib/semantics), so they must agree: every
 * finding of a rule that has a replay counterpart is a meaningful divergence at the same
 * seq, and every meaningful divergence of such a kind is a finding. Checked on seeded
 * generated journals (with the approval and state edge cases) and on every fixture
 * journal; a failure prints the seed and the journal.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "../../lib/analyze";
import { groupByRun } from "../../lib/semantics";
import { hashOf } from "../../lib/canonical";
import { readJournalText } from "../../lib/journal/reader";
import type { Finding, JournalEvent, RuleId } from "../../lib/journal/types";
import { createReplay, type Divergence, type DivergenceKind } from "../../lib/replay";
import { generateRun, toJsonl } from "../../lib/replay/testing/journal-generator";
import { EMPTY_STATE_HASH } from "../../lib/state";
import { journal, result, start, writeCall, type Spec } from "../analyze/journal-builder";
import { testRuns, testSeed } from "./seeds";

/** The rules with a replay counterpart, by the name both sides are compared under. */
const RULE_SIDE: Partial<Record<RuleId, string>> = {
  "journal.gap": "gap",
  "journal.chain": "chain",
  "state.hash-mismatch": "state",
  "approval.missing": "approval",
  "approval.undecided": "approval",
  "approval.denied": "approval",
  "approval.reused": "approval",
  "approval.stale-state": "approval-state",
  "loop.past-stop": "past-stop",
  "loop.max-steps": "max-steps",
  "effect.retry-after-unknown": "retry",
};
const KIND_SIDE: Partial<Record<DivergenceKind, string>> = {
  gap: "gap",
  chain: "chain",
  "state-hash": "state",
  "state-patch": "state",
  approval: "approval",
  "approval-state": "approval-state",
  "past-stop": "past-stop",
  "max-steps": "max-steps",
  "retry-after-unknown": "retry",
};

const fromFindings = (fs: readonly Finding[]) =>
  [...new Set(fs.flatMap((f) => (RULE_SIDE[f.rule] ? [`${RULE_SIDE[f.rule]}@${f.seq}`] : [])))].sort();
const fromDivergences = (ds: readonly Divergence[]) =>
  [...new Set(ds.flatMap((d) => (d.meaningful && KIND_SIDE[d.kind] ? [`${KIND_SIDE[d.kind]}@${d.seq}`] : [])))].sort();

/** Both engines' readings of one run. */
export function engines(events: JournalEvent[]): { analysis: string[]; replay: string[] } {
  return { analysis: fromFindings(analyzeEvents(events)), replay: fromDivergences(createReplay(events).divergences) };
}

function expectAgreement(events: JournalEvent[], label: string) {
  const { analysis, replay } = engines(events);
  if (analysis.join() !== replay.join()) console.log(`[cross-engine] ${label} disagrees; the journal:\n${toJsonl(events)}`);
  expect(replay, label).toEqual(analysis);
}

const genSeed = fc.integer({ min: 1, max: 0x7fffffff });

describe("analysis and replay agree (one run semantics)", () => {
  it("on seeded generated journals with undecided, denied and reused approvals and hash-less states", () => {
    const seed = testSeed("cross-engine generated");
    fc.assert(
      fc.property(genSeed, fc.double({ min: 0, max: 0.5, noNaN: true }), (s, faults) => {
        expectAgreement(generateRun({ seed: s, faults, edges: true }), `seed ${s}, faults ${faults}`);
      }),
      { seed, numRuns: testRuns(150) },
    );
  });

  it("on seeded generated journals as the benchmark and the fixtures make them (no edge cases)", () => {
    const seed = testSeed("cross-engine generated plain");
    fc.assert(
      fc.property(genSeed, fc.double({ min: 0, max: 0.5, noNaN: true }), (s, faults) => {
        expectAgreement(generateRun({ seed: s, faults }), `seed ${s}, faults ${faults}`);
      }),
      { seed, numRuns: testRuns(100) },
    );
  });

  const dirs = ["examples", "generated"].map((d) => path.resolve(__dirname, "../fixtures", d));
  const files = dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => path.join(dir, f)),
  );

  it.each(files.map((f) => [path.relative(path.resolve(__dirname, "../fixtures"), f), f]))("on the fixture %s", async (_name, file) => {
    const { events } = await readJournalText(readFileSync(file, "utf8"));
    for (const [run, list] of groupByRun(events)) expectAgreement(list, `${path.basename(file)} run ${run}`);
  });
});

describe("regressions: the approval cases analysis and replay once read differently (issue 12)", () => {
  const request = (approval: string, call: string): Spec => ({
    type: "approval.request",
    data: { approval, call, policy: { id: "p", version: "1" }, stateHash: EMPTY_STATE_HASH },
  });
  const decision = (approval: string, d: string): Spec => ({
    type: "approval.decision",
    data: { approval, decision: d, by: "r", stateHash: EMPTY_STATE_HASH },
  });
  const rulesAt = (events: JournalEvent[]) =>
    analyzeEvents(events)
      .filter((f) => f.rule.startsWith("approval."))
      .map((f) => `${f.rule}@${f.seq}`);
  const approvalDivergences = (events: JournalEvent[]) =>
    createReplay(events)
      .divergences.filter((d) => d.kind === "approval")
      .map((d) => `${d.meaningful ? "" : "~"}approval@${d.seq}`);

  it("a call named by a request never decided, tool outside requireApproval: approval.undecided, not approval.missing, and the replay's approval divergence", () => {
    const events = journal([start({ requireApproval: ["pay"] }), request("a1", "c1"), writeCall("c1", "email", {}, "k1")]);
    expect(rulesAt(events)).toEqual(["approval.undecided@2"]);
    expect(approvalDivergences(events)).toEqual(["approval@2"]);
    expect(engines(events).replay).toEqual(engines(events).analysis);
  });

  it("one approved call id used by two tool.calls: both approved (approvals are not spent), the second is approval.reused in both engines", () => {
    const events = journal([
      start({ requireApproval: ["pay"] }),
      request("a1", "c1"),
      decision("a1", "approved"),
      writeCall("c1", "pay", { amount: 1 }, "k1"),
      result("c1", "ok"),
      writeCall("c1", "pay", { amount: 1 }, "k1"),
    ]);
    expect(rulesAt(events)).toEqual(["approval.reused@5"]);
    expect(approvalDivergences(events)).toEqual(["approval@5"]);
    expect(engines(events).replay).toEqual(engines(events).analysis);
  });

  it("a fresh decision on the request covers the next call with that id: not reused", () => {
    const events = journal([
      start({ requireApproval: ["pay"] }),
      request("a1", "c1"),
      decision("a1", "approved"),
      writeCall("c1", "pay", { amount: 1 }, "k1"),
      decision("a1", "approved"),
      writeCall("c1", "pay", { amount: 1 }, "k1"),
    ]);
    expect(rulesAt(events)).toEqual([]);
    expect(approvalDivergences(events)).toEqual([]);
  });

  it("a call made after a denied decision, tool outside requireApproval: approval.denied in both engines", () => {
    const events = journal([start({}), request("a1", "c1"), decision("a1", "denied"), writeCall("c1", "email", {}, "k1")]);
    expect(rulesAt(events)).toEqual(["approval.denied@3"]);
    expect(approvalDivergences(events)).toEqual(["approval@3"]);
    expect(createReplay(events).divergences[0].reason).toContain("denied");
  });

  it("a required tool whose request was denied stays approval.missing (one finding per call)", () => {
    const events = journal([
      start({ requireApproval: ["pay"] }),
      request("a1", "c1"),
      decision("a1", "denied"),
      writeCall("c1", "pay", {}, "k1"),
    ]);
    expect(rulesAt(events)).toEqual(["approval.missing@3"]);
    expect(approvalDivergences(events)).toEqual(["approval@3"]);
  });

  it("after a state event without a recorded hash, the hash in force is the rebuilt state's: no stale state in either engine", () => {
    const rebuilt = hashOf({ a: 1, n: 1 });
    const events = journal([
      start({}),
      { type: "state", data: { set: { a: 1 }, hash: hashOf({ a: 1 }) } },
      { type: "state", data: { patch: [{ op: "add", path: "/n", value: 1 }] } },
      { type: "approval.decision", data: { approval: "a1", decision: "approved", by: "r", stateHash: rebuilt } },
      { type: "approval.decision", data: { approval: "a2", decision: "approved", by: "r", stateHash: EMPTY_STATE_HASH } },
    ]);
    expect(rulesAt(events)).toEqual(["approval.stale-state@4"]);
    expect(createReplay(events).divergences.map((d) => `${d.kind}@${d.seq}`)).toEqual(["approval-state@4"]);
  });
});
