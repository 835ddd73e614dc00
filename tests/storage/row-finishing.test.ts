/**
 * On SQLite the writer thread finishes rows (stored text from the raw line, the
 * recorder's link, the server's chain); on PostgreSQL, on SQLite when the writer falls
 * behind, and in SQLite's small transactions (own connection), the request's thread does. Same journal, same redaction key: every stored
 * column, run summary and finding must be the same whichever thread did the work.
 */
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { computeEventHash, verifyChain } from "@/lib/journal/chain";
import { parseJsonExact } from "@/lib/journal/parse-line";
import { readJournalBatches } from "@/lib/journal/reader";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { ingest, type IngestOptions, type IngestResult } from "@/lib/server/ingest";
import { redactorFor } from "@/lib/server/service";
import { bytesOf, freshDb, type Dialect, type TestDb } from "../helpers/db";

const KEY = "5f".repeat(32);
const TS = (i: number) => new Date(Date.UTC(2026, 10, 7, 11, 0, 0, i * 37)).toISOString();
const SECRET = "sk-" + "Q7".repeat(16);

/** Recorder's order (not canonical), or canonical text when `sorted`. */
function line(e: JournalEvent & { hash?: string }, sorted: boolean): string {
  return sorted ? canonicalJson(e) : JSON.stringify(e);
}

function hashedRun(run: string, n: number, opts: { tamperAt?: number; bigAt?: number }): string[] {
  const lines: string[] = [];
  let prev = "";
  for (let seq = 0; seq < n; seq++) {
    const data: Record<string, unknown> =
      seq === 0
        ? { workflow: { name: "mix", version: "1" }, versions: { prompts: { system: "v1" } } }
        : seq % 5 === 1
          ? {
              call: `t${seq}`,
              tool: "lookup",
              args: { q: `order ${seq}`, note: seq % 13 === 1 ? `key ${SECRET}` : "ünïcødé ‮ rtl" },
              effect: "read",
            }
          : seq % 5 === 2
            ? { call: `t${seq - 1}`, status: "ok", result: { rows: seq, ratio: seq / 7 }, latencyMs: seq * 1.25 }
            : { text: `note ${seq}`, url: seq % 4 === 0 ? "https://example.test/x?y=1" : undefined };
    if (seq === opts.bigAt) data.orderId = 123456789012345678901234567890n;
    const type = seq === 0 ? "run.start" : seq % 5 === 1 ? "tool.call" : seq % 5 === 2 ? "tool.result" : "note";
    const ev = { run, seq, ts: TS(seq), type, step: `s${Math.floor(seq / 5)}`, data } as unknown as JournalEvent;
    const hash = computeEventHash(prev, ev);
    prev = hash;
    const recorded = { ...ev, hash } as JournalEvent & { hash: string };
    if (seq === opts.tamperAt) (recorded.data as Record<string, unknown>).text = "changed after hashing";
    // big integers only have a canonical writer here; every 7th line is written canonically too
    lines.push(line(recorded, seq === opts.bigAt || seq % 7 === 3));
  }
  return lines;
}

const plainRun = (run: string, n: number) =>
  Array.from({ length: n }, (_, seq) =>
    JSON.stringify({ run, seq, ts: TS(seq), type: seq === 0 ? "run.start" : "note", data: seq === 0 ? {} : { text: `plain ${seq}` } }),
  );

async function scenario(db: Db, writerBacklog: number | undefined, small: boolean | undefined) {
  await db.sql.transaction(async (tx) => {
    await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"`, [
      "redaction-key",
      KEY,
    ]);
  });
  const redactor = await redactorFor(db);
  const send = (lines: string[], opts: Partial<IngestOptions> = {}): Promise<IngestResult> =>
    ingest(db.sql, redactor, readJournalBatches(bytesOf(lines.join("\n") + "\n", 4096)), {
      mode: "upload",
      source: "upload",
      maxEventsPerRun: 1_000_000,
      writerBacklog,
      small,
      ...opts,
    });
  const a = hashedRun("mix-a", 400, { tamperAt: 200, bigAt: 50 });
  const results: unknown[] = [];
  results.push(await send([...a, ...plainRun("mix-b", 60)]));
  results.push(await send(a)); // every event a duplicate
  const conflict = [...a];
  conflict[120] = conflict[120].replace("note 120", "note 120!");
  results.push(await send(conflict)); // a changed event at a stored seq: rejected, nothing changes
  // live, out of order: the gap 10-14 is filled last (the server chain is recomputed)
  const c = hashedRun("mix-c", 20, {});
  const live = (lines: string[]) => send(lines, { mode: "stream", source: "stream", onlyRun: "mix-c" });
  results.push(await live(c.slice(0, 10)), await live(c.slice(15, 20)), await live(c.slice(10, 15)));
  return results;
}

async function snapshot(db: Db) {
  const events = await db.sql.all<Record<string, unknown>>(
    `SELECT "runId", "seq", "ts", "tsMs", "type", "step", "parent", "call", "name", "status", "latencyMs", "tokens", "bytes", "body", "recordedHash", "chain", "hash", "redactions" FROM "Event" ORDER BY "runId", "seq"`,
  );
  const runs = await db.sql.all<Record<string, unknown>>(
    `SELECT "id", "status", "eventCount", "errorCount", "findingCount", "fidelity", "chainStatus", "chainBrokenAt", "recorderLastHash", "serverLastHash", "nextSeq", "maxSeq" FROM "Run" ORDER BY "id"`,
  );
  const findings = await db.sql.all<Record<string, unknown>>(
    `SELECT "runId", "rule", "seq", "message" FROM "Finding" ORDER BY "runId", "seq", "rule"`,
  );
  // PostgreSQL returns bigint columns as strings and booleans as booleans: compare values
  const norm = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [
          k,
          typeof v === "bigint" || (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) && k !== "body") ? Number(v) : v,
        ]),
      ),
    );
  return { events: norm(events), runs: norm(runs), findings: norm(findings) };
}

const CASES: Array<{ name: string; dialect: Dialect; writerBacklog?: number; small?: boolean }> = [
  { name: "SQLite, writer finishing rows", dialect: "sqlite" },
  { name: "SQLite, writer given finished texts", dialect: "sqlite", writerBacklog: -1 },
  { name: "SQLite, small transactions on the request's thread", dialect: "sqlite", small: true },
  { name: "PostgreSQL", dialect: "postgres" },
];

describe("rows finished on either thread", () => {
  const dbs: TestDb[] = [];
  afterAll(async () => {
    for (const t of dbs) await t.cleanup();
  });

  it("stores the same columns, chains and findings on SQLite (either way) and PostgreSQL", async () => {
    const snaps = [];
    const outcomes = [];
    for (const c of CASES) {
      const t = await freshDb(c.dialect);
      dbs.push(t);
      const db = t.open();
      outcomes.push(await scenario(db, c.writerBacklog, c.small));
      snaps.push(await snapshot(db));
    }
    const [first] = snaps;
    // what the scenario must have produced, checked once, independently of the other cases
    const a = first.runs.find((r) => r.id === "mix-a")!;
    expect(a).toMatchObject({ eventCount: 400, chainStatus: "broken", chainBrokenAt: 200, nextSeq: 400 });
    expect(first.runs.find((r) => r.id === "mix-b")).toMatchObject({ eventCount: 60, chainStatus: "unverified" });
    expect(first.runs.find((r) => r.id === "mix-c")).toMatchObject({ eventCount: 20, chainStatus: "verified", nextSeq: 20 });
    expect(first.findings.filter((f) => f.rule === "journal.chain").map((f) => [f.runId, f.seq])).toEqual([["mix-a", 200]]);
    const rowsA = first.events.filter((e) => e.runId === "mix-a");
    expect(rowsA.filter((e) => e.chain === "fail").map((e) => e.seq)).toEqual([200]);
    expect(rowsA.filter((e) => Number(e.redactions) > 0).length).toBeGreaterThan(0);
    expect(rowsA.every((e) => !String(e.body).includes(SECRET))).toBe(true);
    expect(String(rowsA[50].body)).toContain('"orderId":123456789012345678901234567890');
    for (const run of ["mix-a", "mix-b", "mix-c"]) {
      const rows = first.events.filter((e) => e.runId === run);
      // the server chain verifies with any v1 verifier, and the run row names its tail
      const events = rows.map((r) => ({ ...(parseJsonExact(String(r.body)) as JournalEvent), hash: String(r.hash) }));
      expect(verifyChain(events).firstFailure, run).toBeNull();
      expect(first.runs.find((r) => r.id === run)!.serverLastHash).toBe(rows[rows.length - 1].hash);
      // stored texts are canonical
      for (const r of rows) expect(canonicalJson(parseJsonExact(String(r.body)))).toBe(r.body);
    }
    for (let i = 1; i < CASES.length; i++) {
      expect(outcomes[i], CASES[i].name).toEqual(outcomes[0]);
      expect(snaps[i].runs, CASES[i].name).toEqual(first.runs);
      expect(snaps[i].findings, CASES[i].name).toEqual(first.findings);
      expect(snaps[i].events.length, CASES[i].name).toBe(first.events.length);
      for (let j = 0; j < first.events.length; j++) expect(snaps[i].events[j], `${CASES[i].name}: row ${j}`).toEqual(first.events[j]);
    }
  }, 60_000);
});
