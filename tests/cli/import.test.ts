import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { inject, describe, expect, it } from "vitest";
import { freshDb } from "../helpers/db";
import { getRun } from "@/lib/server/queries";

const run = promisify(execFile);
// the launcher `npm run -s retrace` runs (npm itself only adds its own start-up)
const CLI = [path.resolve("scripts/retrace.mjs")];

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("retrace CLI", () => {
  it("lists its commands with --help", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["import", "migrate"]) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, "m"));
  });

  it("migrate creates a SQLite database with 16 KiB pages in WAL mode, and leaves an existing one's page size", async () => {
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "migrate-"));
    const fresh = path.join(dir, "fresh.db");
    const r = await cli(["migrate"], { DATABASE_URL: `file:${fresh}` });
    expect(r.code).toBe(0);
    const db = new Database(fresh, { readonly: true });
    expect(db.pragma("page_size", { simple: true })).toBe(16384);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare(`SELECT count(*) AS n FROM "Run"`).get()).toEqual({ n: 0 });
    db.close();
    // a database created elsewhere keeps its pages (changing them needs a VACUUM outside WAL)
    const old = path.join(dir, "old.db");
    const o = new Database(old);
    o.pragma("page_size = 4096");
    o.pragma("journal_mode = WAL");
    o.close();
    expect((await cli(["migrate"], { DATABASE_URL: `file:${old}` })).code).toBe(0);
    const again = new Database(old, { readonly: true });
    expect(again.pragma("page_size", { simple: true })).toBe(4096);
    again.close();
  });

  it("imports journals (plain and gzip) into the configured database", async () => {
    const t = await freshDb("sqlite");
    const dir = inject("tmpDir");
    const a = "tests/fixtures/examples/00-refund-clean.jsonl";
    const gz = path.join(dir, "booking.jsonl.gz");
    fs.writeFileSync(gz, gzipSync(fs.readFileSync("tests/fixtures/examples/01-booking-clean.jsonl")));
    const r = await cli(["import", a, gz], { DATABASE_URL: t.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/run demo-refund-4185 stored: 33 events stored/);
    const db = t.open();
    expect((await getRun(db, "demo-refund-4185"))?.eventCount).toBe(33);
    await t.cleanup();
  });

  it("prints each bad line with file and line number, and exits 1", async () => {
    const t = await freshDb("sqlite");
    const bad = path.join(inject("tmpDir"), "bad.jsonl");
    fs.writeFileSync(
      bad,
      '{"run":"r","seq":0,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"x"}}\n{"run":"r","seq":1,"ts":"nope","type":"note","data":{"text":"x"}}\n',
    );
    const r = await cli(["import", bad], { DATABASE_URL: t.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.jsonl:2: run r: ts: expected an RFC 3339 timestamp/);
    await t.cleanup();
  });

  it("detects and converts trace exports, naming the format, and exits 2 for a missing file", async () => {
    const t = await freshDb("sqlite");
    const r = await cli(
      ["import", "tests/fixtures/corpus/jaeger/kagent-helm-agent.jaeger.json", "tests/fixtures/corpus/swe-agent/pydicom-1458-gpt4.traj"],
      { DATABASE_URL: t.url },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\(Jaeger JSON export\): run jaeger-3e289017\S* stored/);
    // the run id ends with the first 8 hex of the file's SHA-256 (two configurations of one instance differ)
    const sha8 = createHash("sha256")
      .update(fs.readFileSync("tests/fixtures/corpus/swe-agent/pydicom-1458-gpt4.traj", "utf8"))
      .digest("hex")
      .slice(0, 8);
    expect(r.stdout).toContain(`(SWE-agent trajectory (.traj)): run swe-pydicom-1458-gpt4-${sha8} stored`);
    const db = t.open();
    expect((await getRun(db, `swe-pydicom-1458-gpt4-${sha8}`))?.fidelity).toBe("trace");
    expect((await cli(["import", "no/such/file.jsonl"], { DATABASE_URL: t.url })).code).toBe(2);
    await t.cleanup();
  });

  it("opens a gzip trace export, and names a file in no known format once instead of erring on every line", async () => {
    const t = await freshDb("sqlite");
    const dir = inject("tmpDir");
    const gz = path.join(dir, "kagent.tempo.json.gz");
    fs.writeFileSync(gz, gzipSync(fs.readFileSync("tests/fixtures/corpus/otel-genai/kagent-helm-agent.tempo-otlp.json")));
    const ok = await cli(["import", gz], { DATABASE_URL: t.url });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/\(Grafana Tempo export \(OTLP JSON, batches\)\): run otel-\S+ stored/);
    const csv = path.join(dir, "table.csv");
    fs.writeFileSync(csv, "a,b,c\n1,2,3\n4,5,6\n");
    const bad = await cli(["import", csv], { DATABASE_URL: t.url });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toEqual([expect.stringMatching(/table\.csv: the file's format was not recognised/)]);
    await t.cleanup();
  });
});
