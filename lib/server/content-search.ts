import "server-only";
/**
 * Search across runs by content: which runs hold an event whose stored (redacted) body
 * contains the query, read from the databases' own full-text indexes (migration
 * `20261216000000_event_search`): SQLite's FTS5 trigram table "EventText" (the string values
 * of each body, trigrams without positions), PostgreSQL's pg_trgm GIN index on
 * "Event"."body". Both find any substring of three or more characters, case-insensitively,
 * and the database keeps them in step with the rows (ingest on every path, a deleted run,
 * retention's rewritten bodies).
 *
 * The query is matched literally: it is written as the body holds it (a JSON string's
 * escapes: `"` as `\"`), then LIKE-escaped (`%`, `_` and `\` are characters). On SQLite
 * the index gives candidates, the events holding every trigram of the query, each trigram
 * one quoted FTS5 string (no operator, column filter, `*` or NEAR reaches FTS5), and the
 * LIKE on the body keeps the events that hold the query itself. Its cost is bounded: at
 * most `MAX_CONTENT_CANDIDATES` candidates (SQLite) and `MAX_CONTENT_HITS` matching events
 * (storage order) are read whatever the run sizes.
 */
import type { Db } from "./db";
import type { SqlParam } from "./sql";

/** Trigram indexes need three characters; a shorter query matches names only. */
export const MIN_CONTENT_QUERY = 3;
/** Matching events read from the index per search, at most. */
export const MAX_CONTENT_HITS = 10_000;
/** Candidates read from SQLite's index per search, at most (each rechecked against its body). */
export const MAX_CONTENT_CANDIDATES = 20_000;
/** Runs a content search adds to the runs list's match, at most (the first by storage order). */
export const MAX_CONTENT_RUNS = 500;

/** The first matching event of a run (the lowest seq among the events read). */
export interface ContentHit {
  runId: string;
  seq: number;
  type: string;
}

/**
 * The query as a stored body holds it: inside a JSON string (the canonical JSON of
 * lib/canonical writes strings as JSON.stringify does), or null when it is too short for
 * the index.
 */
export function contentNeedle(q: string): string | null {
  const text = q.trim();
  if ([...text].length < MIN_CONTENT_QUERY) return null;
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The FTS5 query asking for every distinct trigram of the text (SQLite's index holds the
 * body's string values unescaped, so the raw text): each one quoted string, its double
 * quotes doubled, nothing an operator. The index keeps no positions (`detail=none`), so a
 * phrase cannot be asked; the LIKE recheck restores order and adjacency.
 */
export function fts5Trigrams(text: string): string {
  const chars = [...text];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  return [...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(" AND ");
}

/** A LIKE pattern matching the needle anywhere, `\` being the escape character. */
function likeAnywhere(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Runs of the given projects ("all": every project) holding an event whose stored body
 * contains `q`, each with its first matching event among the `MAX_CONTENT_HITS` read.
 */
export async function runsWithContent(
  db: Db,
  q: string,
  scope: { readable: "all" | readonly string[]; project?: string },
): Promise<Map<string, ContentHit>> {
  const out = new Map<string, ContentHit>();
  const needle = contentNeedle(q);
  if (needle === null) return out;
  if (scope.readable !== "all" && scope.readable.length === 0) return out;
  const where: string[] = [];
  const params: SqlParam[] = [];
  if (scope.readable !== "all") {
    where.push(`r."projectId" IN (${scope.readable.map(() => "?").join(", ")})`);
    params.push(...scope.readable);
  }
  if (scope.project) {
    where.push(`r."projectId" = ?`);
    params.push(scope.project);
  }
  const scoped = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  // The inner queries bound the work (index entries, then candidate bodies) before the
  // runs are joined and filtered.
  const like = likeAnywhere(needle);
  const [sql, head]: [string, SqlParam[]] =
    db.sql.dialect === "postgres"
      ? [
          `SELECT m."runId", m."seq", m."type" FROM (SELECT "runId", "seq", "type" FROM "Event" WHERE "body" ILIKE ? ESCAPE '\\' LIMIT ?) m` +
            ` JOIN "Run" r ON r."id" = m."runId"${scoped}`,
          [like, MAX_CONTENT_HITS],
        ]
      : [
          `SELECT m."runId", m."seq", m."type" FROM (SELECT e."runId", e."seq", e."type"` +
            ` FROM (SELECT rowid AS rid FROM "EventText" WHERE "EventText" MATCH ? LIMIT ?) c` +
            ` JOIN "Event" e ON e.rowid = c.rid WHERE e."body" LIKE ? ESCAPE '\\' LIMIT ?) m` +
            ` JOIN "Run" r ON r."id" = m."runId"${scoped}`,
          [fts5Trigrams(q.trim()), MAX_CONTENT_CANDIDATES, like, MAX_CONTENT_HITS],
        ];
  const rows = await db.sql.all<{ runId: string; seq: number | string; type: string }>(sql, [...head, ...params]);
  for (const r of rows) {
    const seq = Number(r.seq);
    const had = out.get(r.runId);
    if (had ? seq < had.seq : out.size < MAX_CONTENT_RUNS) out.set(r.runId, { runId: r.runId, seq, type: r.type });
  }
  return out;
}

/** The stored bodies of the given events (a key lookup each), by run id. */
export async function bodiesOf(db: Db, hits: readonly ContentHit[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const h of hits) {
    const rows = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [h.runId, h.seq]);
    if (rows.length > 0) out.set(h.runId, rows[0].body);
  }
  return out;
}
