/**
 * Properties of the analyzer on generated journals (seeded; the seed is printed):
 * - stopping anywhere, saving the snapshot as canonical JSON, reading it back with the
 *   exact parser and continuing gives the findings of one uninterrupted fold;
 * - the fold agrees with the naive oracle (tests/analyze/oracle.ts) on every rule;
 * - the order events arrive in does not matter to analyzeEvents;
 * - no message ever holds a secret; a clean generated run has no finding.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeEvents, createAnalyzer, type AnalyzerSnapshot } from "../../lib/analyze";
import { orderEvents } from "../../lib/semantics";
import { canonicalJson, hashOf } from "../../lib/canonical";
import { parseJsonExact } from "../../lib/journal/parse-line";
import type { JournalEvent } from "../../lib/journal/types";
import { hasSecret } from "../../lib/redact/patterns";
import { createRng, generateRun } from "../../lib/replay/testing/journal-generator";
import { testRuns, testSeed } from "../replay/seeds";
import { EMPTY_STATE_HASH } from "../../lib/state";
import { journal, result, start, writeCall } from "./journal-builder";
import { oracle } from "./oracle";

const keys = (fs: Array<{ rule: string; seq: number }>) => fs.map((f) => `${f.rule}@${f.seq}`).sort();

/** Folds with a save-and-restore (through canonical JSON text) before each split point. */
function foldWithRestarts(events: JournalEvent[], splits: number[]) {
  let analyzer = createAnalyzer();
  events.forEach((e, i) => {
    if (splits.includes(i)) {
      const text = canonicalJson(analyzer.snapshot());
      analyzer = createAnalyzer(parseJsonExact(text) as AnalyzerSnapshot);
    }
    analyzer.push(e);
  });
  return analyzer.findings();
}

const genSeed = fc.integer({ min: 1, max: 0x7fffffff });

/** A random arrival order in which events sharing a seq keep their relative order (the first one counts). */
function shuffleKeepingDuplicates(events: JournalEvent[], seed: number): JournalEvent[] {
  const rng = createRng(seed);
  const order = events.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const slots = new Map<number, number[]>();
  order.forEach((from, to) => {
    const list = slots.get(events[from].seq) ?? [];
    list.push(to);
    slots.set(events[from].seq, list);
  });
  const out: JournalEvent[] = new Array(events.length);
  const next = new Map<number, number>();
  for (const e of events) {
    const k = next.get(e.seq) ?? 0;
    const positions = (slots.get(e.seq) ?? []).sort((a, b) => a - b);
    out[positions[k]] = e;
    next.set(e.seq, k + 1);
  }
  return out;
}

describe("analyzer fold properties (seeded generated journals)", () => {
  it("snapshot → canonical JSON → restore → continue equals one uninterrupted fold", () => {
    const seed = testSeed("analyzer snapshot/restore");
    fc.assert(
      fc.property(genSeed, fc.array(fc.nat(400), { maxLength: 4 }), fc.double({ min: 0, max: 0.4, noNaN: true }), (s, splits, faults) => {
        const events = orderEvents(generateRun({ seed: s, faults }));
        expect(
          foldWithRestarts(
            events,
            splits.map((x) => x % (events.length + 1)),
          ),
        ).toEqual(analyzeEvents(events));
      }),
      { seed, numRuns: testRuns(120) },
    );
  });

  it("agrees with the naive oracle on every rule", () => {
    const seed = testSeed("analyzer vs oracle");
    fc.assert(
      fc.property(genSeed, fc.double({ min: 0, max: 0.5, noNaN: true }), (s, faults) => {
        const events = generateRun({ seed: s, faults });
        expect(keys(analyzeEvents(events))).toEqual(keys(oracle(events)));
      }),
      { seed, numRuns: testRuns(200) },
    );
  });

  it("agrees with the naive oracle with undecided, denied and reused approvals and hash-less states too", () => {
    const seed = testSeed("analyzer vs oracle, edge cases");
    fc.assert(
      fc.property(genSeed, fc.double({ min: 0, max: 0.5, noNaN: true }), (s, faults) => {
        const events = generateRun({ seed: s, faults, edges: true });
        expect(keys(analyzeEvents(events)), `seed ${s}`).toEqual(keys(oracle(events)));
      }),
      { seed, numRuns: testRuns(200) },
    );
  });

  it("snapshot → restore → continue equals one fold with the edge cases too", () => {
    const seed = testSeed("analyzer snapshot/restore, edge cases");
    fc.assert(
      fc.property(genSeed, fc.array(fc.nat(400), { maxLength: 4 }), (s, splits) => {
        const events = orderEvents(generateRun({ seed: s, faults: 0.2, edges: true }));
        expect(
          foldWithRestarts(
            events,
            splits.map((x) => x % (events.length + 1)),
          ),
        ).toEqual(analyzeEvents(events));
      }),
      { seed, numRuns: testRuns(80) },
    );
  });

  it("gives the same findings whatever order the events arrive in", () => {
    const seed = testSeed("analyzer arrival order");
    fc.assert(
      fc.property(genSeed, (s) => {
        const events = generateRun({ seed: s, faults: 0.2 });
        expect(analyzeEvents(shuffleKeepingDuplicates(events, s))).toEqual(analyzeEvents(events));
      }),
      { seed, numRuns: testRuns(60) },
    );
  });

  it("never puts a secret in a message, and finds nothing in a clean run", () => {
    const seed = testSeed("analyzer messages and clean runs");
    fc.assert(
      fc.property(genSeed, (s) => {
        for (const f of analyzeEvents(generateRun({ seed: s, faults: 0.6 }))) expect(hasSecret(f.message)).toBe(false);
        expect(analyzeEvents(generateRun({ seed: s, faults: 0 }))).toEqual([]);
      }),
      { seed, numRuns: testRuns(80) },
    );
  });
});

describe("analyzer snapshot", () => {
  it("keeps integers beyond 2^53 exact through canonical JSON and the exact parser", () => {
    const big = 2n ** 60n + 1n;
    const events = journal([
      { type: "state", data: { set: { id: big }, hash: hashOf({ id: big }) } },
      { type: "approval.decision", data: { approval: "a", decision: "approved", by: "r", stateHash: hashOf({ id: big }) } },
      { type: "state", data: { set: { id: big, n: 1 }, hash: hashOf({ id: big, n: 1 }) } },
    ]);
    expect(foldWithRestarts(events, [1, 2])).toEqual([]);
    expect(canonicalJson(createAnalyzer(parseJsonExact(canonicalJson(createAnalyzer().snapshot())) as AnalyzerSnapshot).snapshot())).toBe(
      canonicalJson(createAnalyzer().snapshot()),
    );
  });

  // Regression: lib/state once cloned states through JSON.stringify, which throws on
  // bigint, so every patch after such a value was reported as a mismatch.
  it("a patch applies to a state holding an integer beyond 2^53", () => {
    const big = 2n ** 60n + 1n;
    const events = journal([
      { type: "state", data: { set: { id: big }, hash: hashOf({ id: big }) } },
      { type: "state", data: { patch: [{ op: "add", path: "/n", value: 1 }], hash: hashOf({ id: big, n: 1 }) } },
    ]);
    expect(analyzeEvents(events)).toEqual([]);
  });

  it("reads a version 2 snapshot stored before approvals were tracked by decision (databases written by older releases)", () => {
    const events = journal([
      start({ requireApproval: ["pay"] }),
      { type: "approval.request", data: { approval: "a1", call: "c1", stateHash: EMPTY_STATE_HASH } },
      { type: "approval.decision", data: { approval: "a1", decision: "approved", by: "r", stateHash: EMPTY_STATE_HASH } },
      writeCall("c1", "pay", { n: 1 }, "k1"),
      writeCall("c1", "pay", { n: 1 }, "k1"),
      writeCall("c2", "pay", { n: 2 }, "k2"),
    ]);
    const first = createAnalyzer();
    for (const e of events.slice(0, 4)) first.push(e);
    const { decisionSeqs: _d, used: _u, mismatchAt: _m, ...old } = first.snapshot();
    const restored = createAnalyzer(parseJsonExact(canonicalJson(old)) as AnalyzerSnapshot);
    for (const e of events.slice(4)) restored.push(e);
    expect(restored.findings().map((f) => `${f.rule}@${f.seq}`)).toEqual(analyzeEvents(events).map((f) => `${f.rule}@${f.seq}`));
    expect(restored.findings().map((f) => `${f.rule}@${f.seq}`)).toEqual(["approval.reused@4", "approval.missing@5"]);
  });

  it("reads a version 2 snapshot written before write calls kept their verdicts (retryOf, duplicateOf) and continues the effect rules", () => {
    const events = journal([
      writeCall("c1", "pay", { n: 1 }, "k1"),
      result("c1", "timeout"),
      writeCall("c2", "pay", { n: 1 }, "k2"),
      result("c2", "ok"),
      writeCall("c3", "pay", { n: 1 }, "k3"),
      result("c3", "ok"),
      result("c1", "ok"),
    ]);
    const first = createAnalyzer();
    for (const e of events.slice(0, 4)) first.push(e);
    const saved = first.snapshot();
    expect(saved.writeCalls.find((r) => r.seq === 2)?.retryOf).toBe(0);
    const old: AnalyzerSnapshot = { ...saved, writeCalls: saved.writeCalls.map(({ retryOf: _r, duplicateOf: _d, ...r }) => r) };
    const restored = createAnalyzer(parseJsonExact(canonicalJson(old)) as AnalyzerSnapshot);
    for (const e of events.slice(4)) restored.push(e);
    expect(keys(restored.findings())).toEqual(keys(analyzeEvents(events)));
    // c2 and c3 retry c1 (timed out, never reconciled); c3 duplicates c2, and c1's late ok makes c2 a duplicate of c1.
    expect(keys(restored.findings())).toEqual([
      "effect.duplicate@2",
      "effect.duplicate@4",
      "effect.retry-after-unknown@2",
      "effect.retry-after-unknown@4",
    ]);
    const after = restored.snapshot().writeCalls;
    expect(after.map((r) => [r.seq, r.retryOf ?? null, r.duplicateOf ?? null])).toEqual([
      [0, null, null],
      [2, null, 0],
      [4, 0, 2],
    ]);
  });

  it("refuses a snapshot of an unknown version", () => {
    expect(() => createAnalyzer({ version: 3 } as unknown as AnalyzerSnapshot)).toThrow(/version/);
  });

  it("reads a version 1 snapshot (groups keyed by the canonical args) and keeps finding duplicates across it", () => {
    const events = journal([
      writeCall("c1", "t", { b: 1, a: 2 }, "k1"),
      result("c1", "ok"),
      writeCall("c2", "t", { a: 2, b: 1 }, "k2"),
      result("c2", "ok"),
    ]);
    const first = createAnalyzer();
    first.push(events[0]);
    first.push(events[1]);
    const v2 = first.snapshot();
    const v1: AnalyzerSnapshot = {
      ...v2,
      version: 1,
      writeCalls: v2.writeCalls.map((r) => ({ ...r, group: `${r.tool}\u0000${canonicalJson({ b: 1, a: 2 })}` })),
    };
    const restored = createAnalyzer(parseJsonExact(canonicalJson(v1)) as AnalyzerSnapshot);
    restored.push(events[2]);
    restored.push(events[3]);
    expect(restored.findings().map((f) => `${f.rule}@${f.seq}`)).toEqual(["effect.duplicate@2"]);
    expect(restored.snapshot().version).toBe(2);
  });
});

describe("regression seeds", () => {
  it("seed 430710459 (arrival order): a duplicate seq shuffled ahead of the original must not win; the first to arrive counts", () => {
    const events = generateRun({ seed: 430710459, faults: 0.2 });
    expect(analyzeEvents(shuffleKeepingDuplicates(events, 430710459))).toEqual(analyzeEvents(events));
  });

  it("seed 44111426 (edge cases): a read reusing a write's call id takes the timeout after it; the write stays ok, no retry", () => {
    const events = generateRun({ seed: 44111426, faults: 0.37887943753351777, edges: true });
    // the journal holds the case: write t_2 ok, then a read reusing t_2 times out, then the same write again
    const t2 = events
      .filter((e) => e.data.call === "t_2" && e.type.startsWith("tool."))
      .map((e) => `${e.type}:${String(e.data.effect ?? e.data.status)}`);
    expect(t2).toEqual(["tool.call:write", "tool.result:ok", "tool.call:read", "tool.result:timeout"]);
    const found = keys(analyzeEvents(events));
    expect(found).not.toContain("effect.retry-after-unknown@23");
    expect(found).toEqual(keys(oracle(events)));
  });

  it("seed 1115: a document indexed exactly at the age limit is not stale (the generator once stamped the retrieval late)", () => {
    expect(analyzeEvents(generateRun({ seed: 1115, faults: 0 }))).toEqual([]);
    expect(keys(analyzeEvents(generateRun({ seed: 1115, faults: 0.3 })))).toEqual(keys(oracle(generateRun({ seed: 1115, faults: 0.3 }))));
  });
});
