import "server-only";
/**
 * Applies Prisma migrations for the configured database (`prisma migrate deploy` with the
 * provider's own config and migrations folder). Creates the SQLite file's folder, and the
 * PostgreSQL database itself when the server allows it.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { pgConnectionFromUrl, sqliteFileFromUrl } from "../../prisma/urls";
import type { RetraceConfig } from "./config";

async function ensurePostgresDatabase(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const cfg = pgConnectionFromUrl(url);
  const admin = new pg.Client({ ...cfg, database: "postgres" });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [cfg.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${String(cfg.database).replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * SQLite's page size is fixed when the file's first page is written: a database Retrace
 * creates gets 16 KiB pages, WAL mode, before Prisma adds its tables. Event rows average
 * several hundred bytes; at the default 4 KiB a large commit writes four times the WAL
 * frames (two writes each) and the checkpoint copies them all again, so both the commit
 * and the closing checkpoint are shorter at 16 KiB. An existing database keeps the page size it was created with.
 */
const SQLITE_PAGE_SIZE = 16384;

function createSqliteFile(file: string): void {
  if (fs.existsSync(file) && fs.statSync(file).size > 0) return;
  const db = new Database(file);
  try {
    db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    db.pragma("journal_mode = WAL");
  } finally {
    db.close();
  }
}

export async function migrate(config: RetraceConfig, opts: { quiet?: boolean } = {}): Promise<void> {
  if (config.dialect === "sqlite") createSqliteFile(sqliteFileFromUrl(config.databaseUrl));
  else await ensurePostgresDatabase(config.databaseUrl);
  const prismaBin = path.resolve("node_modules/.bin/prisma");
  const configFile = path.resolve(`prisma/${config.dialect}/prisma.config.ts`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(prismaBin, ["migrate", "deploy", "--config", configFile], {
      env: { ...process.env, DATABASE_URL: config.databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: opts.quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve();
      // Prisma's schema engine needs the SQLite file to itself; another connection makes it
      // time out, and its adapter reports that as an error kind the engine cannot name.
      if (config.dialect === "sqlite" && /SocketTimeout|database is locked|SQLITE_BUSY/.test(output))
        return reject(new Error(sqliteBusyMessage(sqliteFileFromUrl(config.databaseUrl))));
      reject(new Error(`prisma migrate deploy failed (exit ${code})\n${output}`));
    });
  });
}

function sqliteBusyMessage(file: string): string {
  return `cannot migrate ${file}: another process has it open (a running Retrace server or import?). A migration needs the file to itself: stop that process, then migrate again.`;
}
