/**
 * The SQLite database, like the key files beside it, is readable by its owner alone: the
 * file, its -wal and -shm are 0600 and a data folder Retrace makes is 0700, whatever the
 * umask; files an earlier version left 0644 are taken to 0600 when opened.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/server/config";
import { openDb } from "@/lib/server/db";
import { migrate } from "@/lib/server/migrate";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf } from "../helpers/db";

const modeOf = (f: string) => fs.statSync(f).mode & 0o777;
const journal = '{"v":1,"run":"modes-1","seq":0,"type":"run.start","ts":"2026-12-07T10:00:00Z","data":{"name":"modes"}}\n';

describe("SQLite files are the owner's alone", () => {
  let dir: string;
  let umask: number;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-modes-"));
    // the usual umask, which left group and others able to read the database
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("after migrate and a write: the folder 0700, the database, -wal and -shm 0600", async () => {
    const file = path.join(dir, "data", "retrace.db");
    const config = loadConfig({ DATABASE_URL: `file:${file}`, RETRACE_REDACTION_KEY_FILE: path.join(dir, "data", "k") });
    await migrate(config, { quiet: true });
    expect(modeOf(path.dirname(file)).toString(8)).toBe("700");
    expect(modeOf(file).toString(8)).toBe("600");
    const db = openDb(config);
    try {
      const r = await ingestBytes(db, bytesOf(journal), { mode: "upload", source: "upload" });
      expect(r.runs.map((x) => x.run)).toEqual(["modes-1"]);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, modeOf(f).toString(8)]).toEqual([f, "600"]);
    } finally {
      await db.close();
    }
  });

  it("a database an earlier version made 0644 is 0600 once opened", async () => {
    const file = path.join(dir, "old.db");
    const config = loadConfig({ DATABASE_URL: `file:${file}`, RETRACE_REDACTION_KEY_FILE: path.join(dir, "k2") });
    await migrate(config, { quiet: true });
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(f)) fs.chmodSync(f, 0o644);
    const db = openDb(config);
    try {
      await ingestBytes(db, bytesOf(journal), { mode: "upload", source: "upload" });
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, modeOf(f).toString(8)]).toEqual([f, "600"]);
    } finally {
      await db.close();
    }
  });
});
