/**
 * On PostgreSQL, Event → Run is enforced per statement by triggers instead of a per-row
 * foreign key (migration 20261213000000_event_run_set_check). What the foreign key gave
 * still holds: no event names a run that is not there, however it is written (INSERT,
 * COPY, an UPDATE of runId); a deleted run takes its events, a renamed one moves them; and
 * a run deleted while another transaction writes its events leaves no event behind, in
 * either order. An import larger than one COPY statement's rows is checked and stored whole.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { from as copyFrom } from "pg-copy-streams";
import type { Db } from "@/lib/server/db";
import { importStream } from "@/lib/server/service";
import { COPY_MAX_ROWS } from "@/lib/server/sql-postgres";
import { generateJournal } from "../../scripts/bench-journal";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

const FK_VIOLATION = "23503";

describe("Event → Run on PostgreSQL, checked per statement", () => {
  let t: TestDb;
  let db: Db;
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    t = await freshDb("postgres");
    db = t.open();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await t.cleanup();
  });
  beforeEach(async () => {
    await db.sql.transaction(async (tx) => {
      await tx.run(`DELETE FROM "Event"`);
      await tx.run(`DELETE FROM "Run"`);
    });
  });

  const addRun = (c: pg.Client, id: string) =>
    c.query(
      `INSERT INTO "Run" ("id", "projectId", "createdAt", "updatedAt", "source", "live") VALUES ($1, 'default', 0, 0, 'import', false)`,
      [id],
    );
  const eventSql = `INSERT INTO "Event" ("runId", "seq", "ts", "tsMs", "type", "bytes", "body", "chain") VALUES ($1, $2, 't', 0, 'note', 2, '{}', 'none')`;
  const count = async (runId?: string) =>
    Number(
      (
        await db.sql.all<{ n: string | number }>(
          runId === undefined ? `SELECT COUNT(*) AS n FROM "Event"` : `SELECT COUNT(*) AS n FROM "Event" WHERE "runId" = ?`,
          runId === undefined ? [] : [runId],
        )
      )[0].n,
    );
  const copyRows = (c: pg.Client, runIds: string[]) =>
    pipeline(
      Readable.from([runIds.map((id, seq) => `${id}\t${seq}\tt\t0\tnote\t2\t{}\tnone\n`).join("")]),
      c.query(copyFrom(`COPY "Event" ("runId", "seq", "ts", "tsMs", "type", "bytes", "body", "chain") FROM STDIN`)),
    );

  it("refuses an event naming no run, by INSERT, COPY or UPDATE, with the foreign key's error", async () => {
    const c = await client();
    await addRun(c, "there");
    await expect(c.query(eventSql, ["missing", 0])).rejects.toMatchObject({ code: FK_VIOLATION, constraint: "Event_runId_fkey" });
    // one bad row among good ones fails the whole COPY
    await expect(copyRows(c, ["there", "there", "gone", "there"])).rejects.toMatchObject({ code: FK_VIOLATION });
    expect(await count()).toBe(0);
    await c.query(eventSql, ["there", 0]);
    await expect(c.query(`UPDATE "Event" SET "runId" = 'elsewhere'`)).rejects.toMatchObject({ code: FK_VIOLATION });
    expect(await count("there")).toBe(1);
  });

  it("deletes a deleted run's events and moves a renamed run's, other runs untouched", async () => {
    const c = await client();
    await addRun(c, "a");
    await addRun(c, "b");
    await copyRows(c, ["a", "a", "a"]);
    await c.query(eventSql, ["b", 0]);
    await c.query(`UPDATE "Run" SET "id" = 'a2' WHERE "id" = 'a'`);
    expect(await count("a")).toBe(0);
    expect(await count("a2")).toBe(3);
    await c.query(`DELETE FROM "Run" WHERE "id" = 'a2'`);
    expect(await count()).toBe(1);
    expect(await count("b")).toBe(1);
  });

  it("a run deleted while another transaction adds its events: the delete waits, then takes them too", async () => {
    const writer = await client();
    const deleter = await client();
    await addRun(writer, "raced");
    await writer.query("BEGIN");
    await writer.query(eventSql, ["raced", 0]);
    const deleted = deleter.query(`DELETE FROM "Run" WHERE "id" = 'raced'`);
    let settled = false;
    void deleted.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false); // held by the writer's lock on the run
    await writer.query(eventSql, ["raced", 1]);
    await writer.query("COMMIT");
    await deleted;
    expect(await count("raced")).toBe(0);
  });

  it("events added while another transaction deletes their run are refused once it commits", async () => {
    const writer = await client();
    const deleter = await client();
    await addRun(writer, "going");
    await deleter.query("BEGIN");
    await deleter.query(`DELETE FROM "Run" WHERE "id" = 'going'`);
    const written = writer.query(eventSql, ["going", 0]);
    written.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await deleter.query("COMMIT");
    await expect(written).rejects.toMatchObject({ code: FK_VIOLATION });
    expect(await count()).toBe(0);
  });

  it("stores an import of more rows than one COPY statement takes, checked per statement", async () => {
    const n = COPY_MAX_ROWS + 5000;
    const r = await importStream(db, bytesOf(generateJournal(n, "long-run")), { accept: "journal", source: "import" });
    expect(r.errors).toEqual([]);
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: n });
    expect(await count("long-run")).toBe(n);
    const seqs = await db.sql.all<{ lo: number; hi: number }>(`SELECT MIN("seq") AS lo, MAX("seq") AS hi FROM "Event"`);
    expect(seqs[0]).toEqual({ lo: 0, hi: n - 1 });
  }, 120_000);
});
