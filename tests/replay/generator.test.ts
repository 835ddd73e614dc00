/**
 * The journal generator the property tests and the benchmark rely on: its journals are
 * valid line by line, a clean one is clean for both analyze and replay, it exercises every
 * event type, and a seed always gives the same journal (the checked-in fixtures prove it).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeEvents, analyzeJournal } from "../../lib/analyze";
import { readJournalText } from "../../lib/journal/reader";
import { EVENT_TYPES, RULE_IDS } from "../../lib/journal/types";
import { createReplay } from "../../lib/replay";
import { generateJournal, generateRun, toJsonl } from "../../lib/replay/testing/journal-generator";
import { testRuns, testSeed } from "./seeds";

const FIXTURES = path.resolve(__dirname, "../fixtures/generated");
const genSeed = fc.integer({ min: 1, max: 0x7fffffff });

describe("journal generator", () => {
  it("writes journals that the reader accepts line by line", async () => {
    const seed = testSeed("generator validity");
    const seeds = fc.sample(genSeed, { seed, numRuns: testRuns(25) });
    for (const s of seeds) {
      const events = generateRun({ seed: s, faults: 0.4 });
      const { events: read, errors } = await readJournalText(toJsonl(events));
      expect(errors, `seed ${s}`).toEqual([]);
      expect(read).toHaveLength(events.length);
    }
  });

  it("makes clean runs that analyze finds nothing in and replay reconstructs without divergence", () => {
    const seed = testSeed("generator clean runs");
    fc.assert(
      fc.property(genSeed, (s) => {
        const events = generateRun({ seed: s, faults: 0 });
        expect(analyzeEvents(events)).toEqual([]);
        expect(createReplay(events).divergences).toEqual([]);
      }),
      { seed, numRuns: testRuns(60) },
    );
  });

  it("exercises every event type and an x- extension across a handful of seeds", () => {
    const types = new Set<string>();
    for (let s = 1; s <= 40; s++) for (const e of generateRun({ seed: s, faults: 0.3 })) types.add(e.type);
    for (const t of EVENT_TYPES) expect(types, t).toContain(t);
    expect([...types].some((t) => t.startsWith("x-"))).toBe(true);
  });

  it("fires every analysis rule somewhere across a few hundred faulty seeds", () => {
    const rules = new Set<string>();
    for (let s = 1; s <= 300 && rules.size < 15; s++)
      for (const f of analyzeEvents(generateRun({ seed: s, faults: 0.3 }))) rules.add(f.rule);
    expect(rules.size).toBe(15);
  });

  it("with edges, also fires the approval rules the first fifteen do not cover, and records hash-less states", () => {
    const rules = new Set<string>();
    let hashless = 0;
    // The declared-policy rules (tool contracts, invariants) need a policy the generator does
    // not write; tests/semantics/invariants.test.ts generates runs for those.
    const generated = RULE_IDS.filter((r) => r !== "tool.args-invalid" && !r.startsWith("policy."));
    for (let s = 1; s <= 300 && rules.size < generated.length; s++) {
      const events = generateRun({ seed: s, faults: 0.3, edges: true });
      hashless += events.filter((e) => e.type === "state" && !("hash" in e.data)).length;
      for (const f of analyzeEvents(events)) rules.add(f.rule);
    }
    expect([...rules].sort()).toEqual([...generated].sort());
    expect(hashless).toBeGreaterThan(0);
  });

  it("reaches the requested size for the benchmark", () => {
    const events = generateRun({ seed: 1, events: 3000, faults: 0 });
    expect(events.length).toBeGreaterThanOrEqual(3000);
    expect(analyzeEvents(events)).toEqual([]);
  });

  it("reproduces the checked-in fixtures from their seeds", () => {
    expect(readFileSync(path.join(FIXTURES, "seed-1115-clean.jsonl"), "utf8")).toBe(toJsonl(generateRun({ seed: 1115, faults: 0 })));
    const multi = toJsonl(generateJournal(7, 3, { faults: 0.3 }));
    expect(readFileSync(path.join(FIXTURES, "multi-run-seed-7.jsonl"), "utf8")).toBe(multi);
    expect(gunzipSync(readFileSync(path.join(FIXTURES, "multi-run-seed-7.jsonl.gz"))).toString("utf8")).toBe(multi);
  });

  it("interleaves several runs in one journal, each analysed on its own", async () => {
    const { events } = await readJournalText(readFileSync(path.join(FIXTURES, "multi-run-seed-7.jsonl"), "utf8"));
    const runs = new Set(events.map((e) => e.run));
    expect(runs.size).toBe(3);
    const together = analyzeJournal(events);
    for (const run of runs) {
      const alone = analyzeEvents(events.filter((e) => e.run === run));
      expect(together.filter((f) => f.run === run).map(({ run: _r, ...f }) => f)).toEqual(alone);
    }
  });
});
