/**
 * `retrace log verify` as an operator runs it: privileged actions made through the real CLI
 * (user add, project add, key add) leave a chain that verifies; after one stored row is
 * edited in the database the command fails and names that entry.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const ROOT = path.resolve(__dirname, "../..");

function retrace(url: string, args: string[], input = "") {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: url },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.each(DIALECTS)("retrace log verify on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("passes on the chain the CLI wrote, then fails naming the entry edited in the database", async () => {
    expect(retrace(t.url, ["user", "add", "root", "--role", "admin"], "a long enough password\n")).toMatchObject({ status: 0 });
    expect(retrace(t.url, ["project", "add", "team-b"])).toMatchObject({ status: 0 });
    expect(retrace(t.url, ["key", "add", "agent", "--scope", "ingest"])).toMatchObject({ status: 0 });
    expect(retrace(t.url, ["user", "grant", "root", "--role", "viewer", "--project", "team-b"])).toMatchObject({ status: 0 });

    const good = retrace(t.url, ["log", "verify"]);
    expect(good.status).toBe(0);
    expect(good.stdout).toContain("4 entries, chain intact");

    const rows = await db.sql.all<{ seq: number; action: string }>(`SELECT "seq", "action" FROM "AuditEntry" ORDER BY "seq"`);
    expect(rows.map((r) => [Number(r.seq), r.action])).toEqual([
      [1, "user.add"],
      [2, "project.add"],
      [3, "key.add"],
      [4, "role.set"],
    ]);
    // someone with database access rewrites who made the key
    await db.sql.transaction((tx) => tx.run(`UPDATE "AuditEntry" SET "actor" = 'user:nobody' WHERE "seq" = 3`));

    const bad = retrace(t.url, ["log", "verify"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("broken at entry 3");
    expect(bad.stderr).toMatch(/entry 3 was changed/);
    expect(bad.stdout).not.toContain("chain intact");
  });
});
