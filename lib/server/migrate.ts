import "server-only";
/**
 * Applies Prisma migrations for the configured database (`prisma migrate deploy` with the
 * provider's own config and migrations folder). Creates the SQLite file's folder, and the
 * PostgreSQL database itself when the server allows it.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { pgConfigFromUrl, sqliteFileFromUrl } from "../../prisma/adapters";
import type { RetraceConfig } from "./config";

export async function ensurePostgresDatabase(url: string): Promise<void> {
  const { Client: _c, ...cfg } = pgConfigFromUrl(url);
  void _c;
  const admin = new pg.Client({ ...cfg, database: "postgres" });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [cfg.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${String(cfg.database).replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

export async function migrate(config: RetraceConfig, opts: { quiet?: boolean } = {}): Promise<void> {
  if (config.dialect === "sqlite") sqliteFileFromUrl(config.databaseUrl);
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
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`prisma migrate deploy failed (exit ${code})\n${output}`))));
  });
}
