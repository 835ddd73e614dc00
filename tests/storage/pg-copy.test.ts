/**
 * PostgreSQL takes an import's rows on one COPY kept open across batches and runs. When
 * the server refuses a row in the middle of it (here a constraint the test adds), nothing
 * of the request is stored, the rows sent before included, and the connection goes back to
 * the pool able to serve the next import. Text with COPY's special characters (backslash,
 * tab, newline, carriage return) in any column is stored as it was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalWithoutHash } from "@/lib/journal/chain";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { importStream } from "@/lib/server/service";
import { generateJournal } from "../../scripts/bench-journal";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

describe("an import whose COPY the server refuses midway (PostgreSQL)", () => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb("postgres");
    db = t.open();
    await db.sql.all(`ALTER TABLE "Event" ADD CONSTRAINT "test_refuses" CHECK ("runId" <> 'copy-b' OR "seq" <> 4321)`);
  }, 60_000);
  afterAll(async () => t.cleanup());

  const count = async (sql: string) => Number((await db.sql.all<{ n: number | string }>(sql))[0].n);
  const imported = (text: string) => importStream(db, bytesOf(text), { accept: "journal", source: "import" });

  it("stores nothing of the request, and the next import on the same pool is stored", async () => {
    // run copy-a whole, then copy-b refused at seq 4321: several batches after the COPY began
    const text = generateJournal(3000, "copy-a") + generateJournal(6000, "copy-b");
    await expect(imported(text)).rejects.toThrow(/test_refuses/);
    expect(await count(`SELECT COUNT(*) AS n FROM "Event"`)).toBe(0);
    expect(await count(`SELECT COUNT(*) AS n FROM "Run"`)).toBe(0);
    // as many as the pool holds, each on a connection that served the failed one or not
    for (let i = 0; i < 12; i++) {
      const r = await imported(generateJournal(1500, `copy-ok-${i}`));
      expect(r.runs[0]).toMatchObject({ status: "stored", accepted: 1500 });
    }
    expect(await count(`SELECT COUNT(*) AS n FROM "Event"`)).toBe(12 * 1500);
  }, 120_000);

  it("stores text holding COPY's special characters as sent, in the body and the columns", async () => {
    const odd = 'tab\there, line\nbreak, cr\rend, back\\slash \\N, quote " and ünï ‮';
    const events = [
      { run: "copy-text", seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "run.start", data: { workflow: { name: odd } } },
      {
        run: "copy-text",
        seq: 1,
        ts: "2026-11-07T11:00:01.000Z",
        type: "tool.call",
        step: odd,
        data: { call: odd, tool: odd, effect: "read", args: { q: odd } },
      },
      {
        run: "copy-text",
        seq: 2,
        ts: "2026-11-07T11:00:02.000Z",
        type: "tool.result",
        step: odd,
        data: { call: odd, status: "ok", result: odd },
      },
      {
        run: "copy-text",
        seq: 3,
        ts: "2026-11-07T11:00:03.000Z",
        type: "model.response",
        step: odd,
        data: { call: odd, output: { text: odd }, finishReason: odd },
      },
    ] as unknown as JournalEvent[];
    const r = await imported(events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    expect(r.errors).toEqual([]);
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: 4 });
    const rows = await db.sql.all<{
      seq: number;
      body: string;
      step: string | null;
      call: string | null;
      name: string | null;
      status: string | null;
    }>(`SELECT "seq", "body", "step", "call", "name", "status" FROM "Event" WHERE "runId" = 'copy-text' ORDER BY "seq"`);
    expect(rows.map((row) => row.body)).toEqual(events.map((e) => canonicalWithoutHash(e, false)));
    expect(rows[1]).toMatchObject({ step: odd, call: odd, name: odd });
    expect(rows[2]).toMatchObject({ step: odd, call: odd, name: odd });
    expect(rows[3]).toMatchObject({ step: odd, call: odd, status: odd });
  });
});
