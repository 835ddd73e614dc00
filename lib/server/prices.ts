import "server-only";
/**
 * A project's model prices (lib/view/prices.ts), one Setting row per project: no column
 * to migrate, and a project without prices simply has no row.
 */
import { readPriceTable, usageFromEvents, type CallUsage, type PriceTable } from "../view/prices";
import { AccessError } from "./access/accounts";
import type { Db } from "./db";
import { isRunId } from "./queries";
import { redactorFor } from "./service";

const keyOf = (project: string) => `model-prices:${project}`;

export async function modelPricesOf(db: Db, project: string): Promise<PriceTable> {
  const rows = await db.sql.all<{ value: string }>(`SELECT "value" FROM "Setting" WHERE "key" = ?`, [keyOf(project)]);
  return readPriceTable(rows[0]?.value);
}

/** Replaces a project's prices; an empty table removes them. */
export async function setModelPrices(db: Db, project: string, table: PriceTable): Promise<void> {
  const exists = await db.sql.all<{ id: string }>(`SELECT "id" FROM "Project" WHERE "id" = ?`, [project]);
  if (exists.length === 0) throw new AccessError(`project "${project}" not found`, 404);
  // model names are typed: stored redacted (keys too), as the events they are matched with are
  const stored = (await redactorFor(db)).redact(table).value;
  await db.sql.transaction(async (tx) => {
    if (Object.keys(table).length === 0) await tx.run(`DELETE FROM "Setting" WHERE "key" = ?`, [keyOf(project)]);
    else
      await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"`, [
        keyOf(project),
        JSON.stringify(stored),
      ]);
  });
}

/** The run's model calls' usage, read from its model.request and model.response events. */
export async function runModelUsage(db: Db, runId: string): Promise<CallUsage[]> {
  if (!isRunId(runId)) return [];
  const rows = await db.sql.all<{ seq: number; type: string; body: string }>(
    `SELECT "seq", "type", "body" FROM "Event" WHERE "runId" = ? AND "type" IN ('model.request', 'model.response') ORDER BY "seq"`,
    [runId],
  );
  const events = rows.map((r) => {
    let data: Record<string, unknown> = {};
    try {
      const e = JSON.parse(r.body) as { data?: unknown };
      if (typeof e.data === "object" && e.data !== null) data = e.data as Record<string, unknown>;
    } catch {
      // a body that does not parse has no usage to count
    }
    return { seq: Number(r.seq), type: r.type, data };
  });
  return usageFromEvents(events);
}
