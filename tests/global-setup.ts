/**
 * Migrates one template database per dialect (a SQLite file, a PostgreSQL database on
 * 127.0.0.1:5432) once per test run; each test file copies it (file copy / CREATE
 * DATABASE … TEMPLATE), which is far faster than migrating again.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrate } from "../lib/server/migrate";
import { buildSqliteWriter } from "../scripts/build-sqlite-writer.mjs";
import { loadConfig } from "../lib/server/config";

export const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";

export default async function setup(project: TestProject) {
  // the SQLite writer thread runs from its bundle: made from the sources under test
  await buildSqliteWriter();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-test-"));
  const sqliteTemplate = path.join(dir, "template.db");
  const pgTemplate = `retrace_tpl_${process.pid}`;
  const limits = loadConfig({}).limits;
  await Promise.all([
    migrate({ dialect: "sqlite", databaseUrl: `file:${sqliteTemplate}`, limits }, { quiet: true }),
    migrate({ dialect: "postgres", databaseUrl: `${PG_BASE}/${pgTemplate}`, limits }, { quiet: true }),
  ]);
  project.provide("sqliteTemplate", sqliteTemplate);
  project.provide("pgTemplate", pgTemplate);
  project.provide("tmpDir", dir);
  return async () => {
    const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    const dbs = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `retrace_%_${process.pid}%`,
    ]);
    for (const { datname } of dbs.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    sqliteTemplate: string;
    pgTemplate: string;
    tmpDir: string;
  }
}
