import "server-only";
/** A payload search within one run, a page at a time. */
import { z } from "zod";
import type { SearchAnswer } from "../../view/api-types";
import type { Db } from "../db";
import { isRunId, queryText } from "../queries";

export const searchQuery = z.object({
  q: queryText(200).pipe(z.string().trim().min(1)),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** the page after this seq (the previous page's `next`) */
  after: z.coerce.number().int().min(-1).default(-1),
});

/**
 * Seqs after `after` of events whose stored (redacted) text contains `q`,
 * case-insensitively: a page of at most `limit` in seq order, and the cursor of the next
 * page. The key (runId, seq) orders the scan, so a page reads from its cursor on, never
 * the pages before it.
 */
export async function searchEvents(db: Db, runId: string, q: string, limit: number, after = -1): Promise<SearchAnswer> {
  if (!isRunId(runId) || q.includes("\u0000")) return { seqs: [], truncated: false, next: null };
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const like = db.sql.dialect === "postgres" ? "ILIKE" : "LIKE";
  const rows = await db.sql.all<{ seq: number }>(
    `SELECT "seq" FROM "Event" WHERE "runId" = ? AND "seq" > ? AND "body" ${like} ? ESCAPE '\\' ORDER BY "seq" LIMIT ?`,
    [runId, after, pattern, limit + 1],
  );
  const seqs = rows.slice(0, limit).map((r) => Number(r.seq));
  const truncated = rows.length > limit;
  return { seqs, truncated, next: truncated ? seqs[seqs.length - 1] : null };
}
