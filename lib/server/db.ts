import "server-only";
/**
 * The one place that opens databases: a Prisma client (schema-owned, ordinary queries)
 * and a raw executor (bulk ingest, event windows) over the same database, chosen by
 * DATABASE_URL. Kept on globalThis so Next's module reloading does not open a new pool
 * per request in development.
 */
import type { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client";
import { loadConfig, type RetraceConfig } from "./config";
import { lazySqlExec, openSqlite, type SqlExec } from "./sql";
import { stopRunChanges } from "./changes";
import { useNativeSha256 } from "./native-sha256";

useNativeSha256();

// Both generated clients have the same model API; the SQLite one's type stands for both.
export type Prisma = SqlitePrismaClient;

export interface Db {
  config: RetraceConfig;
  /** The Prisma client, loaded and created on first use (ingest never needs it). */
  prisma(): Promise<Prisma>;
  sql: SqlExec;
  close(): Promise<void>;
}

export function openDb(config: RetraceConfig = loadConfig()): Db {
  let prisma: Promise<Prisma> | null = null;
  const sql =
    config.dialect === "sqlite"
      ? openSqlite(config.databaseUrl, { walIdleMs: config.walIdleMs })
      : lazySqlExec("postgres", async () => (await import("./sql-postgres")).openPostgres(config.databaseUrl));
  const db: Db = {
    config,
    prisma: () => (prisma ??= import("./prisma-client").then((m) => m.createPrisma(config))),
    sql,
    async close() {
      await stopRunChanges(db);
      if (prisma) await (await prisma).$disconnect();
      await sql.close();
    },
  };
  return db;
}

const globalForDb = globalThis as unknown as { __retraceDb?: Db };

/** The process-wide database for the configured DATABASE_URL. */
export function getDb(): Db {
  if (!globalForDb.__retraceDb) {
    globalForDb.__retraceDb = openDb();
  }
  return globalForDb.__retraceDb;
}
