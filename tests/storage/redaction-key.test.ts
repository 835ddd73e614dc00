/**
 * The redaction key lives outside the database it protects (a copy of the database alone
 * must not let anyone confirm a guessed secret): in a file beside the SQLite file, or one
 * the environment names; every instance on one database redacts alike; a key Retrace kept
 * in the database before is moved out on first start; `redaction-key rotate` starts a new
 * one.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { Redactor, redactionKeyFromHex } from "@/lib/redact";
import { loadConfig } from "@/lib/server/config";
import type { Db } from "@/lib/server/db";
import { listEventBodies } from "@/lib/server/queries";
import { keySource } from "@/lib/server/redaction-key";
import { ingestBytes, redactorFor } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

// Built at run time so this file holds no literal secret.
const SECRET = "AKIA" + "ZXCVBNMASDFGHJKL";
const ts = "2026-11-07T11:00:01.026Z";
const journal = (run: string) =>
  [
    { run, seq: 0, ts, type: "run.start", data: { workflow: { name: "w", version: "1" } } },
    { run, seq: 1, ts, type: "note", data: { text: `uses ${SECRET}` } },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n") + "\n";

/** Every text cell of every table, as one string. */
async function dump(db: Db): Promise<string> {
  const tables =
    db.config.dialect === "sqlite"
      ? (await db.sql.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`, [])).map((r) => r.name)
      : (
          await db.sql.all<{ name: string }>(
            `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
            [],
          )
        ).map((r) => r.name);
  expect(tables).toContain("Setting");
  let out = "";
  for (const t of tables)
    out += JSON.stringify(await db.sql.all(`SELECT * FROM "${t}"`, []), (_k, v) => (typeof v === "bigint" ? String(v) : v));
  return out;
}

const placeholderIn = async (db: Db, run: string) =>
  /\[redacted:aws-access-key:[0-9a-f]{12}\]/.exec((await listEventBodies(db, run, 0, 1))[0].body)![0];

const exec = promisify(execFile);
async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await exec(process.execPath, [path.resolve("scripts/retrace.mjs"), ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe.each(DIALECTS)("the redaction key on %s", (dialect) => {
  let t: TestDb;
  afterEach(async () => t.cleanup());

  it("is a 0600 file outside the database, and a second instance redacts alike", async () => {
    t = await freshDb(dialect);
    const a = t.open();
    expect(fs.existsSync(t.keyFile)).toBe(false);
    expect((await ingestBytes(a, bytesOf(journal("k-1")), { mode: "upload", source: "upload" })).errors).toEqual([]);
    // created on first use, readable by its owner only
    expect(fs.statSync(t.keyFile).mode & 0o777).toBe(0o600);
    const key = fs.readFileSync(t.keyFile, "utf8").trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    // the placeholder is the HMAC under that key, and the key is in no table
    const stored = await placeholderIn(a, "k-1");
    expect(stored).toBe(new Redactor(redactionKeyFromHex(key)).redactString(SECRET));
    const everything = await dump(a);
    expect(everything).toContain(stored);
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(SECRET);

    // another instance (connections, caches, redactor of its own) on the same database
    const b = t.open();
    expect((await ingestBytes(b, bytesOf(journal("k-2")), { mode: "upload", source: "upload" })).errors).toEqual([]);
    expect(await placeholderIn(b, "k-2")).toBe(stored);
    expect((await redactorFor(b)).redactString(SECRET)).toBe(stored);
  });

  it("moves a key the database still holds out to the file, so stored placeholders stay valid", async () => {
    t = await freshDb(dialect);
    const legacy = "5e".repeat(32);
    const setup = t.open();
    await setup.sql.transaction((tx) => tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?)`, ["redaction-key", legacy]));
    const db = t.open();
    expect((await redactorFor(db)).redactString(SECRET)).toBe(new Redactor(redactionKeyFromHex(legacy)).redactString(SECRET));
    expect(fs.readFileSync(t.keyFile, "utf8").trim()).toBe(legacy);
    expect(fs.statSync(t.keyFile).mode & 0o777).toBe(0o600);
    expect(await dump(db)).not.toContain(legacy);
  });

  it("takes the key from RETRACE_REDACTION_KEY, and an instance with another key refuses to redact, naming both variables", async () => {
    t = await freshDb(dialect);
    const given = "7c".repeat(32);
    const a = t.open({ RETRACE_REDACTION_KEY: given });
    expect((await redactorFor(a)).redactString(SECRET)).toBe(new Redactor(redactionKeyFromHex(given)).redactString(SECRET));
    expect(fs.existsSync(t.keyFile)).toBe(false);
    expect(await dump(a)).not.toContain(given);
    const other = t.open({ RETRACE_REDACTION_KEY: "8d".repeat(32) });
    await expect(redactorFor(other)).rejects.toThrow(/RETRACE_REDACTION_KEY_FILE.*RETRACE_REDACTION_KEY/);
    const bad = t.open({ RETRACE_REDACTION_KEY: "not-hex" });
    await expect(redactorFor(bad)).rejects.toThrow(/RETRACE_REDACTION_KEY must hold 64 hex digits/);
  });

  it("is rotated by `redaction-key rotate`, which says what that means for placeholders", async () => {
    t = await freshDb(dialect);
    const a = t.open();
    await ingestBytes(a, bytesOf(journal("r-1")), { mode: "upload", source: "upload" });
    const before = await placeholderIn(a, "r-1");
    const oldKey = fs.readFileSync(t.keyFile, "utf8").trim();
    const env = { DATABASE_URL: t.url, ...(dialect === "postgres" ? { RETRACE_REDACTION_KEY_FILE: t.keyFile } : {}) };
    const r = await cli(["redaction-key", "rotate"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`New redaction key written to ${t.keyFile} (mode 0600)`);
    expect(r.stdout).toMatch(/Placeholders already stored keep their old values/);
    expect(r.stdout).toMatch(/the same secret gets a different placeholder/);
    const newKey = fs.readFileSync(t.keyFile, "utf8").trim();
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(newKey).not.toBe(oldKey);
    expect(fs.statSync(t.keyFile).mode & 0o777).toBe(0o600);

    // a new instance uses the new key; what was stored is as it was
    const b = t.open();
    await ingestBytes(b, bytesOf(journal("r-2")), { mode: "upload", source: "upload" });
    expect(await placeholderIn(b, "r-2")).toBe(new Redactor(redactionKeyFromHex(newKey)).redactString(SECRET));
    expect(await placeholderIn(b, "r-2")).not.toBe(before);
    expect(await placeholderIn(b, "r-1")).toBe(before);
    // and one still holding the old key refuses
    await expect(redactorFor(t.open({ RETRACE_REDACTION_KEY: oldKey }))).rejects.toThrow(/another redaction key/);
    expect((await cli(["redaction-key"], env)).code).toBe(2);
  });
});

describe("the default key file", () => {
  it("is beside the SQLite file, or under ./data named after the PostgreSQL database", () => {
    expect(keySource(loadConfig({ DATABASE_URL: "file:./data/retrace.db" })).file).toBe(path.resolve("data/retrace.redaction-key"));
    expect(keySource(loadConfig({ DATABASE_URL: "postgresql://u@db.internal:5432/retrace_prod" })).file).toBe(
      path.resolve("data/postgres-retrace_prod.redaction-key"),
    );
    expect(keySource(loadConfig({ DATABASE_URL: "file:/x/y.db", RETRACE_REDACTION_KEY_FILE: "/etc/retrace/key" })).file).toBe(
      "/etc/retrace/key",
    );
  });
});
