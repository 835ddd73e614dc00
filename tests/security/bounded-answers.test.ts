/**
 * Bounded cost for every input: a body of a million invalid lines (3 MB, a few tens of KB
 * gzipped) answers with the first errors and their lines, a count of the rest and why
 * reading stopped, and stores nothing, on both databases and through every ingest path:
 * the upload routes, live append and `retrace import` (bounded output, exit code 1). Before,
 * each invalid line added an error to the answer: half a gigabyte of JSON.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { LISTED_ISSUES, MAX_INVALID_LINES } from "@/lib/server/ingest";
import { MAX_OPEN_RUNS } from "@/lib/server/ingest/flow";
import { ingestBytes } from "@/lib/server/service";
import { answerUpload, LISTED_RUNS } from "@/lib/server/upload";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const LINES = 1_000_000;
const VALID = JSON.stringify({ run: "bounded-1", seq: 0, ts: "2026-12-07T10:00:00.000Z", type: "run.start", data: {} });

/** One valid event, then a million `{}` lines, gzipped. */
function bomb(): Buffer {
  return gzipSync(Buffer.from(VALID + "\n" + "{}\n".repeat(LINES)));
}

const runCount = async (db: Db) => Number((await db.sql.all<{ n: number }>(`SELECT count(*) AS "n" FROM "Run"`))[0].n);
const eventCount = async (db: Db) => Number((await db.sql.all<{ n: number }>(`SELECT count(*) AS "n" FROM "Event"`))[0].n);

describe.each(DIALECTS)("a million invalid lines on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const body = bomb();
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("POST /api/journals answers the first errors with their lines, a count, and stores nothing", async () => {
    expect(body.length).toBeLessThan(64 * 1024);
    const req = new Request("http://x/api/journals", {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: new Uint8Array(body),
    });
    const answer = await answerUpload(db, req, "journal", "default");
    const text = JSON.stringify(answer.body);
    expect(answer.status).toBe(400);
    expect(text.length).toBeLessThan(64 * 1024);
    const b = answer.body as { errors: Array<{ line: number; message: string }>; moreErrors: number; error: string };
    expect(b.errors).toHaveLength(LISTED_ISSUES);
    // line 1 is the valid event: the errors start at line 2
    expect(b.errors.map((e) => e.line)).toEqual(Array.from({ length: LISTED_ISSUES }, (_, i) => i + 2));
    expect(b.errors[0].message).toMatch(/run/);
    expect(b.moreErrors).toBe(MAX_INVALID_LINES - LISTED_ISSUES);
    expect(b.error).toBe(`reading stopped at line ${MAX_INVALID_LINES + 2} after ${MAX_INVALID_LINES} invalid lines; nothing was stored`);
    expect(await runCount(db)).toBe(0);
    expect(await eventCount(db)).toBe(0);
  });

  it("POST /api/imports answers the same bounded report", async () => {
    const req = new Request("http://x/api/imports?name=bomb.ndjson.gz", { method: "POST", body: new Uint8Array(body) });
    const answer = await answerUpload(db, req, "any", "default");
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body).length).toBeLessThan(64 * 1024);
    expect((answer.body as { moreErrors: number }).moreErrors).toBe(MAX_INVALID_LINES - LISTED_ISSUES);
    expect(await runCount(db)).toBe(0);
  });

  it("live append answers bounded and stores nothing", async () => {
    const r = await ingestBytes(db, bytesOf(body), { mode: "stream", source: "stream", onlyRun: "bounded-1" });
    expect(r.errors).toHaveLength(LISTED_ISSUES);
    expect(r.moreErrors).toBe(MAX_INVALID_LINES - LISTED_ISSUES);
    expect(r.stopped).toMatch(/reading stopped/);
    expect(r.committed).toBe(false);
    expect(await runCount(db)).toBe(0);
  });

  it("a few invalid lines are all listed, with no count and no stop", async () => {
    const few = VALID.replace("bounded-1", "bounded-2") + "\n{}\n{}\n";
    const r = await ingestBytes(db, bytesOf(few), { mode: "upload", source: "upload" });
    expect(r.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(r.moreErrors).toBeUndefined();
    expect(r.stopped).toBeUndefined();
  });
});

const start = (run: string) => JSON.stringify({ run, seq: 0, ts: "2026-12-07T10:00:00.000Z", type: "run.start", data: {} });
const note = (run: string, seq: number) =>
  JSON.stringify({ run, seq, ts: "2026-12-07T10:00:01.000Z", type: "note", data: { text: "again" } });

describe.each(DIALECTS)("a body of many runs on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("stores every run when more runs than the request keeps open come one after another, listing the first", async () => {
    const n = Math.max(MAX_OPEN_RUNS, LISTED_RUNS) + 200;
    const lines = Array.from({ length: n }, (_, i) => start(`many-${i}`));
    const req = new Request("http://x/api/journals", {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: lines.join("\n") + "\n",
    });
    const answer = await answerUpload(db, req, "journal", "default");
    expect(answer.status).toBe(201);
    const body = answer.body as { runs: Array<{ run: string }>; moreRuns: number; errors: unknown[] };
    expect(body.errors).toEqual([]);
    expect(body.runs.map((r) => r.run)).toEqual(lines.slice(0, LISTED_RUNS).map((_, i) => `many-${i}`));
    expect(body.moreRuns).toBe(n - LISTED_RUNS);
    expect(await runCount(db)).toBe(n);
  });

  it("refuses a run whose events come again after more runs than it keeps open, storing nothing", async () => {
    const others = Array.from({ length: MAX_OPEN_RUNS }, (_, i) => start(`between-${i}`));
    const lines = [start("split"), ...others, note("split", 1)];
    const before = await runCount(db);
    const r = await ingestBytes(db, bytesOf(lines.join("\n") + "\n"), { mode: "upload", source: "upload" });
    expect(r.committed).toBe(false);
    expect(r.errors).toEqual([
      expect.objectContaining({
        line: MAX_OPEN_RUNS + 2,
        run: "split",
        message: expect.stringMatching(/appears again after .* send each run's events together/),
      }),
    ]);
    expect(await runCount(db)).toBe(before);
  });
});

describe("retrace import of a million invalid lines", () => {
  it("prints the first errors and a count, exits 1 and stores nothing", async () => {
    const t = await freshDb("sqlite");
    try {
      const file = path.join(inject("tmpDir"), "bounded-bomb.ndjson.gz");
      fs.writeFileSync(file, bomb());
      const r = await promisify(execFile)(process.execPath, [path.resolve("scripts/retrace.mjs"), "import", file], {
        env: { ...process.env, DATABASE_URL: t.url, RETRACE_REDACTION_KEY_FILE: t.keyFile },
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        () => ({ code: 0, stdout: "", stderr: "" }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(r.code).toBe(1);
      expect(r.stderr.length).toBeLessThan(64 * 1024);
      expect(r.stderr).toContain(`${file}:2: `);
      expect(r.stderr).toContain(`${file}: and ${(MAX_INVALID_LINES - LISTED_ISSUES).toLocaleString("en-US")} more errors`);
      expect(r.stderr).toContain("reading stopped");
      const db = t.open();
      expect(await runCount(db)).toBe(0);
    } finally {
      await t.cleanup();
    }
  });
});
