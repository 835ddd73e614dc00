/**
 * Search across runs by content (issue 32) on both databases: the runs list's `q` finds
 * runs by the stored text of their events through the databases' trigram indexes,
 * literally (wildcards, FTS5 syntax and quotes are characters), within the caller's
 * projects, and names the matching event. Events are indexed on every ingest path (an
 * upload, a live append, a small append on SQLite's second connection), by the migration's
 * backfill for events stored before it, and leave the index when retention drops their
 * payloads or removes their run.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addProject } from "@/lib/server/access/accounts";
import type { Db } from "@/lib/server/db";
import { listRuns, runListQuery } from "@/lib/server/queries";
import { purge, setPayloadRetention, setRetention } from "@/lib/server/retention";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const ROOT = path.resolve(__dirname, "../..");
const DAY = 86_400_000;
const migrationSql = (dialect: string) =>
  fs.readFileSync(path.join(ROOT, `prisma/${dialect}/migrations/20261216000000_event_search/migration.sql`), "utf8");

const ts = (s: number) => `2026-12-01T10:00:${String(s).padStart(2, "0")}.000Z`;
const line = (e: Record<string, unknown>) => `${JSON.stringify(e)}\n`;
/** An FTS5 query for SQLite's index (trigrams without positions): every trigram of the text. */
const allTrigrams = (text: string) => Array.from({ length: text.length - 2 }, (_, i) => `"${text.slice(i, i + 3)}"`).join(" AND ");

/** A refund run: the customer's words at seq 0, the refund id in the tool result at seq 2. */
function refundRun(run: string, refundId: string, words: string): string {
  return [
    { run, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "support", version: "1" }, input: words } },
    { run, seq: 1, ts: ts(1), type: "tool.call", data: { call: "c1", tool: "refund", args: { order: "A-2002" }, effect: "write" } },
    { run, seq: 2, ts: ts(2), type: "tool.result", data: { call: "c1", status: "ok", result: { refund_id: refundId } } },
    { run, seq: 3, ts: ts(3), type: "run.end", data: { status: "succeeded" } },
  ]
    .map(line)
    .join("");
}

/** A run whose text holds every character a query language would read. */
function oddRun(run: string): string {
  return [
    { run, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "odd", version: "1" }, input: "hello" } },
    {
      run,
      seq: 1,
      ts: ts(1),
      type: "model.response",
      data: { call: "m1", output: { text: `save 50% now_ok; say "hi" to O'Brien; a*b NEAR(c d); back\\slash` } },
    },
    { run, seq: 2, ts: ts(2), type: "run.end", data: { status: "succeeded" } },
  ]
    .map(line)
    .join("");
}

describe.each(DIALECTS)("search across runs by content on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const refund = `refund-${dialect}`;
  const other = `other-${dialect}`;
  const odd = `odd-${dialect}`;
  const archived = `archived-${dialect}`;

  const search = async (q: string, readable: "all" | string[] = "all", extra: Record<string, string> = {}) =>
    (await listRuns(db, runListQuery.parse({ q, ...extra }), readable)).runs;
  const ids = async (q: string, readable: "all" | string[] = "all") => (await search(q, readable)).map((r) => r.id).sort();

  const store = async (text: string, opts: { project?: string; mode?: "upload" | "stream"; onlyRun?: string } = {}) => {
    const r = await ingestBytes(db, bytesOf(text), {
      mode: opts.mode ?? "upload",
      source: opts.mode === "stream" ? "stream" : "upload",
      project: opts.project,
      onlyRun: opts.onlyRun,
    });
    expect(r.errors).toEqual([]);
    return r;
  };

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    await addProject(db, "archive", "Archive");
    await store(refundRun(refund, "rf_0002", "Order A-2002 was charged twice, refund it please."));
    await store(refundRun(other, "rf_0009", "Where is my parcel?"));
    await store(oddRun(odd));
    await store(refundRun(archived, "rf_7777", "charged twice again"), { project: "archive" });
  });
  afterAll(async () => t.cleanup());

  it("finds the run holding a refund id and names the event and field it is in", async () => {
    const runs = await search("rf_0002");
    expect(runs.map((r) => r.id)).toEqual([refund]);
    expect(runs[0].match).toEqual({ seq: 2, type: "tool.result", field: "data.result.refund_id", snippet: "rf_0002" });
  });

  it("matches words of the input case-insensitively, in every project the caller reads", async () => {
    expect(await ids("CHARGED TWICE")).toEqual([archived, refund].sort());
    const runs = await search("charged twice");
    expect(runs.find((r) => r.id === refund)?.match).toMatchObject({ seq: 0, type: "run.start", field: "data.input" });
    expect(runs.find((r) => r.id === refund)?.match?.snippet).toBe("Order A-2002 was charged twice, refund it please.");
  });

  it("keeps to the caller's projects and the project filter", async () => {
    expect(await ids("charged twice", ["default"])).toEqual([refund]);
    expect(await ids("charged twice", ["archive"])).toEqual([archived]);
    expect(await ids("rf_0002", ["archive"])).toEqual([]);
    expect((await search("charged twice", "all", { project: "archive" })).map((r) => r.id)).toEqual([archived]);
  });

  it("a run found by its id names no event (every event's envelope holds the id)", async () => {
    const byName = await search(odd);
    expect(byName.map((r) => r.id)).toEqual([odd]);
    expect(byName[0].match).toBeUndefined();
  });

  it("matches the query's characters in order and together, not only its trigrams", async () => {
    // "xyzw yzwv" holds every trigram of "xyzwv" (xyz, yzw, zwv) but not the text itself
    const apart = `apart-${dialect}`;
    const start = { run: apart, seq: 0, ts: ts(0), type: "run.start" };
    await store(line({ ...start, data: { workflow: { name: "gamma", version: "1" }, input: "xyzw yzwv" } }));
    expect(await ids("xyzwv")).toEqual([]);
    expect(await ids("XYZW YZ")).toEqual([apart]);
    // nor across two of the body's values ("gamma" and "1" are neighbours in the body)
    expect(await ids("gamma1")).toEqual([]);
  });

  it("treats wildcards, quotes, FTS5 operators and long text literally, with no error", async () => {
    // literal matches of the odd characters, inside the stored JSON string
    expect(await ids("50% now_ok")).toEqual([odd]);
    expect(await ids(`say "hi"`)).toEqual([odd]);
    expect(await ids("O'Brien")).toEqual([odd]);
    expect(await ids("a*b NEAR(c d)")).toEqual([odd]);
    expect(await ids("back\\slash")).toEqual([odd]);
    // as wildcards these would match: literally nothing holds them
    expect(await ids("rf_00_2")).toEqual([]);
    expect(await ids("rf%2")).toEqual([]);
    expect(await ids("rf*")).toEqual([]);
    expect(await ids("rf_0002 OR rf_0009")).toEqual([]);
    expect(await ids(`rf_0002" OR "rf_0009`)).toEqual([]);
    expect(await ids("NEAR(rf_0002 rf_0009)")).toEqual([]);
    expect(await ids("body:rf_0002")).toEqual([]);
    expect(await ids("^rf_0002")).toEqual([]);
    // one or two characters: too short for the index; names and findings only (a finding's
    // message may hold a quote), never a content match, never a wildcard
    for (const q of ["%", "_", '"', "*", "'", "%%", "\\"]) {
      const runs = await search(q);
      expect(
        runs.filter((r) => r.match !== undefined),
        q,
      ).toEqual([]);
      expect(runs.length, q).toBeLessThan(4);
    }
    // the longest query the list takes (200 characters) of hostile text
    expect(await ids(`"*%_'\\ NEAR `.repeat(20).slice(0, 200))).toEqual([]);
    // longer is refused by the query schema (a 400), never sent to the database
    expect(runListQuery.safeParse({ q: "x".repeat(201) }).success).toBe(false);
  });

  it("indexes a live append's events as they arrive", async () => {
    const live = `live-${dialect}`;
    await store(
      line({ run: live, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "live", version: "1" }, input: "hi" } }),
      {
        mode: "stream",
        onlyRun: live,
      },
    );
    expect(await ids("zebra-7731")).toEqual([]);
    await store(
      line({ run: live, seq: 1, ts: ts(1), type: "model.response", data: { call: "m1", output: { text: "the zebra-7731 answer" } } }),
      {
        mode: "stream",
        onlyRun: live,
      },
    );
    const runs = await search("zebra-7731");
    expect(runs.map((r) => r.id)).toEqual([live]);
    expect(runs[0].match).toMatchObject({ seq: 1, type: "model.response", field: "data.output.text", snippet: "the zebra-7731 answer" });
  });

  it("answers from the trigram index on a run of 20,000 events", async () => {
    // 20,000 more events in the refund run, written straight into the table (the index
    // fills from the database itself), then the planner's statistics
    const sql =
      dialect === "sqlite"
        ? `WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 20099)
           INSERT INTO "Event" ("runId", "seq", "ts", "tsMs", "type", "bytes", "body", "chain")
           SELECT ?, i, '2026-12-01T10:00:00.000Z', 0, 'tool.result', 60, '{"data":{"text":"filler line ' || i || '"}}', 'none' FROM n`
        : `INSERT INTO "Event" ("runId", "seq", "ts", "tsMs", "type", "bytes", "body", "chain")
           SELECT ?, i, '2026-12-01T10:00:00.000Z', 0, 'tool.result', 60, '{"data":{"text":"filler line ' || i || '"}}', 'none'
           FROM generate_series(100, 20099) AS i`;
    await db.sql.transaction((tx) => tx.run(sql, [refund]));
    await db.sql.all(dialect === "sqlite" ? `ANALYZE` : `ANALYZE "Event"`);
    expect(await ids("filler line 17171")).toEqual([refund]);
    const probe = dialect === "sqlite" ? allTrigrams("filler line 17171") : "%filler line 17171%";
    // PostgreSQL prices a scan of so small a table below the index (a larger one reaches
    // the index by itself): with scans priced out, the plan shows the index serves the
    // escaped pattern
    const plan = (
      await db.sql.transaction(async (tx) => {
        if (dialect === "postgres") await tx.run(`SET LOCAL enable_seqscan = off`, []);
        return tx.all<Record<string, unknown>>(
          dialect === "sqlite"
            ? `EXPLAIN QUERY PLAN SELECT rowid FROM "EventText" WHERE "EventText" MATCH ? LIMIT 10000`
            : `EXPLAIN SELECT "runId", "seq", "type" FROM "Event" WHERE "body" ILIKE ? ESCAPE '\\' LIMIT 10000`,
          [probe],
        );
      })
    )
      .map((r) => String(r.detail ?? r["QUERY PLAN"]))
      .join("\n");
    if (dialect === "sqlite") expect(plan).toMatch(/VIRTUAL TABLE INDEX/);
    else expect(plan).toMatch(/Bitmap Index Scan on "?Event_body_trgm"?/);
  });

  it("stores secrets redacted, so the index never finds a secret", async () => {
    const secretRun = `secret-${dialect}`;
    const key = "sk-ant-api03-" + "Q".repeat(90) + "AA";
    await store(refundRun(secretRun, "rf_5555", `my key is ${key}`));
    expect(await ids("QQQQQQQQQQQQ")).toEqual([]);
    expect(await ids("rf_5555")).toEqual([secretRun]);
  });
});

describe.each(DIALECTS)("the search index's backfill and retention on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const early = `early-${dialect}`;
  const kept = `kept-${dialect}`;

  const ids = async (q: string) => (await listRuns(db, runListQuery.parse({ q }), "all")).runs.map((r) => r.id).sort();

  /** Runs SQL on the database directly (DDL the executor does not run). */
  async function raw(sql: string): Promise<void> {
    if (dialect === "sqlite") {
      const d = new Database(t.url.replace(/^file:/, ""));
      try {
        d.exec(sql);
      } finally {
        d.close();
      }
    } else {
      const c = new pg.Client({ connectionString: t.url });
      await c.connect();
      try {
        await c.query(sql);
      } finally {
        await c.end();
      }
    }
  }
  const indexRows = async (needle: string) =>
    dialect === "sqlite"
      ? Number(
          (await db.sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "EventText" WHERE "EventText" MATCH ?`, [allTrigrams(needle)]))[0]
            .n,
        )
      : // PostgreSQL's index holds what the bodies hold: the events whose body has the text
        Number(
          (
            await db.sql.all<{ n: string }>(`SELECT COUNT(*) AS "n" FROM "Event" WHERE "body" ILIKE ? ESCAPE '\\'`, [
              `%${needle.replace(/_/g, "\\_")}%`,
            ])
          )[0].n,
        );

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("the migration's backfill indexes events stored before it", async () => {
    // the database as it was before the migration: no index, no triggers
    await raw(
      dialect === "sqlite"
        ? `DROP TRIGGER "Event_text_insert"; DROP TRIGGER "Event_text_delete"; DROP TRIGGER "Event_text_update"; DROP TABLE "EventText";`
        : `DROP INDEX "Event_body_trgm";`,
    );
    const r = await ingestBytes(db, bytesOf(refundRun(early, "rf_3131", "an early run, charged twice")), {
      mode: "upload",
      source: "upload",
    });
    expect(r.errors).toEqual([]);
    if (dialect === "sqlite") await expect(ids("rf_3131")).rejects.toThrow(/EventText/);
    await raw(migrationSql(dialect));
    expect(await ids("rf_3131")).toEqual([early]);
    expect(await indexRows("rf_3131")).toBe(1);
  });

  it("retention's payload drop takes the payload out of the index; removing a run removes its rows", async () => {
    await ingestBytes(db, bytesOf(refundRun(kept, "rf_4242", "a recent run")), { mode: "upload", source: "upload" });
    expect(await ids("rf_4242")).toEqual([kept]);
    await db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" = ?`, [Date.now() - 20 * DAY, early]));
    await setRetention(db, "default", 30);
    await setPayloadRetention(db, "default", 10);
    const dropped = await purge(db, { actor: "user:test" });
    expect(dropped.dropped.map((x) => x.id)).toEqual([early]);
    expect(await ids("rf_3131")).toEqual([]);
    expect(await ids("charged twice")).toEqual([]);
    expect(await indexRows("rf_3131")).toBe(0);
    // the other run is as it was
    expect(await ids("rf_4242")).toEqual([kept]);

    // past the retention: the run and its index rows go
    await db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" = ?`, [Date.now() - 40 * DAY, kept]));
    const removed = await purge(db, { actor: "user:test" });
    expect(removed.runs.map((x) => x.id)).toEqual([kept]);
    expect(await ids("rf_4242")).toEqual([]);
    expect(await indexRows("rf_4242")).toBe(0);
    if (dialect === "sqlite") {
      // every index row belongs to a stored event
      const [{ n }] = await db.sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "EventText"`);
      const [{ e }] = await db.sql.all<{ e: number }>(`SELECT COUNT(*) AS "e" FROM "Event"`);
      expect(Number(n)).toBe(Number(e));
    }
  });
});
