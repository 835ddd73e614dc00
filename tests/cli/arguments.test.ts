/**
 * Every command's arguments go through util.parseArgs in strict mode: a typo is refused
 * before the command does anything, --help still prints the command's usage, and `--`
 * lets a file whose name starts with a dash through.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const JOURNAL = "tests/fixtures/examples/00-refund-clean.jsonl";
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Each command with a typo'd `--json`, given what it would otherwise run on. */
const TYPOS: Array<[string, string[]]> = [
  ["import", ["import", "--jsno", JOURNAL]],
  ["migrate", ["migrate", "--jsno"]],
  ["analyze", ["analyze", "--jsno", JOURNAL]],
  ["replay", ["replay", "--jsno", JOURNAL]],
  ["replay (an option's typo)", ["replay", "--json", JOURNAL, "--fokr", "17", "--override", '{"approval":"denied"}']],
];

describe("CLI arguments", () => {
  it.each(TYPOS)("%s: an unknown option is refused with exit 2, named on stderr, and nothing runs or is stored", (_name, args) => {
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "cli-args-"));
    const db = path.join(dir, "never.db");
    const r = cli(args, { DATABASE_URL: `file:${db}` });
    const typo = args.find((a) => a.startsWith("--fo") || a === "--jsno");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`retrace ${args[0]}: Unknown option '${typo}'`);
    expect(r.stderr).toContain(`Usage: npm run -s retrace -- ${args[0]}`);
    expect(r.stdout).toBe("");
    expect(fs.existsSync(db)).toBe(false);
  });

  it.each(["import", "migrate", "analyze", "replay"])("%s --help (and -h) prints the command's usage, exit 0", (name) => {
    for (const flag of ["--help", "-h"]) {
      const r = cli([name, flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: npm run -s retrace -- ${name}\\b`));
    }
  });

  it("refuses a value given to a flag and a missing value, naming the option", () => {
    const flagValue = cli(["analyze", "--json=yes", JOURNAL]);
    expect(flagValue.status).toBe(2);
    expect(flagValue.stderr).toMatch(/'--json' does not take an argument/);
    const missing = cli(["replay", JOURNAL, "--run"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/'--run <value>' argument missing/);
  });

  it("reads a name after -- as a file, not an option", () => {
    const r = cli(["analyze", "--", "--jsno"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("analyze: --jsno: no such file");
  });
});

describe("a database nobody migrated", () => {
  it.each(["sqlite", "postgres"] as const)("on %s: the import says to run migrate first, with exit 2", async (dialect) => {
    let url: string;
    let drop = async () => {};
    if (dialect === "sqlite") {
      const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "cli-unmigrated-"));
      url = `file:${path.join(dir, "empty.db")}`;
    } else {
      const name = `retrace_unmigrated_${process.pid}`;
      const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      url = `${PG_BASE}/${name}`;
      drop = async () => {
        await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
        await admin.end();
      };
    }
    try {
      const r = cli(["import", JOURNAL], {
        DATABASE_URL: url,
        RETRACE_REDACTION_KEY_FILE: path.join(inject("tmpDir"), `unmigrated-${dialect}.key`),
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^retrace: the database has no Retrace tables yet \(.+\): run `retrace migrate`/);
    } finally {
      await drop();
    }
  });
});

describe("migrating an SQLite file another process has open", () => {
  it("says so and what to do, exit 2; once the file is free the same command migrates it", async () => {
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "cli-busy-"));
    const file = path.join(dir, "busy.db");
    const env = { DATABASE_URL: `file:${file}` };
    expect(cli(["migrate"], env).status).toBe(0);
    // another process's connection, as a running server keeps one
    const holder = spawn(process.execPath, [
      "-e",
      `const D = require(${JSON.stringify(path.join(ROOT, "node_modules/better-sqlite3"))}); const db = new D(${JSON.stringify(file)}); db.prepare("SELECT COUNT(*) FROM Run").get(); console.log("open"); setInterval(() => {}, 1000);`,
    ]);
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.once("data", () => resolve());
        holder.once("exit", (code) => reject(new Error(`the holder exited (${code})`)));
      });
      const busy = cli(["migrate"], env);
      expect(busy.status).toBe(2);
      expect(busy.stderr).toContain(`cannot migrate ${file}: another process has it open`);
      expect(busy.stderr).not.toContain("SocketTimeout");
    } finally {
      holder.kill();
    }
    await once(holder, "exit");
    expect(cli(["migrate"], env).status).toBe(0);
  }, 60_000);
});
