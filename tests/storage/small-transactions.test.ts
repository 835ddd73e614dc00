/**
 * SQLite's small transactions (a live append, a small upload) run on the request thread's
 * own write connection. When another process holds the write lock (a CLI import), they
 * must not block the server's event loop waiting for it: they wait on the writer thread,
 * and nothing is lost or written twice.
 */
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { readJournalBatches } from "@/lib/journal/reader";
import { ingest } from "@/lib/server/ingest";
import { redactorFor } from "@/lib/server/service";
import { sqliteFileFromUrl } from "@/prisma/urls";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

const TS = "2026-11-07T11:00:00.000Z";
const lines = (run: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const seq = from + i;
    return JSON.stringify(
      seq === 0 ? { run, seq, ts: TS, type: "run.start", data: {} } : { run, seq, ts: TS, type: "note", data: { text: `n${seq}` } },
    );
  }).join("\n") + "\n";

describe("small SQLite transactions", () => {
  const dbs: TestDb[] = [];
  afterAll(async () => {
    for (const t of dbs) await t.cleanup();
  });

  it("wait for another process's write lock on the writer thread, with the event loop free, and store once", async () => {
    const t = await freshDb("sqlite");
    dbs.push(t);
    const db = t.open();
    const redactor = await redactorFor(db);
    const send = (text: string) =>
      ingest(db.sql, redactor, readJournalBatches(bytesOf(text)), {
        mode: "stream",
        source: "stream",
        onlyRun: "small-1",
        maxEventsPerRun: 1000,
        small: true,
      });
    expect((await send(lines("small-1", 0, 5))).runs[0]).toMatchObject({ status: "stored", accepted: 5, nextSeq: 5 });

    // another connection (as a CLI import would be) takes the write lock
    const other = new Database(sqliteFileFromUrl(t.url));
    other.exec("BEGIN IMMEDIATE");
    other.prepare(`INSERT INTO "Setting" ("key", "value") VALUES ('other-process', 'x')`).run();
    let appended = false;
    const pending = send(lines("small-1", 5, 5)).then((r) => {
      appended = true;
      return r;
    });
    // the event loop keeps turning while the append waits for the lock
    let ticks = 0;
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ticks++;
    }
    expect(ticks).toBe(5);
    expect(appended).toBe(false);
    other.exec("COMMIT");
    other.close();
    expect((await pending).runs[0]).toMatchObject({ status: "stored", accepted: 5, nextSeq: 10 });

    // a resend of both batches: all duplicates, nothing stored twice
    const again = await send(lines("small-1", 0, 10));
    expect(again.runs[0]).toMatchObject({ status: "stored", accepted: 0, duplicates: 10 });
    const rows = await db.sql.all<{ seq: number }>(`SELECT "seq" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, ["small-1"]);
    expect(rows.map((r) => Number(r.seq))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await db.sql.all(`SELECT "value" FROM "Setting" WHERE "key" = 'other-process'`)).toEqual([{ value: "x" }]);
  }, 60_000);
});
