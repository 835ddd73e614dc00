/**
 * Retention's first stage on both databases, through the real CLI: after a project's
 * payload days, a run's payloads are dropped (event contents, OTLP spans, the analyzer
 * snapshot) while its row, summary, findings, notes and every event's seq, type and hash
 * columns stay; after its retention days the run goes whole. A legal hold exempts a run
 * from both. The dry run reports both counts and changes nothing; each stage is one
 * privileged-action log entry with counts; no byte of a dropped payload is left in the
 * SQLite file (raw scan) or in a pg_dump.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { addNote } from "@/lib/server/evidence";
import { getRun } from "@/lib/server/queries";
import { payloadsDroppedOf, setLegalHold, setPayloadRetention, setRetention } from "@/lib/server/retention";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const ROOT = path.resolve(__dirname, "../..");
const DAY = 86_400_000;
const marker = (run: string) => `payload-marker-Kd72-${run.split("").reverse().join("")}`;

function retrace(t: TestDb, args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: t.url, RETRACE_REDACTION_KEY_FILE: t.keyFile },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Four events, payloads in the input, the tool arguments and the result; tool.partial finds at seq 2. */
function journal(run: string): string {
  const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
  const M = marker(run);
  return (
    [
      { run, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "refund", version: "3" }, input: `${M} input` } },
      { run, seq: 1, ts: ts(1), type: "tool.call", data: { call: "c1", tool: "lookup", args: { q: M }, effect: "read" } },
      { run, seq: 2, ts: ts(2), type: "tool.result", data: { call: "c1", status: "ok", partial: true, result: { text: M } } },
      { run, seq: 3, ts: ts(3), type: "run.end", data: { status: "succeeded" } },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n"
  );
}

interface EventCols {
  seq: number;
  type: string;
  name: string | null;
  status: string | null;
  recordedHash: string | null;
  chain: string;
  hash: string | null;
}

describe.each(DIALECTS)("payload drop on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const old = `pd-old-${dialect}`;
  const mid = `pd-mid-${dialect}`;
  const held = `pd-held-${dialect}`;
  const fresh = `pd-fresh-${dialect}`;
  let before: Record<string, unknown>;

  const count = async (table: string, run: string) =>
    Number((await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "${table}" WHERE "runId" = ?`, [run]))[0].n);
  const eventCols = async (run: string) =>
    (
      await db.sql.all<EventCols>(
        `SELECT "seq", "type", "name", "status", "recordedHash", "chain", "hash" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
        [run],
      )
    ).map((e) => ({ ...e, seq: Number(e.seq) }));
  const runRow = async (run: string) =>
    (
      await db.sql.all<Record<string, unknown>>(
        `SELECT "id", "status", "eventCount", "findingCount", "errorCount", "workflow", "chainStatus", "serverLastHash", "recorderLastHash", "startedMs", "endedMs" FROM "Run" WHERE "id" = ?`,
        [run],
      )
    ).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])))[0];
  const audit = async () => Number((await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "AuditEntry"`))[0].n);

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    for (const run of [old, mid, held, fresh])
      expect((await ingestBytes(db, bytesOf(journal(run)), { mode: "upload", source: "upload" })).errors).toEqual([]);
    await addNote(db, { run: mid, target: "event", seq: 2, label: "needs fix", text: "partial taken as whole", author: "user:rita" });
    await db.sql.transaction((tx) =>
      tx.run(`INSERT INTO "TraceSpan" ("traceId", "spanId", "runId", "startNs", "body") VALUES (?, ?, ?, ?, ?)`, [
        "t-mid",
        "s1",
        mid,
        "1",
        JSON.stringify({ name: marker(mid) }),
      ]),
    );
    await db.sql.transaction(async (tx) => {
      await tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" = ?`, [Date.now() - 40 * DAY, old]);
      await tx.run(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" IN (?, ?)`, [Date.now() - 20 * DAY, mid, held]);
    });
    await setRetention(db, "default", 30);
    await setPayloadRetention(db, "default", 10);
    await setLegalHold(db, held, true, "user:rita", "incident 9");
    before = { mid: { row: await runRow(mid), events: await eventCols(mid), detail: await getRun(db, mid) } };
  });
  afterAll(async () => t.cleanup());

  it("refuses payload days that are not fewer than the retention days", async () => {
    await expect(setPayloadRetention(db, "default", 30)).rejects.toThrow(/fewer days than the retention \(30\)/);
    await expect(setRetention(db, "default", 10)).rejects.toThrow(/more days than payloads are kept \(10\)/);
  });

  it("a dry run reports the payloads to drop and the runs to delete, and changes nothing", async () => {
    const n = await audit();
    const r = retrace(t, ["purge", "--dry-run", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { runs: { id: string }[]; dropped: Record<string, unknown>[]; held: string[] };
    expect(out.runs.map((x) => x.id)).toEqual([old]);
    expect(out.dropped).toEqual([expect.objectContaining({ id: mid, project: "default", events: 4, spans: 1 })]);
    expect(out.held).toEqual([held]);
    const text = retrace(t, ["purge", "--dry-run"]);
    expect(text.stdout).toContain(`would drop the payloads of ${mid}`);
    expect(text.stdout).toContain("would drop the payloads of 1 run (4 events, 1 spans)");
    expect(text.stdout).toContain("would remove 1 run");
    expect(await eventCols(mid)).toEqual((before.mid as { events: EventCols[] }).events);
    expect(await count("TraceSpan", mid)).toBe(1);
    expect(await audit()).toBe(n);
  });

  it("drops the payloads, keeps the summary, findings, notes and hashes, and logs each stage", async () => {
    const n = await audit();
    const r = retrace(t, ["purge"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`dropped the payloads of ${mid} (project default`);
    expect(r.stdout).toContain(`removed ${old} (project default`);
    expect(r.stdout).toContain(`kept ${held}: under legal hold`);

    const b = before.mid as { row: Record<string, unknown>; events: EventCols[]; detail: Awaited<ReturnType<typeof getRun>> };
    // the row's summary, every event's seq/type/name/status and hash columns, the findings and notes: as they were
    expect(await runRow(mid)).toEqual(b.row);
    expect(await eventCols(mid)).toEqual(b.events);
    const detail = await getRun(db, mid);
    expect(detail!.findings).toEqual(b.detail!.findings);
    expect(detail!.findings.length).toBeGreaterThan(0);
    expect(await count("Note", mid)).toBe(1);
    expect(await count("TraceSpan", mid)).toBe(0);
    expect(await payloadsDroppedOf(db, mid)).toEqual(expect.any(String));
    expect(await payloadsDroppedOf(db, held)).toBeNull();
    const bodies = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ?`, [mid]);
    expect(bodies).toHaveLength(4);
    for (const x of bodies) expect(x.body).not.toContain(marker(mid));
    // the held and fresh runs are whole, the old one gone
    expect(await count("Event", held)).toBe(4);
    expect(await count("Event", old)).toBe(0);
    expect((await db.sql.all(`SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" = 1`, [held]))[0]).toMatchObject({
      body: expect.stringContaining(marker(held)),
    });

    // two log entries: the payload drop and the purge, each with counts and no payload
    expect(await audit()).toBe(n + 2);
    const entries = await db.sql.all<{ action: string; target: string; detail: string }>(
      `SELECT "action", "target", "detail" FROM "AuditEntry" ORDER BY "seq" DESC LIMIT 2`,
    );
    const drop = entries.find((e) => e.action === "retention.drop-payloads")!;
    expect(drop.target).toBe(mid);
    const d = JSON.parse(drop.detail) as {
      runs: { id: string; events: number; spans: number }[];
      totals: { runs: number; events: number };
    };
    expect(d.runs).toEqual([expect.objectContaining({ id: mid, events: 4, spans: 1 })]);
    expect(d.totals).toMatchObject({ runs: 1, events: 4 });
    expect(entries.map((e) => e.action)).toContain("retention.purge");
    for (const e of entries) expect(e.detail).not.toContain(marker(mid));

    if (dialect === "sqlite") {
      const file = t.url.slice("file:".length);
      const raw = Buffer.concat([fs.readFileSync(file), fs.existsSync(`${file}-wal`) ? fs.readFileSync(`${file}-wal`) : Buffer.alloc(0)]);
      expect(raw.includes(marker(mid)), "dropped payload in the SQLite file").toBe(false);
      expect(raw.includes(marker(old)), "purged payload in the SQLite file").toBe(false);
      expect(raw.includes(marker(held)), "held payload in the SQLite file").toBe(true);
      expect(raw.includes(marker(fresh)), "fresh payload in the SQLite file").toBe(true);
    } else {
      const dump = spawnSync("pg_dump", ["--data-only", t.url], { encoding: "utf8", timeout: 60_000 });
      expect(dump.status, dump.stderr).toBe(0);
      expect(dump.stdout.includes(marker(mid)), "dropped payload in pg_dump").toBe(false);
      expect(dump.stdout.includes(marker(old)), "purged payload in pg_dump").toBe(false);
      expect(dump.stdout.includes(marker(held)), "held payload in pg_dump").toBe(true);
      expect(dump.stdout.includes(marker(fresh)), "fresh payload in pg_dump").toBe(true);
    }
  });

  it("drops a run's payloads once, and refuses appends to it afterwards", async () => {
    const again = retrace(t, ["purge"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("dropped the payloads of 0 runs");
    const extra = JSON.stringify({ run: mid, seq: 4, ts: "2026-12-01T10:00:05.000Z", type: "note", data: { text: "late" } }) + "\n";
    const app = await ingestBytes(db, bytesOf(extra), { mode: "stream", source: "stream", onlyRun: mid });
    expect(app.errors[0]).toMatchObject({ kind: "conflict", message: expect.stringContaining("payloads were dropped") });
    const up = await ingestBytes(db, bytesOf(journal(mid)), { mode: "upload", source: "upload" });
    expect(up.errors[0]).toMatchObject({ kind: "conflict" });
    expect(await count("Event", mid)).toBe(4);
  });
});
