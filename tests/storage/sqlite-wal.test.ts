/**
 * The SQLite WAL stays bounded: a passive checkpoint copies the WAL into the database but
 * never shrinks it, and under steady reads it is never restarted either (it grew to
 * gigabytes beside a database a tenth of that). Once writes pause, the writer thread
 * empties it with a truncating checkpoint, whichever connection wrote (the writer thread
 * for a large import, the request's thread for live appends).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateJournal } from "@/scripts/bench-journal";
import type { Db } from "@/lib/server/db";
import { sqliteFileFromUrl } from "@/prisma/urls";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

const walSize = (file: string) => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);

describe("the SQLite WAL", () => {
  let t: TestDb;
  let db: Db;
  let file: string;
  beforeAll(async () => {
    t = await freshDb("sqlite");
    db = t.open({ RETRACE_WAL_IDLE_MS: "200" });
    file = sqliteFileFromUrl(t.url);
  });
  afterAll(async () => t.cleanup());

  it("is emptied once a large import is followed by a quiet moment", async () => {
    const journal = generateJournal(20_000, "wal-import");
    const result = await ingestBytes(db, bytesOf(journal), { mode: "upload", source: "import" });
    expect(result.errors).toEqual([]);
    expect(result.runs[0].accepted).toBe(20_000);
    // the import went through the WAL: megabytes between the WAL and the database file
    expect(walSize(file) + fs.statSync(file).size).toBeGreaterThan(journal.length / 2);
    await vi.waitFor(() => expect(walSize(file)).toBe(0), { timeout: 15_000, interval: 50 });
    // emptied into the database, not lost
    expect(fs.statSync(file).size).toBeGreaterThan(journal.length / 2);
  });

  it("is emptied after live appends too (written on the request's thread)", async () => {
    const run = "wal-live";
    const lines = generateJournal(200, run).trimEnd().split("\n");
    for (let i = 0; i < lines.length; i += 10) {
      const r = await ingestBytes(db, bytesOf(lines.slice(i, i + 10).join("\n") + "\n"), {
        mode: "stream",
        source: "stream",
        onlyRun: run,
      });
      expect(r.errors).toEqual([]);
    }
    expect(walSize(file)).toBeGreaterThan(0);
    await vi.waitFor(() => expect(walSize(file)).toBe(0), { timeout: 15_000, interval: 50 });
  });
});
