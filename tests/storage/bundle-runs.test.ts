/**
 * Opening a verified audit bundle as read-only runs, on both databases: a tampered bundle
 * is refused naming the member (and seq) and stores nothing; a verified one becomes a run
 * with a namespaced id beside the live run of the same id (which it never touches), with
 * the bundle's findings and notes; and the server refuses every write to it: a note, an
 * export, an upload or a live append of its id, and an upload of any new `bundle:` id.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addProject } from "@/lib/server/access/accounts";
import { repack, unpackTarGz } from "@/lib/evidence/archive";
import { BundleRefused, bundleOf, openBundle } from "@/lib/server/bundle-runs";
import type { Db } from "@/lib/server/db";
import { addNote, exportBundle, listNotes } from "@/lib/server/evidence";
import { getRun } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
function journal(run: string, from = 0): string {
  const events = [
    { run, seq: 0, ts: ts(0), type: "run.start", data: { workflow: { name: "refund", version: "3" }, input: "refund order 4185" } },
    { run, seq: 1, ts: ts(1), type: "tool.call", data: { call: "c1", tool: "lookup", args: { q: "order 4185" }, effect: "read" } },
    { run, seq: 2, ts: ts(2), type: "tool.result", data: { call: "c1", status: "ok", partial: true, result: { text: "partial" } } },
    { run, seq: 3, ts: ts(3), type: "run.end", data: { status: "succeeded" } },
  ];
  return (
    events
      .slice(from)
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n"
  );
}

const count = async (db: Db, sql: string, params: string[] = []) => Number((await db.sql.all<{ n: number | string }>(sql, params))[0].n);

describe.each(DIALECTS)("bundle runs on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let bundle: Uint8Array;
  let opened: string;
  const live = `refund-${dialect}`;

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({ RETRACE_AUDIT_KEY_FILE: path.join(inject("tmpDir"), `bundle-runs-${dialect}-${process.pid}.audit-key`) });
    await addProject(db, "archive", "Archive");
    expect((await ingestBytes(db, bytesOf(journal(live)), { mode: "upload", source: "upload" })).errors).toEqual([]);
    await addNote(db, {
      run: live,
      target: "event",
      seq: 2,
      label: "needs fix",
      text: "partial result taken as whole",
      author: "user:rita",
    });
    bundle = (await exportBundle(db, { runs: [live], profile: "reviewer", exporter: "user:rita" })).bytes;
  });
  afterAll(async () => t.cleanup());

  it("refuses a tampered bundle, naming the member and seq, and stores nothing", async () => {
    const runsBefore = await count(db, `SELECT COUNT(*) AS "n" FROM "Run"`);
    // one byte of the file
    const flipped = Uint8Array.from(bundle);
    flipped[Math.floor(flipped.length / 2)] ^= 0x01;
    const e1 = await openBundle(db, flipped, { project: "default", actor: "user:rita" }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(BundleRefused);
    expect((e1 as BundleRefused).failures.map((f) => f.member)).toContain("archive");
    // a journal line changed and the archive rebuilt: the journal member and the seq are named
    const members = await unpackTarGz(bundle);
    const journalPath = members.find((m) => m.path.endsWith("journal.jsonl"))!.path;
    const edited = await repack(
      members.map((m) =>
        m.path === journalPath
          ? { path: m.path, bytes: Buffer.from(Buffer.from(m.bytes).toString("utf8").replace('"partial"', '"complete"')) }
          : m,
      ),
    );
    const e2 = await openBundle(db, edited, { project: "default", actor: "user:rita" }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(BundleRefused);
    expect((e2 as BundleRefused).failures).toContainEqual(expect.objectContaining({ member: journalPath, seq: 2 }));
    expect((e2 as BundleRefused).message).toContain(journalPath);
    expect(await count(db, `SELECT COUNT(*) AS "n" FROM "Run"`)).toBe(runsBefore);
  });

  it("opens a verified bundle as a namespaced run beside the live one, with its findings and notes", async () => {
    const liveBefore = await getRun(db, live);
    const r = await openBundle(db, bundle, { project: "default", actor: "user:rita" });
    expect(r.signedHere).toBe(true);
    expect(r.runs).toHaveLength(1);
    opened = r.runs[0].id;
    expect(opened).toMatch(new RegExp(`^bundle:[0-9a-f]{12}:${live}$`));
    expect(r.runs[0]).toMatchObject({ original: live, events: 4, notes: 1, already: false });

    const detail = await getRun(db, opened);
    expect(detail).toMatchObject({ id: opened, eventCount: 4, live: false });
    expect(detail!.findings.map((f) => [f.rule, f.seq])).toEqual(liveBefore!.findings.map((f) => [f.rule, f.seq]));
    expect((await listNotes(db, opened)).map((n) => [n.seq, n.label, n.text])).toEqual([[2, "needs fix", "partial result taken as whole"]]);
    const p = await bundleOf(db, opened);
    expect(p).toMatchObject({ run: live, project: "default", exporter: "user:rita", profile: "reviewer", events: 4, signedHere: true });
    expect(p!.sha256).toMatch(/^[0-9a-f]{64}$/);
    // the live run is as it was
    expect(await getRun(db, live)).toEqual(liveBefore);
    expect(await bundleOf(db, live)).toBeNull();
    // logged
    const [entry] = await db.sql.all<{ action: string; target: string }>(
      `SELECT "action", "target" FROM "AuditEntry" ORDER BY "seq" DESC LIMIT 1`,
    );
    expect(entry).toEqual({ action: "audit.open", target: opened });
  });

  it("opening it again stores nothing twice; another project gets its own id", async () => {
    const events = await count(db, `SELECT COUNT(*) AS "n" FROM "Event" WHERE "runId" = ?`, [opened]);
    const again = await openBundle(db, bundle, { project: "default", actor: "user:rita" });
    expect(again.runs[0]).toMatchObject({ id: opened, already: true });
    expect(await count(db, `SELECT COUNT(*) AS "n" FROM "Event" WHERE "runId" = ?`, [opened])).toBe(events);
    expect(await count(db, `SELECT COUNT(*) AS "n" FROM "Note" WHERE "runId" = ?`, [opened])).toBe(1);
    const elsewhere = await openBundle(db, bundle, { project: "archive", actor: "user:rita" });
    expect(elsewhere.runs[0].id).not.toBe(opened);
    expect(elsewhere.runs[0].id.endsWith(`:${live}`)).toBe(true);
  });

  it("refuses notes, exports, uploads and appends on a bundle run, server-side", async () => {
    const before = await getRun(db, opened);
    await expect(addNote(db, { run: opened, target: "run", label: "confirmed", text: "x", author: "user:rita" })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining("read-only"),
    });
    await expect(exportBundle(db, { runs: [opened], profile: "reviewer", exporter: "user:rita" })).rejects.toMatchObject({ status: 403 });
    // an upload of a journal naming the bundle run's id (a whole journal, as an overwrite would be)
    const up = await ingestBytes(db, bytesOf(journal(opened)), { mode: "upload", source: "upload" });
    expect(up.errors[0]).toMatchObject({ kind: "conflict", message: expect.stringContaining("read-only") });
    // a live append of one new event
    const extra = JSON.stringify({ run: opened, seq: 4, ts: ts(4), type: "note", data: { text: "appended" } }) + "\n";
    const app = await ingestBytes(db, bytesOf(extra), { mode: "stream", source: "stream", onlyRun: opened });
    expect(app.errors[0]).toMatchObject({ kind: "conflict" });
    // OTLP-derived runs go through the same check
    const otlp = await ingestBytes(db, bytesOf(extra), { mode: "upload", source: "otlp" });
    expect(otlp.errors[0]).toMatchObject({ kind: "conflict" });
    expect(await getRun(db, opened)).toEqual(before);
    expect(await count(db, `SELECT COUNT(*) AS "n" FROM "Note" WHERE "runId" = ?`, [opened])).toBe(1);
    // nor can an upload make a new run that looks like one
    const forged = "bundle:000000000000:forged";
    const f = await ingestBytes(db, bytesOf(journal(forged)), { mode: "upload", source: "upload" });
    expect(f.errors[0]).toMatchObject({ kind: "conflict" });
    expect(await count(db, `SELECT COUNT(*) AS "n" FROM "Run" WHERE "id" = ?`, [forged])).toBe(0);
  });
});
