import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { loadConfig } from "@/lib/server/config";
import { openDb, type Db } from "@/lib/server/db";

export const DIALECTS = ["sqlite", "postgres"] as const;
export type Dialect = (typeof DIALECTS)[number];
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";

export interface TestDb {
  url: string;
  dialect: Dialect;
  /**
   * The redaction key file: beside the SQLite file (the default), and for PostgreSQL one
   * per test database in the run's temporary folder (RETRACE_REDACTION_KEY_FILE), not the
   * default under ./data.
   */
  keyFile: string;
  /** Opens a new connection set (another "server instance") on the same database. */
  open(env?: Record<string, string>): Db;
  cleanup(): Promise<void>;
}

/** A fresh, migrated database of the dialect, copied from the run's template. */
export async function freshDb(dialect: Dialect): Promise<TestDb> {
  const id = randomBytes(4).toString("hex");
  let url: string;
  let keyFile: string;
  const keyEnv: Record<string, string> = {};
  if (dialect === "sqlite") {
    const file = path.join(inject("tmpDir"), `t-${id}.db`);
    fs.copyFileSync(inject("sqliteTemplate"), file);
    url = `file:${file}`;
    keyFile = path.join(inject("tmpDir"), `t-${id}.redaction-key`);
  } else {
    const name = `retrace_t${id}_${process.ppid}`;
    const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject("pgTemplate")}"`);
    await admin.end();
    url = `${PG_BASE}/${name}`;
    keyFile = path.join(inject("tmpDir"), `${name}.redaction-key`);
    keyEnv.RETRACE_REDACTION_KEY_FILE = keyFile;
  }
  const opened: Db[] = [];
  return {
    url,
    dialect,
    keyFile,
    open(env = {}) {
      const db = openDb(loadConfig({ ...keyEnv, ...env, DATABASE_URL: url }));
      opened.push(db);
      return db;
    },
    async cleanup() {
      for (const db of opened) await db.close().catch(() => undefined);
      if (dialect === "postgres") {
        const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${url.split("/").pop()}" WITH (FORCE)`);
        await admin.end();
      }
    },
  };
}

/** Bytes of a string as a byte source. */
export async function* bytesOf(text: string | Uint8Array, chunk = 64 * 1024): AsyncGenerator<Uint8Array> {
  const b = typeof text === "string" ? new TextEncoder().encode(text) : text;
  for (let i = 0; i < b.length; i += chunk) yield b.subarray(i, i + chunk);
}
