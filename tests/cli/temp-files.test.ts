/**
 * Temporary files of a trace import hold only redacted data, in a private folder, and a
 * folder left by an import killed with SIGKILL is swept at the next start. The real CLI is
 * spawned (`node scripts/retrace.mjs import FILE`) with its own TMPDIR and SQLite file.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { inject, describe, expect, it, onTestFinished } from "vitest";
import { Redactor } from "@/lib/redact";
import { makeTempDir, privateTempRoot, sweepTempFiles } from "@/lib/server/temp-files";

const CLI = path.resolve("scripts/retrace.mjs");
const SECRETS = {
  aws: "AKIA" + "PLANTEDQ7F2LMX9A",
  password: "hunter2-planted-pw",
  url: "planted-url-password",
  bearer: "plantedBearerToken0123456789abcdefXYZ",
};

/** An OTLP JSON export of `traces` traces, every span carrying the planted secrets. */
function otlpExport(traces: number): string {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
  const attr = (key: string, value: string) => `{"key":"${key}","value":{"stringValue":"${value}"}}`;
  const spans: string[] = [];
  for (let t = 0; t < traces; t++) {
    for (let s = 0; s < 4; s++) {
      const start = 1762513201026000000n + BigInt(t * 10 + s) * 1000000n;
      spans.push(
        `{"traceId":"${hex(t + 1, 32)}","spanId":"${hex(t * 4 + s + 1, 16)}",${s > 0 ? `"parentSpanId":"${hex(t * 4 + 1, 16)}",` : ""}"name":"tool call ${s}","startTimeUnixNano":"${start}","endTimeUnixNano":"${start + 500000n}","attributes":[` +
          [
            attr("note", `key ${SECRETS.aws} in a page`),
            attr("password", SECRETS.password),
            attr("db", `postgres://svc:${SECRETS.url}@db.internal/app`),
            attr("http.request.header.authorization", `Bearer ${SECRETS.bearer}`),
            attr("filler", "x".repeat(200)),
          ].join(",") +
          `]}`,
      );
    }
  }
  return `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${spans.join(",")}]}]}]}`;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("temporary files of a trace import", () => {
  it("hold no secret after kill -9 mid-spill, and the next start sweeps them", { timeout: 180_000 }, async () => {
    const work = fs.mkdtempSync(path.join(inject("tmpDir"), "cli-temp-"));
    const tmp = path.join(work, "tmp");
    fs.mkdirSync(tmp);
    const dbFile = path.join(work, "t.db");
    fs.copyFileSync(inject("sqliteTemplate"), dbFile);
    const file = path.join(work, "big.otlp.json");
    fs.writeFileSync(file, otlpExport(30_000));
    const env = { ...process.env, TMPDIR: tmp, DATABASE_URL: `file:${dbFile}` };

    // an export from a version that spilled unredacted spans, left long ago
    const legacy = path.join(tmp, "retrace-spans-AbC123");
    fs.mkdirSync(legacy, { mode: 0o700 });
    fs.writeFileSync(path.join(legacy, "spans.ndjson"), `{"attributes":{"password":"${SECRETS.password}"}}\n`);
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(legacy, "spans.ndjson"), old, old);
    fs.utimesSync(legacy, old, old);

    const child = spawn(process.execPath, [CLI, "import", file], { env, stdio: "ignore" });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    let spill: string | null = null;
    for (let i = 0; i < 6000 && spill === null; i++) {
      const hit = fs.existsSync(tmp) ? filesUnder(tmp).find((f) => f.endsWith("spans.ndjson") && !f.startsWith(legacy)) : undefined;
      if (hit && fs.statSync(hit).size > 256 * 1024) spill = hit;
      else await sleep(10);
    }
    expect(spill, "the import spilled spans").not.toBeNull();
    child.kill("SIGKILL");
    await exited;

    // the killed import's folder is still there, private, and holds redacted spans only
    const spillDir = path.dirname(spill!);
    expect(fs.existsSync(spill!)).toBe(true);
    const text = fs.readFileSync(spill!, "utf8");
    expect(text).toContain("[redacted:aws-access-key:");
    for (const f of filesUnder(tmp).filter((f) => !f.startsWith(legacy))) {
      const content = fs.readFileSync(f, "utf8");
      for (const secret of Object.values(SECRETS)) expect(content, `${f} holds ${secret}`).not.toContain(secret);
    }

    expect(fs.statSync(path.dirname(spillDir)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(spillDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(spill!).mode & 0o777).toBe(0o600);

    // the next start of an import sweeps what the killed one left (and the legacy folder)
    const small = path.join(work, "small.jsonl");
    fs.writeFileSync(small, `{"run":"after-kill","seq":0,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"x"}}\n`);
    await promisify(execFile)(process.execPath, [CLI, "import", small], { env });
    expect(fs.existsSync(spillDir)).toBe(false);
    expect(fs.existsSync(legacy)).toBe(false);
    expect(filesUnder(tmp)).toEqual([]);
  });

  it("sweeps only folders whose process is gone", () => {
    // a TMPDIR of its own: the machine's is shared with other processes
    const oldTmp = process.env.TMPDIR;
    process.env.TMPDIR = fs.mkdtempSync(path.join(inject("tmpDir"), "sweep-"));
    onTestFinished(() => {
      if (oldTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = oldTmp;
    });
    const mine = makeTempDir("spans");
    const dead = fs.mkdtempSync(path.join(privateTempRoot(), "spans-999999999-"));
    fs.writeFileSync(path.join(dead, "spans.ndjson"), "{}\n");
    expect(sweepTempFiles()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(mine)).toBe(true);
    fs.rmSync(mine, { recursive: true, force: true });
  });

  it("redacts idempotently: spans redacted in the spill are stored as if redacted once", () => {
    const r = new Redactor(new Uint8Array(32).fill(5));
    const once = r.redact({ password: "pw", u: `https://svc:${SECRETS.url}@h/x`, k: SECRETS.aws });
    const twice = r.redact(once.value);
    expect(once.count).toBe(3);
    expect(twice.count).toBe(0);
    expect(twice.value).toEqual(once.value);
  });
});
