/**
 * Retention and legal hold on both databases, through the real CLI: a dry run reports
 * what would go and changes nothing; a purge removes the old run with its events,
 * findings, notes and OTLP spans, keeps the held run, the recent run and the run of a
 * project without a policy, and writes one privileged-action log entry naming the run and
 * its counts but no payload.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addProject } from "@/lib/server/access/accounts";
import type { Db } from "@/lib/server/db";
import { addNote } from "@/lib/server/evidence";
import { purgeIntervalMs, setLegalHold, setRetention, startPurgeSchedule } from "@/lib/server/retention";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const ROOT = path.resolve(__dirname, "../..");
const DAY = 86_400_000;
// a payload no id, count or name contains, one per run, to look for in the log and the file
const marker = (run: string) => `payload-marker-Zq81-${run.split("").reverse().join("")}`;

function retrace(t: TestDb, args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: t.url, RETRACE_REDACTION_KEY_FILE: t.keyFile },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Four events; the partial tool result gives a tool.partial finding at seq 2. */
function journal(run: string): string {
  const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
  const MARKER = marker(run);
  return (
    [
      { run, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "refund", version: "3" }, input: `${MARKER} input` } },
      { run, seq: 1, ts: ts(1), type: "tool.call", data: { call: "c1", tool: "lookup", args: { q: MARKER }, effect: "read" } },
      { run, seq: 2, ts: ts(2), type: "tool.result", data: { call: "c1", status: "ok", partial: true, result: { text: MARKER } } },
      { run, seq: 3, ts: ts(3), type: "run.end", data: { status: "succeeded" } },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n"
  );
}

const TABLES = ["Event", "Finding", "Note", "TraceSpan"] as const;

describe.each(DIALECTS)("retention and purge on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const old = `old-${dialect}`;
  const held = `held-${dialect}`;
  const fresh = `fresh-${dialect}`;
  const elsewhere = `elsewhere-${dialect}`;

  const count = async (table: string, run: string) =>
    Number((await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "${table}" WHERE "runId" = ?`, [run]))[0].n);
  const runExists = async (run: string) => (await db.sql.all(`SELECT 1 FROM "Run" WHERE "id" = ?`, [run])).length === 1;
  const snapshot = async () => {
    const out: Record<string, number> = {};
    for (const run of [old, held, fresh, elsewhere]) {
      out[`Run:${run}`] = (await runExists(run)) ? 1 : 0;
      for (const table of TABLES) out[`${table}:${run}`] = await count(table, run);
    }
    out.audit = Number((await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "AuditEntry"`))[0].n);
    return out;
  };

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    await addProject(db, "archive", "Archive");
    for (const run of [old, held, fresh])
      expect(await ingestBytes(db, bytesOf(journal(run)), { mode: "upload", source: "upload" })).toMatchObject({
        errors: [],
        runs: [{ status: "stored" }],
      });
    await ingestBytes(db, bytesOf(journal(elsewhere)), { mode: "upload", source: "upload", project: "archive" });
    await addNote(db, { run: old, target: "event", seq: 1, label: "question", text: `why ${marker(old)}?`, author: "user:rita" });
    await addNote(db, { run: held, target: "run", label: "needs fix", text: "keep this one", author: "user:rita" });
    // a span as the OTLP receiver keeps it, so the purge must find spans by run too
    await db.sql.transaction((tx) =>
      tx.run(`INSERT INTO "TraceSpan" ("traceId", "spanId", "runId", "startNs", "body") VALUES (?, ?, ?, ?, ?)`, [
        "t1",
        "s1",
        old,
        "1",
        JSON.stringify({ name: marker(old) }),
      ]),
    );
    // age: 40 days without a change for three runs, the fourth was changed now
    await db.sql.transaction((tx) =>
      tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" IN (?, ?, ?)`, [Date.now() - 40 * DAY, old, held, elsewhere]),
    );
    await setRetention(db, "default", 30);
    await setLegalHold(db, held, true, "user:rita", "incident 7");
  });
  afterAll(async () => t.cleanup());

  it("a dry run lists the old run with its counts and changes nothing", async () => {
    const before = await snapshot();
    // what the purge should report, counted here from the seeding above
    expect(before[`Event:${old}`]).toBe(4);
    expect(before[`Finding:${old}`]).toBeGreaterThan(0);
    expect(before[`Note:${old}`]).toBe(1);
    expect(before[`TraceSpan:${old}`]).toBe(1);

    const r = retrace(t, ["purge", "--dry-run", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { dryRun: boolean; runs: Record<string, unknown>[]; held: string[]; auditSeq: number | null };
    expect(out.dryRun).toBe(true);
    expect(out.runs).toEqual([
      expect.objectContaining({ id: old, project: "default", events: 4, findings: before[`Finding:${old}`], notes: 1, spans: 1 }),
    ]);
    expect(out.held).toEqual([held]);
    expect(out.auditSeq).toBeNull();
    expect(await snapshot()).toEqual(before);
  });

  it("purges the old run from every table, keeps the held, recent and other-project runs, and logs it", async () => {
    const before = await snapshot();
    const r = retrace(t, ["purge"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`removed ${old} (project default`);
    expect(r.stdout).toContain(`kept ${held}: under legal hold`);
    expect(r.stdout).toContain(`removed 1 run (4 events, ${before[`Finding:${old}`]} findings, 1 notes, 1 spans), 1 held`);

    expect(await runExists(old)).toBe(false);
    for (const table of TABLES) expect(await count(table, old), table).toBe(0);
    const after = await snapshot();
    for (const run of [held, fresh, elsewhere]) {
      expect(after[`Run:${run}`], run).toBe(1);
      for (const table of TABLES) expect(after[`${table}:${run}`], `${table}:${run}`).toBe(before[`${table}:${run}`]);
    }
    // what remains of the held run is still the whole journal
    expect(after[`Event:${held}`]).toBe(4);
    expect(after.audit).toBe(before.audit + 1);

    const [entry] = await db.sql.all<{ action: string; target: string; detail: string; result: string }>(
      `SELECT "action", "target", "detail", "result" FROM "AuditEntry" ORDER BY "seq" DESC LIMIT 1`,
    );
    expect(entry).toMatchObject({ action: "retention.purge", target: old, result: "ok" });
    const detail = JSON.parse(entry.detail) as { runs: { id: string; events: number }[]; held: string[]; totals: { runs: number } };
    expect(detail.runs.map((x) => [x.id, x.events])).toEqual([[old, 4]]);
    expect(detail.held).toEqual([held]);
    expect(detail.totals.runs).toBe(1);
    expect(entry.detail).not.toContain(marker(old));

    // SQLite: no byte of the purged run's payloads is left in the file or its WAL; the held
    // run's are (the scan finds what is there)
    if (dialect === "sqlite") {
      const file = t.url.slice("file:".length);
      const raw = Buffer.concat([fs.readFileSync(file), fs.existsSync(`${file}-wal`) ? fs.readFileSync(`${file}-wal`) : Buffer.alloc(0)]);
      expect(raw.includes(marker(old)), "purged payload in the SQLite file").toBe(false);
      expect(raw.includes(marker(held)), "held payload in the SQLite file").toBe(true);
    } else {
      const dump = spawnSync("pg_dump", ["--data-only", t.url], { encoding: "utf8", timeout: 60_000 });
      expect(dump.status, dump.stderr).toBe(0);
      expect(dump.stdout.includes(marker(old)), "purged payload in pg_dump").toBe(false);
      expect(dump.stdout.includes(marker(held)), "held payload in pg_dump").toBe(true);
    }

    // nothing left to purge: the next one removes nothing, and says so
    const again = retrace(t, ["purge", "--project", "default"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("removed 0 runs");
  });

  it("lifting the hold lets the next purge remove the run", async () => {
    await setLegalHold(db, held, false, "user:rita");
    const r = retrace(t, ["purge"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`removed ${held}`);
    expect(await runExists(held)).toBe(false);
    for (const table of TABLES) expect(await count(table, held), table).toBe(0);
    expect(await runExists(fresh)).toBe(true);
    expect(await runExists(elsewhere)).toBe(true);
  });

  it("the server's schedule purges at its interval and logs only the rounds that removed something", async () => {
    await db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" = ?`, [Date.now() - 40 * DAY, fresh]));
    const auditCount = async () => Number((await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "AuditEntry"`))[0].n);
    let tick: (() => Promise<void>) | null = null;
    let every = 0;
    let stopped = false;
    const stop = startPurgeSchedule(db, 15 * 60_000, (fn, ms) => {
      tick = fn;
      every = ms;
      return () => (stopped = true);
    });
    expect(every).toBe(15 * 60_000);
    const before = await auditCount();
    await tick!();
    expect(await runExists(fresh)).toBe(false);
    expect(await runExists(elsewhere)).toBe(true);
    const [entry] = await db.sql.all<{ actor: string; action: string; target: string }>(
      `SELECT "actor", "action", "target" FROM "AuditEntry" ORDER BY "seq" DESC LIMIT 1`,
    );
    expect(entry).toEqual({ actor: "server:schedule", action: "retention.purge", target: fresh });
    expect(await auditCount()).toBe(before + 1);
    // nothing left to remove: a round with nothing to say adds no entry
    await tick!();
    expect(await auditCount()).toBe(before + 1);
    stop();
    expect(stopped).toBe(true);
  });
});

describe("RETRACE_PURGE_EVERY_MINUTES", () => {
  it("is 60 minutes by default, off on request, and refuses anything but whole minutes", () => {
    expect(purgeIntervalMs({})).toBe(3_600_000);
    expect(purgeIntervalMs({ RETRACE_PURGE_EVERY_MINUTES: "15" })).toBe(900_000);
    expect(purgeIntervalMs({ RETRACE_PURGE_EVERY_MINUTES: "off" })).toBeNull();
    for (const bad of ["0", "1.5", "-3", "hourly"])
      expect(() => purgeIntervalMs({ RETRACE_PURGE_EVERY_MINUTES: bad }), bad).toThrow(/minutes/);
  });
});
