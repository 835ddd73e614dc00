/**
 * An audit bundle carries every privileged-action log entry about its runs up to the
 * export (issue 32: `audit-log.json` was empty though the log held a live action on the
 * run from before the export). On both databases: a reconcile on a run (target `run#seq`)
 * is in the run's bundle and in the bundle of the branch run it made; an entry about a run
 * whose id only starts with the same text is not; the export itself is logged after.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { unpackTarGz } from "@/lib/evidence/archive";
import { addUser } from "@/lib/server/access/accounts";
import { appendAudit, listAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { exportBundle } from "@/lib/server/evidence";
import { addExecutor } from "@/lib/server/live/executors";
import { reconcile } from "../live/through-edge";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "bundle log password 0123";

/** A refund whose payment timed out (its outcome unknown) and a run that then failed. */
function journal(run: string): string {
  const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
  const events = [
    { seq: 0, type: "run.start", data: { workflow: { name: "refund", version: "1" }, agent: { name: "refund-agent", version: "1" } } },
    {
      seq: 1,
      type: "tool.call",
      data: { call: "c1", tool: "issue_refund", args: { order: "A-1" }, effect: "write", idempotencyKey: "k1" },
    },
    { seq: 2, type: "tool.result", data: { call: "c1", status: "timeout", error: { message: "gateway timed out" } } },
    { seq: 3, type: "run.end", data: { status: "failed" } },
  ];
  return events.map((e) => JSON.stringify({ run, ts: ts(e.seq), ...e })).join("\n") + "\n";
}

interface LogRow {
  seq: number;
  action: string;
  target: string | null;
}

async function bundleLog(db: Db, run: string): Promise<LogRow[]> {
  const { bytes } = await exportBundle(db, { runs: [run], profile: "reviewer", exporter: "user:rita" });
  const members = await unpackTarGz(bytes);
  const log = members.find((m) => m.path === "audit-log.json");
  expect(log, "the bundle has audit-log.json").toBeDefined();
  return JSON.parse(Buffer.from(log!.bytes).toString("utf8")) as LogRow[];
}

const op: Principal = { kind: "user", id: "op", name: "op", memberships: { default: { role: "operator", environments: ["sandbox"] } } };

describe.each(DIALECTS)("a bundle's privileged-action log on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const run = `bundle-log-${dialect}`;
  const sibling = `${run}-2`;
  const executorKey = path.join(os.tmpdir(), `bundle-log-${dialect}-${process.pid}.executor-key`);
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({
      RETRACE_AUDIT_KEY_FILE: path.join(inject("tmpDir"), `${run}-${process.pid}.audit-key`),
      RETRACE_EXECUTOR_KEY_FILE: executorKey,
      RETRACE_EXECUTOR_HOSTS: "127.0.0.1",
    });
    for (const r of [run, sibling]) await ingestBytes(db, bytesOf(journal(r)), { mode: "upload", source: "upload" });
    await addUser(db, { name: "op", password: PASSWORD, project: "default", role: "operator", environments: ["sandbox"] });
  });
  afterAll(async () => {
    await t?.cleanup();
    fs.rmSync(executorKey, { force: true });
  });

  it("holds the live action on the run and on its branch, not one on a run whose id only starts alike", async () => {
    // nothing listens there: a reconcile by evidence sends nothing
    const executor = (
      await addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "*",
        environment: "sandbox",
        url: "http://127.0.0.1:9/",
        createdBy: "test",
      })
    ).id;
    const done = await reconcile(db, op, {
      run,
      seq: 1,
      executor,
      mode: "mark",
      outcome: "succeeded",
      externalId: "rf_1",
      evidence: "the bank's ledger shows rf_1",
      reason: "the gateway timed out after committing",
      password: PASSWORD,
    });
    // an entry about the sibling run (a refused action on its call)
    const other = await appendAudit(db, {
      actor: "user:op",
      action: "live.reexecute",
      project: "default",
      target: `${sibling}#1`,
      result: "refused",
    });

    const log = await bundleLog(db, run);
    const entry = log.find((e) => e.seq === done.auditSeq);
    expect(entry).toMatchObject({ action: "live.reconcile", target: `${run}#2` });
    expect(log.some((e) => e.seq === other.seq)).toBe(false);
    for (const e of log)
      expect(e.target === run || e.target?.startsWith(`${run}#`) || e.target?.split(",").includes(run), e.target ?? "").toBe(true);

    // the branch run's bundle holds the entry of the action that made it
    const branchLog = await bundleLog(db, done.branch);
    expect(branchLog.map((e) => e.seq)).toContain(done.auditSeq);

    // the sibling's bundle holds its own entry, not the run's reconcile
    const siblingLog = await bundleLog(db, sibling);
    expect(siblingLog.map((e) => e.seq)).toContain(other.seq);
    expect(siblingLog.map((e) => e.seq)).not.toContain(done.auditSeq);
  });

  it("an export is logged after the bundle is built: the next bundle holds it, the one it logs does not", async () => {
    const before = (await listAudit(db, { projects: ["default"] })).map((e) => e.seq);
    const first = await bundleLog(db, run);
    const exports = (await listAudit(db, { projects: ["default"] })).filter((e) => e.action === "audit.export" && !before.includes(e.seq));
    expect(exports).toHaveLength(1);
    expect(first.map((e) => e.seq)).not.toContain(exports[0].seq);
    const second = await bundleLog(db, run);
    expect(second.map((e) => e.seq)).toContain(exports[0].seq);
  });
});
