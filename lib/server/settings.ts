import "server-only";
import { randomBytes } from "node:crypto";
import { Redactor, redactionKeyFromHex } from "../redact";
import type { SqlExec } from "./sql";

const REDACTION_KEY = "redaction-key";

/**
 * The per-deployment redaction key: generated on first start and kept in the database
 * with the data (never in the repo or the environment), so every instance behind one
 * database produces the same placeholder for the same secret.
 */
export async function loadRedactor(sql: SqlExec): Promise<Redactor> {
  const candidate = randomBytes(32).toString("hex");
  const value = await sql.transaction(async (tx) => {
    await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING`, [REDACTION_KEY, candidate]);
    const rows = await tx.all<{ value: string }>(`SELECT "value" FROM "Setting" WHERE "key" = ?`, [REDACTION_KEY]);
    return rows[0].value;
  });
  return new Redactor(redactionKeyFromHex(value));
}
