import "server-only";
/**
 * A run's columnar summary for the run page (never a payload): as JSON, or packed binary
 * (lib/graph/summary-binary.ts) built from rows read in pages.
 */
import { z } from "zod";
import { encodeSummaryColumns, type SummaryColumns } from "../../graph/summary";
import { SummaryBinaryBuilder } from "../../graph/summary-binary";
import type { Db } from "../db";
import { isRunId, runVersion } from "../queries";

export const summaryQuery = z.object({
  after: z.coerce.number().int().min(-1).default(-1),
  /** `binary`: the packed columns of lib/graph/summary-binary.ts, which the run page reads */
  format: z.enum(["json", "binary"]).default("json"),
});

async function runExists(db: Db, runId: string): Promise<boolean> {
  if (!isRunId(runId)) return false;
  const r = await runVersion(db, runId);
  return !!r && r.eventCount > 0;
}

const SUMMARY_COLUMNS = [
  "seq",
  "tsMs",
  "type",
  "step",
  "parent",
  "call",
  "name",
  "status",
  "latencyMs",
  "tokens",
  "chain",
  "redactions",
] as const;

/**
 * Every event's columns after `after`, in seq order, as the JSON text of a SummaryDto
 * (lib/graph/summary.ts); null when the run does not exist. The database builds each
 * column as one JSON array (json_group_array / json_agg), about twice as fast for
 * 100,000 events as reading 100,000 row objects; they are then dictionary-encoded, which
 * makes the answer a third smaller and quicker to compress and to parse.
 */
export async function getRunSummaryText(db: Db, runId: string, after: number): Promise<string | null> {
  if (!isRunId(runId)) return null;
  const pg = db.sql.dialect === "postgres";
  const agg = (c: string) =>
    pg ? `COALESCE(json_agg("${c}" ORDER BY "seq"), '[]'::json)::text AS "${c}"` : `json_group_array("${c}") AS "${c}"`;
  // SQLite aggregates in the order of the ordered subquery; PostgreSQL is told the order
  const from = pg
    ? `FROM "Event" WHERE "runId" = ? AND "seq" > ?`
    : `FROM (SELECT * FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq")`;
  const rows = await db.sql.all<Record<(typeof SUMMARY_COLUMNS)[number], string>>(`SELECT ${SUMMARY_COLUMNS.map(agg).join(", ")} ${from}`, [
    runId,
    after,
  ]);
  const r = rows[0];
  const cols = Object.fromEntries(SUMMARY_COLUMNS.map((c) => [c, JSON.parse(r?.[c] ?? "[]") as unknown[]])) as unknown as SummaryColumns;
  if (cols.seq.length === 0 && !(await runExists(db, runId))) return null;
  // PostgreSQL hands Float columns to JSON as they are; ms are whole numbers on the wire
  cols.tsMs = cols.tsMs.map((t) => Math.round(Number(t)));
  return JSON.stringify(encodeSummaryColumns(runId, cols));
}

/**
 * The same columns in the binary form (lib/graph/summary-binary.ts), which the run page
 * reads. On SQLite the rows are read as arrays straight into the packed columns (no JSON
 * built or parsed, no object per row); on PostgreSQL a page of rows at a time.
 */
export async function getRunSummaryBinary(db: Db, runId: string, after: number, expected = 4096): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!isRunId(runId)) return null;
  const each = db.sql.eachRow;
  if (db.sql.dialect === "sqlite" && each) {
    const b = new SummaryBinaryBuilder(runId, expected);
    each.call(
      db.sql,
      `SELECT ${SUMMARY_COLUMNS.map((c) => `"${c}"`).join(", ")} FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq"`,
      [runId, after],
      (r) =>
        b.push(
          Number(r[0]),
          Number(r[1]),
          r[2] as string,
          r[3] as string | null,
          r[4] === null ? null : Number(r[4]),
          r[5] as string | null,
          r[6] as string | null,
          r[7] as string | null,
          r[8] === null ? null : Number(r[8]),
          r[9] === null ? null : Number(r[9]),
          r[10] as string,
          Number(r[11]),
        ),
    );
    if (b.n === 0 && !(await runExists(db, runId))) return null;
    return b.finish();
  }
  // PostgreSQL: pages of rows by seq range, so no more than a page of row objects is held.
  // Ranges, not LIMIT: right after an import the planner's statistics are stale and a
  // `seq > ? ORDER BY seq LIMIT` page sorted every later row (a million rows: 31 s).
  const b = new SummaryBinaryBuilder(runId, expected);
  const cols = SUMMARY_COLUMNS.map((c) => `"${c}"`).join(", ");
  for (let lo = after; ;) {
    const rows = await db.sql.all<SummaryRowOf>(
      `SELECT ${cols} FROM "Event" WHERE "runId" = ? AND "seq" > ? AND "seq" <= ? ORDER BY "seq"`,
      [runId, lo, lo + PG_SUMMARY_PAGE],
    );
    for (const r of rows)
      b.push(
        Number(r.seq),
        Math.round(Number(r.tsMs)),
        r.type,
        r.step,
        r.parent === null ? null : Number(r.parent),
        r.call,
        r.name,
        r.status,
        r.latencyMs === null ? null : Number(r.latencyMs),
        r.tokens === null ? null : Number(r.tokens),
        r.chain,
        Number(r.redactions),
      );
    if (rows.length > 0) {
      lo += PG_SUMMARY_PAGE;
      continue;
    }
    // an empty range: skip the gap to the next stored seq, if any
    const next = await db.sql.all<{ seq: number | string | null }>(
      `SELECT MIN("seq") AS "seq" FROM "Event" WHERE "runId" = ? AND "seq" > ?`,
      [runId, lo],
    );
    if (next[0]?.seq === null || next[0]?.seq === undefined) break;
    lo = Number(next[0].seq) - 1;
  }
  if (b.n === 0 && !(await runExists(db, runId))) return null;
  return b.finish();
}

const PG_SUMMARY_PAGE = 20_000;
interface SummaryRowOf {
  seq: number | string;
  tsMs: number | string;
  type: string;
  step: string | null;
  parent: number | string | null;
  call: string | null;
  name: string | null;
  status: string | null;
  latencyMs: number | string | null;
  tokens: number | string | null;
  chain: string;
  redactions: number | string;
}
