/**
 * Out-of-order arrival never loses a finding: whatever order and batching a journal's
 * events arrive in (live appends, a gap filled late, later events after that), the run
 * ends with the findings of the journal uploaded whole, every rule, on both databases.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { createRng, generateRun } from "@/lib/replay/testing/journal-generator";
import { chain } from "../analyze/journal-builder";
import type { Db } from "@/lib/server/db";
import { getRun } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";
import { testRuns, testSeed } from "../replay/seeds";

const TS = "2026-11-07T11:00:01.026Z";
const SECRET = "AKIA" + "Q7F2LMX9AB3CD4EF";
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const upload = (db: Db, text: string) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
const append = (db: Db, run: string, text: string) => ingestBytes(db, bytesOf(text), { mode: "stream", source: "stream", onlyRun: run });

async function findings(db: Db, run: string) {
  return (await getRun(db, run))!.findings.map((f) => ({ rule: f.rule, seq: f.seq, severity: f.severity, message: f.message }));
}

/** The generator's conflicting resends (same seq, other content) would reject the run: the first of a seq is kept. */
function distinctSeqs(events: JournalEvent[]): JournalEvent[] {
  const seen = new Set<number>();
  return events.filter((e) => !seen.has(e.seq) && seen.add(e.seq));
}

interface Arrival {
  seed: number;
  faults: number;
  edges: boolean;
  /** Seeds the arrival order (a shuffle of the events). */
  order: number;
  /** Where the arrival order is cut into requests (per mille of its length). */
  cuts: number[];
  /** Events sent again, exactly, right after a random event (per mille of the length). */
  resends: number[];
}

const perMille = fc.integer({ min: 0, max: 1000 });
const arrival: fc.Arbitrary<Arrival> = fc.record({
  seed: fc.integer({ min: 1, max: 0x7fffffff }),
  faults: fc.constantFrom(0, 0.1, 0.25, 0.4),
  edges: fc.boolean(),
  order: fc.integer({ min: 1, max: 0x7fffffff }),
  cuts: fc.array(perMille, { maxLength: 6 }),
  resends: fc.array(perMille, { maxLength: 4 }),
});

/** The events in the arrival's order, resends included, cut into requests. */
function arrivalBatches(events: JournalEvent[], a: Arrival): JournalEvent[][] {
  const rng = createRng(a.order);
  const arrived = [...events];
  for (let i = arrived.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [arrived[i], arrived[j]] = [arrived[j], arrived[i]];
  }
  for (const r of a.resends) arrived.splice(rng.int(0, arrived.length), 0, events[Math.floor((r / 1001) * events.length)]);
  const at = [...new Set(a.cuts.map((c) => Math.floor((c / 1000) * arrived.length)))].sort((x, y) => x - y);
  const batches: JournalEvent[][] = [];
  let from = 0;
  for (const cut of [...at, arrived.length]) {
    if (cut > from) batches.push(arrived.slice(from, cut));
    from = Math.max(from, cut);
  }
  return batches;
}

/** Cases that failed once, kept (fast-check runs them first). */
const REGRESSIONS: Array<[Arrival]> = [
  // a redacted, tampered event arrived before its predecessor: its journal.chain finding was lost
  [{ seed: 1697651297, faults: 0.4, order: 127161600, cuts: [260], resends: [], edges: false }],
  [{ seed: 4, faults: 0.4, order: 374707496, cuts: [266], resends: [], edges: false }],
];

async function chainOf(db: Db, run: string) {
  const r = (await getRun(db, run))!;
  return { status: r.chainStatus, brokenAt: r.chainBrokenAt };
}

describe.each(DIALECTS)("findings whatever the arrival order, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("gives the findings of the journal uploaded whole, whatever the arrival order and batching (property)", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(arrival, async (a) => {
        const tag = `${dialect}-${n++}`;
        const whole = distinctSeqs(generateRun({ seed: a.seed, faults: a.faults, edges: a.edges, run: `whole-${tag}` }));
        const parts = distinctSeqs(generateRun({ seed: a.seed, faults: a.faults, edges: a.edges, run: `parts-${tag}` }));
        expect((await upload(db, nd(whole))).errors).toEqual([]);
        for (const batch of arrivalBatches(parts, a)) {
          expect((await append(db, `parts-${tag}`, nd(batch))).errors).toEqual([]);
        }
        expect(await findings(db, `parts-${tag}`)).toEqual(await findings(db, `whole-${tag}`));
        expect(await chainOf(db, `parts-${tag}`)).toEqual(await chainOf(db, `whole-${tag}`));
      }),
      { seed: testSeed(`arrival order (${dialect})`), numRuns: testRuns(20), examples: REGRESSIONS },
    );
  });

  it("verifies the recorder's chain of a redacted event once its predecessor arrives later", async () => {
    const chained = (run: string, tamper: boolean) => {
      const events = [
        { run, seq: 0, ts: TS, type: "run.start", data: {} },
        { run, seq: 1, ts: TS, type: "note", data: { text: `key ${SECRET} here` } },
        { run, seq: 2, ts: TS, type: "note", data: { text: "after" } },
      ] as JournalEvent[];
      chain(events);
      if (tamper) events[1].data = { text: `key ${SECRET} changed` };
      return events;
    };
    for (const [run, tamper, expected] of [
      ["chain-late-ok", false, { status: "verified", brokenAt: null }],
      ["chain-late-tampered", true, { status: "broken", brokenAt: 1 }],
    ] as const) {
      const events = chained(run, tamper);
      expect((await append(db, run, nd([events[1], events[2]]))).errors).toEqual([]);
      expect((await chainOf(db, run)).status).toBe("unverified");
      expect((await append(db, run, nd([events[0]]))).errors).toEqual([]);
      expect(await chainOf(db, run)).toEqual(expected);
      const rules = (await findings(db, run)).map((f) => `${f.rule}@${f.seq}`);
      expect(rules.includes("journal.chain@1")).toBe(tamper);
    }
  });

  it("keeps secret.exposed of a late-filled gap after the next append", async () => {
    const run = "late-secret";
    const e = (seq: number, data: Record<string, unknown>) => ({ run, seq, ts: TS, type: "note", data });
    const events = [e(0, { text: "a" }), e(1, { text: `key ${SECRET} here` }), e(2, { text: "c" }), e(3, { text: "d" })];
    expect((await append(db, run, nd([events[0], events[2]]))).errors).toEqual([]);
    expect((await append(db, run, nd([events[1]]))).errors).toEqual([]);
    const afterGap = await findings(db, run);
    expect(afterGap.map((f) => `${f.rule}@${f.seq}`)).toContain("secret.exposed@1");
    expect((await append(db, run, nd([events[3]]))).errors).toEqual([]);
    expect((await findings(db, run)).map((f) => `${f.rule}@${f.seq}`)).toContain("secret.exposed@1");

    expect((await upload(db, nd(events.map((x) => ({ ...x, run: "late-secret-whole" }))))).errors).toEqual([]);
    expect(await findings(db, run)).toEqual(await findings(db, "late-secret-whole"));
  });
});
