import "server-only";
/**
 * Where a deployment's key files live by default: beside the SQLite file (data/retrace.db →
 * data/retrace.<ext>), or data/postgres-<database>.<ext> for PostgreSQL. One rule for the
 * redaction, audit-signing and executor keys, so they always sit together with the data.
 */
import path from "node:path";
import { sqliteFileFromUrl } from "../../prisma/urls";
import type { RetraceConfig } from "./config";

export function keyFileBesideData(config: RetraceConfig, ext: string): string {
  if (config.dialect === "sqlite") {
    const db = sqliteFileFromUrl(config.databaseUrl);
    return path.join(path.dirname(db), `${path.basename(db, path.extname(db))}.${ext}`);
  }
  const name = decodeURIComponent(new URL(config.databaseUrl).pathname.replace(/^\//, "")) || "postgres";
  return path.resolve("data", `postgres-${name.replace(/[^A-Za-z0-9._-]/g, "_")}.${ext}`);
}
