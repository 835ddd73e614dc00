/**
 * Ingest keeps the Run row in its own hand-written column list (RUN_COLUMNS, one UPDATE of
 * every column): it must be the Prisma model's, in both generated clients and in both
 * migrated databases, or a column added to prisma/models.prisma would silently never be
 * written by ingest (or one removed would break every upload).
 */
import { afterAll, describe, expect, it } from "vitest";
import { Prisma as PostgresPrisma } from "@/lib/server/generated/postgres/browser";
import { Prisma as SqlitePrisma } from "@/lib/server/generated/sqlite/browser";
import { RUN_COLUMNS } from "@/lib/server/ingest/run-row";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("the Run row ingest writes", () => {
  const dbs: TestDb[] = [];
  afterAll(async () => {
    for (const t of dbs) await t.cleanup();
  });

  it("has exactly the fields of Prisma's Run model (both generated clients)", () => {
    expect(sorted(RUN_COLUMNS)).toEqual(sorted(Object.values(SqlitePrisma.RunScalarFieldEnum)));
    expect(sorted(RUN_COLUMNS)).toEqual(sorted(Object.values(PostgresPrisma.RunScalarFieldEnum)));
  });

  for (const dialect of DIALECTS) {
    it(`has exactly the columns of the migrated ${dialect} Run table`, async () => {
      const t = await freshDb(dialect);
      dbs.push(t);
      const db = t.open();
      const columns =
        dialect === "sqlite"
          ? (await db.sql.all<{ name: string }>(`SELECT "name" FROM pragma_table_info('Run')`)).map((c) => c.name)
          : (
              await db.sql.all<{ column_name: string }>(
                `SELECT "column_name" FROM information_schema.columns WHERE "table_schema" = current_schema() AND "table_name" = 'Run'`,
              )
            ).map((c) => c.column_name);
      expect(sorted(RUN_COLUMNS)).toEqual(sorted(columns));
    });
  }
});
