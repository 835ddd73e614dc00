/**
 * Notes and audit bundles on both databases, through the real CLI: a run seeded with
 * secrets and personal data, a note on its finding, `retrace export` (reviewer profile)
 * then `retrace verify` passes, the bundle holds the note and none of the seeded values,
 * the export is in the privileged-action log, and a changed member fails `verify` by name.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repack, unpackTarGz } from "@/lib/evidence/archive";
import type { Db } from "@/lib/server/db";
import { addNote, listNotes } from "@/lib/server/evidence";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";
import { inject } from "vitest";
import { PII, PII_DIGIT_FORMS } from "../evidence/fixtures";

const ROOT = path.resolve(__dirname, "../..");
// secrets in shapes of the format's patterns, built at run time
const SECRETS = ["AKIA" + "QWERTYUIOPASDFGH", "ghp_" + "Gh7".repeat(13), "Bearer " + "tok3n".repeat(6)];

function retrace(t: TestDb, args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: t.url, RETRACE_REDACTION_KEY_FILE: t.keyFile, ...extraEnv },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function journal(run: string): string {
  const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
  const events = [
    {
      run,
      seq: 0,
      ts: ts(0),
      type: "run.start",
      data: {
        workflow: { name: "refund", version: "3" },
        initiator: { kind: "user", id: PII.email },
        input: `refund ${PII.cardSpaced} ${SECRETS[0]}`,
      },
    },
    {
      run,
      seq: 1,
      ts: ts(1),
      type: "tool.call",
      data: { call: "c1", tool: "pay", args: { iban: PII.ibanSpaced, auth: SECRETS[2], phone: PII.phoneIntl }, effect: "write" },
    },
    {
      run,
      seq: 2,
      ts: ts(2),
      type: "tool.result",
      data: {
        call: "c1",
        status: "ok",
        partial: true,
        result: { ip: PII.ipv4, v6: PII.ipv6, token: SECRETS[1], alt: PII.ibanPlain, card: PII.cardDashed, us: PII.phoneUs },
      },
    },
    { run, seq: 3, ts: ts(3), type: "run.end", data: { status: "succeeded" } },
  ];
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

describe.each(DIALECTS)("notes and audit bundles on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let auditKeyFile: string;
  const run = `evidence-${dialect}`;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({ RETRACE_AUDIT_KEY_FILE: (auditKeyFile = path.join(inject("tmpDir"), `${run}-${process.pid}.audit-key`)) });
    const r = await ingestBytes(db, bytesOf(journal(run)), { mode: "upload", source: "upload" });
    expect(r.runs[0].status).toBe("stored");
  });
  afterAll(async () => t.cleanup());

  it("stores a note on a finding apart from the events, and refuses one on a finding that does not exist", async () => {
    const before = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [run]);
    const findings = await db.sql.all<{ rule: string; seq: number }>(`SELECT "rule", "seq" FROM "Finding" WHERE "runId" = ?`, [run]);
    const partial = findings.find((f) => f.rule === "tool.partial");
    expect(partial && Number(partial.seq)).toBe(2);
    const n = await addNote(db, {
      run,
      target: "finding",
      seq: 2,
      rule: "tool.partial",
      label: "false positive",
      text: `checked by ${PII.email} with ${SECRETS[1]}`,
      author: "user:rita",
    });
    expect(n).toMatchObject({ target: "finding", seq: 2, rule: "tool.partial", label: "false positive", author: "user:rita" });
    // the note's text is redacted of secrets before it is stored, as events are
    expect(n.text).not.toContain(SECRETS[1]);
    await expect(
      addNote(db, { run, target: "finding", seq: 1, rule: "tool.partial", label: "confirmed", text: "x", author: "user:rita" }),
    ).rejects.toThrow(/no finding/);
    await expect(addNote(db, { run, target: "event", seq: 99, label: "question", text: "x", author: "user:rita" })).rejects.toThrow(
      /no event 99/,
    );
    expect((await listNotes(db, run)).map((x) => x.id)).toEqual([n.id]);
    const after = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [run]);
    expect(after).toEqual(before);
  });

  it("exports with the CLI, verifies, holds the note and none of the seeded values; a changed member fails by name", async () => {
    const out = path.join(inject("tmpDir"), `${run}-${process.pid}.tar.gz`);
    const env = { RETRACE_AUDIT_KEY_FILE: auditKeyFile };
    const ex = retrace(t, ["export", "--run", run, "--profile", "reviewer", "--out", out], env);
    expect(ex.stderr).toBe("");
    expect(ex.status).toBe(0);
    expect(fs.statSync(auditKeyFile).mode & 0o777).toBe(0o600);

    const shown = retrace(t, ["keys", "show"], env);
    expect(shown.status).toBe(0);
    const pem = path.join(inject("tmpDir"), `${run}-${process.pid}.pub.pem`);
    fs.writeFileSync(pem, shown.stdout.slice(shown.stdout.indexOf("-----BEGIN")));
    const ok = retrace(t, ["verify", out, "--key", pem]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("4 events");
    expect(ok.stdout).toContain("signed by the trusted key");

    const bytes = fs.readFileSync(out);
    const members = await unpackTarGz(bytes);
    const notes = JSON.parse(Buffer.from(members.find((m) => m.path.endsWith("notes.json"))!.bytes).toString());
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ label: "false positive", rule: "tool.partial", seq: 2 });
    const texts = [bytes.toString("latin1"), ...members.map((m) => Buffer.from(m.bytes).toString("utf8"))];
    for (const text of texts)
      for (const v of [...SECRETS, ...Object.values(PII), ...PII_DIGIT_FORMS]) expect(text.includes(v), v).toBe(false);

    const log = await db.sql.all<{ action: string; target: string; detail: string }>(
      `SELECT "action", "target", "detail" FROM "AuditEntry" WHERE "action" = 'audit.export'`,
    );
    expect(log).toHaveLength(1);
    expect(log[0].target).toBe(run);
    expect(JSON.parse(log[0].detail)).toMatchObject({ runs: [run], profile: "reviewer", events: 4 });

    const journalPath = members.find((m) => m.path.endsWith("journal.jsonl"))!.path;
    const changed = members.map((m) =>
      m.path === journalPath
        ? { ...m, bytes: Buffer.from(Buffer.from(m.bytes).toString().replace('"status":"ok"', '"status":"error"')) }
        : m,
    );
    const bad = path.join(inject("tmpDir"), `${run}-${process.pid}.bad.tar.gz`);
    fs.writeFileSync(bad, await repack(changed));
    const failed = retrace(t, ["verify", bad]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(`${journalPath} (seq 2)`);
  });
});
