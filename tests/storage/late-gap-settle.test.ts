/**
 * A gap a live append fills late is settled later (lib/server/ingest/settle.ts): the
 * append only marks where (Run.settleFrom). Whatever the arrival order, once settled the
 * run holds the server chain, chain verdicts, findings and run columns of the same run
 * sent in order, on both databases; several clients appending a shuffled run at once end
 * with every event stored once and that same chain. Settling happens when appends pause,
 * before a read that serves what it changes, and in any request that does not defer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { chainHashOf } from "@/lib/journal/chain";
import type { JournalEvent } from "@/lib/journal/types";
import { createRng, generateRun } from "@/lib/replay/testing/journal-generator";
import type { Db } from "@/lib/server/db";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";
import { testSeed } from "../replay/seeds";

const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const append = (db: Db, run: string, events: object[]) =>
  ingestBytes(db, bytesOf(nd(events)), { mode: "stream", source: "stream", onlyRun: run });

/** The generator's conflicting resends (same seq, other content) would reject the run: the first of a seq is kept. */
function distinctSeqs(events: JournalEvent[]): JournalEvent[] {
  const seen = new Set<number>();
  return events.filter((e) => !seen.has(e.seq) && seen.add(e.seq));
}

function shuffled<T>(items: T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

interface StoredRow {
  seq: number;
  body: string;
  hash: string | null;
  recordedHash: string | null;
  chain: string;
}

async function storedRows(db: Db, run: string): Promise<StoredRow[]> {
  const rows = await db.sql.all<StoredRow>(
    `SELECT "seq", "body", "hash", "recordedHash", "chain" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
    [run],
  );
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

async function settleFrom(db: Db, run: string): Promise<number | null> {
  const rows = await db.sql.all<{ settleFrom: number | string | null }>(`SELECT "settleFrom" FROM "Run" WHERE "id" = ?`, [run]);
  return rows[0]?.settleFrom === null || rows[0]?.settleFrom === undefined ? null : Number(rows[0].settleFrom);
}

/** What a reader sees of a run once settled: every column ingest derives from the order of its events. */
async function settledView(db: Db, run: string) {
  const detail = (await getRun(db, run))!;
  // fidelity depends on how a live run's events were cut into requests, in order or not
  // (RunSummary keeps "replayable" only once both halves were seen in one request): not settled here
  const { updatedAt: _updatedAt, fidelity: _fidelity, ...rest } = detail;
  return { detail: rest, rows: await storedRows(db, run) };
}

/** The server chain over the stored bodies in seq order, computed here from the format's definition. */
function expectedServerChain(rows: StoredRow[]): string[] {
  let prev = "";
  return rows.map((r) => (prev = chainHashOf(prev, r.body)));
}

describe.each(DIALECTS)("a gap filled late, settled later, on %s", (dialect) => {
  let inOrder: TestDb;
  let outOfOrder: TestDb;
  let a: Db;
  let b: Db;
  beforeAll(async () => {
    inOrder = await freshDb(dialect);
    outOfOrder = await freshDb(dialect);
    // one key: a secret gets the same placeholder in both databases
    const key = { RETRACE_REDACTION_KEY: "5e".repeat(32) };
    a = inOrder.open(key);
    b = outOfOrder.open(key);
  });
  afterAll(async () => {
    await inOrder.cleanup();
    await outOfOrder.cleanup();
  });

  it("ends with the chain, verdicts and findings of the same run sent in order", async () => {
    const seed = testSeed(`late gap settle (${dialect})`);
    for (const faults of [0, 0.25]) {
      const run = `late-${faults}`;
      const events = distinctSeqs(generateRun({ seed, faults, run }));
      for (const e of events) expect((await append(a, run, [e])).errors).toEqual([]);
      // every other event first, then the rest, newest first: each of those fills a gap late
      const evens = events.filter((_, i) => i % 2 === 0);
      const odds = events.filter((_, i) => i % 2 === 1).reverse();
      for (const e of [...evens, ...odds]) expect((await append(b, run, [e])).errors).toEqual([]);
      // left for later by the appends: nothing read it yet
      expect(await settleFrom(b, run)).not.toBeNull();

      const want = await settledView(a, run);
      const got = await settledView(b, run);
      expect(await settleFrom(b, run)).toBeNull();
      expect(got).toEqual(want);
      expect(got.rows.map((r) => r.hash)).toEqual(expectedServerChain(got.rows));
      if (faults === 0) expect(got.detail.chainStatus).toBe("verified");
    }
  });

  it("stores every event of a shuffled run appended by several clients at once, chained as in order", async () => {
    const seed = testSeed(`shuffled clients (${dialect})`);
    const run = "shuffled";
    const events = distinctSeqs(generateRun({ seed, faults: 0, run })).slice(0, 240);
    for (const e of events) expect((await append(a, run, [e])).errors).toEqual([]);
    const order = shuffled(events, seed);
    const CLIENTS = 6;
    const acknowledged = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        let n = 0;
        // each client sends its share one or two events a request
        const mine = order.filter((_, i) => i % CLIENTS === c);
        for (let i = 0; i < mine.length; i += 1 + (i % 2)) {
          const r = await append(b, run, mine.slice(i, i + 1 + (i % 2)));
          expect(r.errors).toEqual([]);
          n += r.runs[0]?.accepted ?? 0;
        }
        return n;
      }),
    );
    expect(acknowledged.reduce((x, y) => x + y, 0)).toBe(events.length);
    const got = await settledView(b, run);
    expect(got.rows.map((r) => r.seq)).toEqual(events.map((e) => e.seq));
    expect(got).toEqual(await settledView(a, run));
    expect(got.detail.chainStatus).toBe("verified");
  });

  it("serves the settled chain to a reader of the events that comes first", async () => {
    const run = "read-first";
    const events = distinctSeqs(generateRun({ seed: 7, faults: 0, run })).slice(0, 30);
    for (const e of [...events.slice(0, 10), ...events.slice(11), events[10]]) expect((await append(b, run, [e])).errors).toEqual([]);
    expect(await settleFrom(b, run)).toBe(10);
    const served = await listEventBodies(b, run, -1, 100);
    expect(served.map((r) => r.hash)).toEqual(expectedServerChain(await storedRows(b, run)));
    expect(await settleFrom(b, run)).toBeNull();
  });

  it("settles by itself once appends pause", async () => {
    const run = "idle";
    const events = distinctSeqs(generateRun({ seed: 11, faults: 0, run })).slice(0, 20);
    for (const e of [...events.slice(0, 5), ...events.slice(6), events[5]]) expect((await append(b, run, [e])).errors).toEqual([]);
    expect(await settleFrom(b, run)).toBe(5);
    // no read: the timer set by the appends settles it (SETTLE_IDLE_MS after the last)
    await vi.waitFor(async () => expect(await settleFrom(b, run)).toBeNull(), { timeout: 15_000, interval: 100 });
    const rows = await storedRows(b, run);
    expect(rows.map((r) => r.hash)).toEqual(expectedServerChain(rows));
  });

  it("settles what appends left in a request that does not defer (a large one)", async () => {
    const run = "large-settles";
    const events = distinctSeqs(generateRun({ seed: 13, faults: 0, run }));
    const n = events.length;
    for (const e of [...events.slice(0, 3), ...events.slice(4, n - 1), events[3]]) expect((await append(b, run, [e])).errors).toEqual([]);
    expect(await settleFrom(b, run)).toBe(3);
    // past the 256 KiB a small request holds
    const last = { ...events[n - 1], data: { ...events[n - 1].data, padding: "x".repeat(300 * 1024) } };
    delete (last as { hash?: string }).hash;
    expect((await append(b, run, [last])).errors).toEqual([]);
    expect(await settleFrom(b, run)).toBeNull();
    const rows = await storedRows(b, run);
    expect(rows.map((r) => r.hash)).toEqual(expectedServerChain(rows));
  });
});
