import "server-only";
/**
 * The one place that opens databases: a Prisma client (schema-owned, ordinary queries)
 * and a raw executor (bulk ingest, event windows) over the same database, chosen by
 * DATABASE_URL. Kept on globalThis so Next's module reloading does not open a new pool
 * per request in development.
 */
import { hash } from "node:crypto";
import { useSha256Implementation } from "../canonical";
import { sqliteAdapterFactory, postgresAdapterFactory } from "../../prisma/adapters";
import { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client";
import { loadConfig, type RetraceConfig } from "./config";
import { openPostgres, openSqlite, type SqlExec } from "./sql";
import { stopRunChanges } from "./changes";
import { compileAllValidators } from "../journal/fast-validate";

useSha256Implementation((text) => hash("sha256", text, "hex"));

// Both generated clients have the same model API; the SQLite one's type stands for both.
export type Prisma = SqlitePrismaClient;

export interface Db {
  config: RetraceConfig;
  prisma: Prisma;
  sql: SqlExec;
  close(): Promise<void>;
}

export function openDb(config: RetraceConfig = loadConfig()): Db {
  const prisma =
    config.dialect === "sqlite"
      ? new SqlitePrismaClient({ adapter: sqliteAdapterFactory(config.databaseUrl) })
      : (new PostgresPrismaClient({ adapter: postgresAdapterFactory(config.databaseUrl) }) as unknown as Prisma);
  const sql = config.dialect === "sqlite" ? openSqlite(config.databaseUrl) : openPostgres(config.databaseUrl);
  const db: Db = {
    config,
    prisma,
    sql,
    async close() {
      await stopRunChanges(db);
      await prisma.$disconnect();
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
    // A server's first request (often a health check) opens the database; ready the
    // ingest validators right after it, off that request, so the first upload is not slower.
    setTimeout(compileAllValidators, 0).unref();
  }
  return globalForDb.__retraceDb;
}
