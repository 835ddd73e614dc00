import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { subscribeRunChanges } from "@/lib/server/changes";
import { getRun } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

// A PostgreSQL restart or failover closes every connection a server instance holds. The
// instance must keep serving (an unhandled 'error' from an idle pg connection would end
// the process) and its live-run notifications must come back on their own.
const TS = "2026-11-07T11:00:01.026Z";
const journal = (run: string, n: number) =>
  Array.from({ length: n }, (_, seq) =>
    JSON.stringify({ run, seq, ts: TS, type: seq === 0 ? "run.start" : "note", data: seq === 0 ? {} : { text: `e${seq}` } }),
  ).join("\n") + "\n";
const upload = (db: Db, text: string) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });

async function terminateConnections(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: `${process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432"}/postgres` });
  await admin.connect();
  try {
    const r = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
      database,
    ]);
    return r.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe("PostgreSQL connections lost under a running instance", () => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb("postgres");
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("keeps serving ingest and reads, and live-run notifications resume", async () => {
    const seen: Array<string[] | null> = [];
    const unsubscribe = await subscribeRunChanges(db, (ids) => seen.push(ids));
    // the idle pool connections and the LISTEN connection exist before the cut
    expect((await upload(db, journal("before-cut", 5))).runs[0].status).toBe("stored");
    expect(await until(() => seen.some((ids) => ids?.includes("before-cut")), 5000)).toBe(true);

    const killed = await terminateConnections(t.url.split("/").pop()!);
    expect(killed).toBeGreaterThanOrEqual(2);

    // listeners hear that changes may have been missed once LISTEN is back
    expect(await until(() => seen.includes(null), 10000)).toBe(true);
    // a stored run still notifies, and the instance reads and writes as before
    const stored = await upload(db, journal("after-cut", 5));
    expect(stored.runs[0]).toMatchObject({ status: "stored", accepted: 5 });
    expect(await until(() => seen.some((ids) => ids?.includes("after-cut")), 5000)).toBe(true);
    expect((await getRun(db, "after-cut"))?.eventCount).toBe(5);
    unsubscribe();
  });
});
