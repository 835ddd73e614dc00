import "server-only";
/**
 * The Prisma client for a database, loaded by db.ts on the first query that needs it:
 * loading Prisma's runtime and the driver adapters was a visible part of every CLI import,
 * although ingest never uses Prisma (it writes through sql.ts).
 */
import { sqliteAdapterFactory, postgresAdapterFactory } from "../../prisma/adapters";
import { PrismaClient as SqlitePrismaClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresPrismaClient } from "./generated/postgres/client";
import type { RetraceConfig } from "./config";

export function createPrisma(config: RetraceConfig): SqlitePrismaClient {
  // Both generated clients have the same model API; the SQLite one's type stands for both.
  return config.dialect === "sqlite"
    ? new SqlitePrismaClient({ adapter: sqliteAdapterFactory(config.databaseUrl) })
    : (new PostgresPrismaClient({ adapter: postgresAdapterFactory(config.databaseUrl) }) as unknown as SqlitePrismaClient);
}
