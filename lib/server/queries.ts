import "server-only";
/**
 * Read queries for the API and pages. Runs come through Prisma (the list never reads
 * payloads: every column it needs is on the Run row); event windows use the raw driver.
 */
import { z } from "zod";
import { PROJECT_ID } from "../access/roles";
import { DATE_FILTER_PATTERN, RUN_ID_PATTERN } from "../journal/schema";
import type { Db } from "./db";
import { normaliseRunRow, tagsOf, type RunRow } from "./ingest/run-row";
import { settleRun } from "./settle";
import type { SqlParam } from "./sql";
import { timesRecordedIn } from "../journal/summary";
import { compareFindings, topFinding } from "../semantics";
import { rulesMatching } from "../analyze";
import { bodiesOf, runsWithContent, type ContentHit } from "./content-search";
import { contentSnippet } from "./content-snippet";
import type { ChainStatus, ContentMatch, FindingItem, RunDetail, RunFidelity, RunListItem, RunStatus } from "../view/api-types";

// The answer shapes live in lib/view/api-types.ts (pure), shared with the browser code.
type RunSummaryDto = RunListItem;
type RunDetailDto = RunDetail;

/**
 * Query text: a NUL byte is refused (PostgreSQL text cannot hold one, and SQLite's LIKE
 * stops at it, which made a filter holding one match every run).
 */
export const queryText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes("\u0000"), "must not contain a NUL character");
const dateFilter = z
  .string()
  .max(40)
  .refine((s) => DATE_FILTER_PATTERN.test(s), "must be a date that exists, such as 2026-11-07 or 2026-11-07T11:00:00Z");

/** A run id as the format defines it (1–128 of A-Z a-z 0-9 . _ : -); anything else names no run. */
export function isRunId(id: string): boolean {
  return RUN_ID_PATTERN.test(id);
}

const SORTS = ["-started", "started", "-events", "events", "-errors", "-findings", "-updated"] as const;
export const runListQuery = z.object({
  status: queryText(40).optional(),
  workflow: queryText(200).optional(),
  environment: queryText(200).optional(),
  tag: queryText(200).optional(),
  q: queryText(200).optional(),
  from: dateFilter.optional(),
  to: dateFilter.optional(),
  live: z.enum(["true", "false"]).optional(),
  /** runs with a finding of this rule */
  rule: queryText(100).optional(),
  /** runs with a finding of this severity */
  severity: z.enum(["error", "warning"]).optional(),
  /** "1": runs with at least one finding */
  findings: z.enum(["1"]).optional(),
  sort: z.enum(SORTS).default("-started"),
  cursor: queryText(500).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  project: z.string().regex(PROJECT_ID, "project must be a project id").optional(),
});
type RunListQuery = z.infer<typeof runListQuery>;

type RunRecord = Awaited<ReturnType<Awaited<ReturnType<Db["prisma"]>>["run"]["findFirstOrThrow"]>>;

/** `s` as a LIKE pattern that matches it literally (the escape character is backslash). */
function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function toSummary(
  r: RunRecord,
  { errorFindings, topRule }: FindingsOfRun,
  header: Record<string, unknown> = JSON.parse(r.header) as Record<string, unknown>,
): RunSummaryDto {
  const timesRecorded = timesRecordedIn(header);
  return {
    id: r.id,
    project: r.projectId,
    workflow: r.workflow,
    workflowVersion: r.workflowVersion,
    agent: r.agent,
    agentVersion: r.agentVersion,
    environment: r.environment,
    initiator: r.initiator,
    // the Run columns hold only what ingest writes from these enums (the API tests parse every answer)
    status: r.status as RunStatus,
    live: r.live,
    startedAt: !timesRecorded ? null : (r.startedAt ?? (r.startedMs !== null ? new Date(r.startedMs).toISOString() : null)),
    endedAt: timesRecorded ? r.endedAt : null,
    durationMs: timesRecorded && r.startedMs !== null ? (r.endedMs ?? r.lastEventMs ?? r.startedMs) - r.startedMs : null,
    timesRecorded,
    eventCount: r.eventCount,
    errorCount: r.errorCount,
    findingCount: r.findingCount,
    errorFindings,
    topRule,
    fidelity: r.fidelity as RunFidelity,
    chainStatus: r.chainStatus as ChainStatus,
    chainBrokenAt: r.chainBrokenAt,
    tags: tagsOf(r.tags),
    source: r.source,
    updatedAt: r.updatedAt,
    forkOf: forkOfHeader(header.forkOf),
    resumeOf: resumeOfHeader(header.resumeOf),
    replayOf: replayOfHeader(header.replayOf),
  };
}

function replayOfHeader(v: unknown): { run: string } | null {
  if (!v || typeof v !== "object") return null;
  const f = v as { run?: unknown };
  return typeof f.run === "string" ? { run: f.run } : null;
}

function resumeOfHeader(v: unknown): { run: string; checkpoint: string | null } | null {
  if (!v || typeof v !== "object") return null;
  const f = v as { run?: unknown; checkpoint?: unknown };
  return typeof f.run === "string" ? { run: f.run, checkpoint: typeof f.checkpoint === "string" ? f.checkpoint : null } : null;
}

function forkOfHeader(v: unknown): { run: string; seq: number } | null {
  if (!v || typeof v !== "object") return null;
  const f = v as { run?: unknown; seq?: unknown };
  return typeof f.run === "string" && typeof f.seq === "number" ? { run: f.run, seq: f.seq } : null;
}

/** A stored finding as the API sends it (the severity column holds the analyzer's). */
function findingItem(f: { rule: string; seq: number; severity: string; message: string }): FindingItem {
  return { rule: f.rule, seq: f.seq, severity: f.severity as FindingItem["severity"], message: f.message };
}

const SORT_FIELD = {
  started: "startedMs",
  events: "eventCount",
  errors: "errorCount",
  findings: "findingCount",
  updated: "updatedAt",
} as const;

function encodeCursor(v: number, id: string) {
  return Buffer.from(JSON.stringify([v, id])).toString("base64url");
}
function decodeCursor(c: string): [number, string] | null {
  try {
    const v = JSON.parse(Buffer.from(c, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "string") return [v[0], v[1]];
  } catch {
    /* fall through */
  }
  return null;
}

export class BadQuery extends Error {}

function parseDate(s: string | undefined, name: string): number | undefined {
  if (!s) return undefined;
  const ms = DATE_FILTER_PATTERN.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(ms)) throw new BadQuery(`${name} must be a date that exists, such as 2026-11-07 or 2026-11-07T11:00:00Z`);
  return ms;
}

/**
 * The runs list, in SQL (not Prisma's `contains`: on SQLite its LIKE has no escape
 * character, so `%` and `_` in a search acted as wildcards). `q` matches the id, the
 * workflow or the tool and model names, case-insensitively and literally, and the events'
 * stored text through the databases' trigram indexes (content-search.ts: three characters
 * or more; each such run's answer names its matching event, `match`); `tag` matches
 * one whole tag exactly, spaces included. Order and cursor are the ones Prisma gave
 * (NULLs sort as each database sorts them).
 */
export async function listRuns(
  db: Db,
  q: RunListQuery,
  readable: "all" | readonly string[],
): Promise<{ runs: RunSummaryDto[]; nextCursor: string | null }> {
  const desc = q.sort.startsWith("-");
  const field = SORT_FIELD[q.sort.replace(/^-/, "") as keyof typeof SORT_FIELD];
  const pg = db.sql.dialect === "postgres";
  const where: string[] = [`"eventCount" > 0`];
  const params: SqlParam[] = [];
  const cond = (sql: string, ...values: SqlParam[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (readable !== "all") {
    if (readable.length === 0) return { runs: [], nextCursor: null };
    cond(`"projectId" IN (${readable.map(() => "?").join(", ")})`, ...readable);
  }
  if (q.project) cond(`"projectId" = ?`, q.project);
  if (q.status) cond(`"status" = ?`, q.status);
  if (q.workflow) cond(`"workflow" = ?`, q.workflow);
  if (q.environment) cond(`"environment" = ?`, q.environment);
  if (q.live) cond(`"live" = ?`, q.live === "true");
  // findings are their own rows (indexed by run): an EXISTS per filter, no column to keep in step
  if (q.findings) cond(`"findingCount" > 0`);
  if (q.rule) cond(`EXISTS (SELECT 1 FROM "Finding" f WHERE f."runId" = "Run"."id" AND f."rule" = ?)`, q.rule);
  if (q.severity) cond(`EXISTS (SELECT 1 FROM "Finding" f WHERE f."runId" = "Run"."id" AND f."severity" = ?)`, q.severity);
  if (q.tag) {
    // tagsColumn's JSON array: the tag's JSON string right after "[" or ","; in the older
    // space-separated form, the tag between spaces
    const json = JSON.stringify(q.tag);
    const at = pg ? (col: string) => `strpos(${col}, ?)` : (col: string) => `instr(${col}, ?)`;
    cond(
      `(("tags" LIKE '[%' AND (${at(`"tags"`)} = 1 OR ${at(`"tags"`)} > 0)) OR ("tags" LIKE ' %' AND ${at(`"tags"`)} > 0))`,
      `[${json}`,
      `,${json}`,
      ` ${q.tag} `,
    );
  }
  const from = parseDate(q.from, "from");
  const to = parseDate(q.to, "to");
  if (from !== undefined) cond(`"startedMs" >= ?`, from);
  if (to !== undefined) cond(`"startedMs" <= ?`, to);
  // runs whose events' stored text holds q (content-search.ts: the databases' trigram indexes)
  const content = q.q?.trim() ? await runsWithContent(db, q.q, { readable, project: q.project }) : new Map<string, ContentHit>();
  if (q.q?.trim()) {
    const like = pg ? "ILIKE" : "LIKE";
    const pattern = `%${likeLiteral(q.q.trim())}%`;
    // also the findings: their rule ids and messages, and the rules whose plain text says it
    // ("twice" finds effect.retry-after-unknown)
    const rules = rulesMatching(q.q);
    const byTitle = rules.length > 0 ? ` OR f."rule" IN (${rules.map(() => "?").join(", ")})` : "";
    const byContent = content.size > 0 ? ` OR "id" IN (${[...content.keys()].map(() => "?").join(", ")})` : "";
    cond(
      `("id" ${like} ? ESCAPE '\\' OR "workflow" ${like} ? ESCAPE '\\' OR "searchText" ${like} ? ESCAPE '\\'` +
        ` OR ("findingCount" > 0 AND EXISTS (SELECT 1 FROM "Finding" f WHERE f."runId" = "Run"."id" AND (f."rule" ${like} ? ESCAPE '\\' OR f."message" ${like} ? ESCAPE '\\'${byTitle})))${byContent})`,
      pattern,
      pattern,
      pattern,
      pattern,
      pattern,
      ...rules,
      ...content.keys(),
    );
  }
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    if (!c) throw new BadQuery("cursor is not one this server issued");
    const [v, id] = c;
    const op = desc ? "<" : ">";
    cond(`("${field}" ${op} ? OR ("${field}" = ? AND "id" ${op} ?))`, v, v, id);
  }
  const dir = desc ? "DESC" : "ASC";
  const rows = (
    await db.sql.all<RunRow>(`SELECT * FROM "Run" WHERE ${where.join(" AND ")} ORDER BY "${field}" ${dir}, "id" ${dir} LIMIT ?`, [
      ...params,
      q.limit + 1,
    ])
  ).map(normaliseRunRow);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > q.limit && last ? encodeCursor(Number(last[field] ?? 0), last.id) : null;
  const found = await findingsOfRuns(
    db,
    page.filter((r) => r.findingCount > 0).map((r) => r.id),
  );
  const matches = await matchesOf(
    db,
    q.q ?? "",
    page.flatMap((r) => content.get(r.id) ?? []),
  );
  return {
    runs: page.map((r) => {
      const summary = toSummary(r, found.get(r.id) ?? NO_FINDINGS);
      const match = matches.get(r.id);
      return match ? { ...summary, match } : summary;
    }),
    nextCursor,
  };
}

/** The matched event of each run on a page: its seq, type and a snippet of its stored text. */
async function matchesOf(db: Db, q: string, hits: ContentHit[]): Promise<Map<string, ContentMatch>> {
  const out = new Map<string, ContentMatch>();
  if (hits.length === 0) return out;
  const bodies = await bodiesOf(db, hits);
  for (const h of hits) {
    const body = bodies.get(h.runId);
    if (body === undefined) continue;
    const snippet = contentSnippet(body, q);
    // the envelope's run id is in every event: a search for the id found the run by name
    if (snippet.field !== "run") out.set(h.runId, { seq: h.seq, type: h.type, ...snippet });
  }
  return out;
}

interface FindingsOfRun {
  errorFindings: number;
  topRule: string | null;
}
const NO_FINDINGS: FindingsOfRun = { errorFindings: 0, topRule: null };

/**
 * Error-severity findings per run and the rule of its top finding (lib/semantics
 * `topFinding`: the first error by seq then rule, else the first warning), for a page of
 * runs: one grouped query and one ranked query.
 */
async function findingsOfRuns(db: Db, ids: string[]): Promise<Map<string, FindingsOfRun>> {
  const out = new Map<string, FindingsOfRun>();
  if (ids.length === 0) return out;
  const marks = ids.map(() => "?").join(", ");
  // code-unit order of rule ids, as compareFindings (SQLite's default collation is binary)
  const binary = db.sql.dialect === "postgres" ? ` COLLATE "C"` : "";
  const [counts, tops] = await Promise.all([
    db.sql.all<{ runId: string; n: number | string }>(
      `SELECT "runId", COUNT(*) AS n FROM "Finding" WHERE "severity" = 'error' AND "runId" IN (${marks}) GROUP BY "runId"`,
      ids,
    ),
    db.sql.all<{ runId: string; rule: string }>(
      `SELECT "runId", "rule" FROM (SELECT "runId", "rule", ROW_NUMBER() OVER (PARTITION BY "runId" ORDER BY CASE WHEN "severity" = 'error' THEN 0 ELSE 1 END, "seq", "rule"${binary}) AS rn FROM "Finding" WHERE "runId" IN (${marks})) t WHERE rn = 1`,
      ids,
    ),
  ]);
  for (const r of tops) out.set(r.runId, { errorFindings: 0, topRule: r.rule });
  for (const r of counts) out.set(r.runId, { errorFindings: Number(r.n), topRule: out.get(r.runId)?.topRule ?? null });
  return out;
}

export async function getRun(db: Db, id: string): Promise<RunDetailDto | null> {
  if (!isRunId(id)) return null;
  // Raw SQL, not Prisma: Prisma 6's query compiler compiles every query anew on the event
  // loop (plan caching came in Prisma 7), and this is read on every run page and poll.
  let rows = await db.sql.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?`, [id]);
  if (rows.length === 0) return null;
  // its server chain, chain verdict and findings as settled (a gap a live append filled late)
  if (await settleRun(db, id, rows[0].settleFrom)) rows = await db.sql.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?`, [id]);
  if (rows.length === 0) return null;
  const r = normaliseRunRow(rows[0]);
  if (r.eventCount === 0) return null;
  const findings = await findingsOf(db, id);
  const header = JSON.parse(r.header) as Record<string, unknown>;
  return {
    ...toSummary(
      r,
      { errorFindings: findings.filter((f) => f.severity === "error").length, topRule: topFinding(findings)?.rule ?? null },
      header,
    ),
    header,
    recorderLastHash: r.recorderLastHash,
    serverLastHash: r.serverLastHash,
    nextSeq: r.nextSeq,
    maxSeq: r.maxSeq,
    findings,
    judgedBy: judgedBy(r, header),
  };
}

/** Which policy judged the run (RunDetail.judgedBy): an attached one replaces the recorded one. */
function judgedBy(r: RunRow, header: Record<string, unknown>): RunDetailDto["judgedBy"] {
  if (r.attachedPolicy !== null) {
    const policy = JSON.parse(r.attachedPolicy) as unknown;
    if (r.policyVersion !== null && r.workflow !== null)
      return { source: "workflow", workflow: r.workflow, version: r.policyVersion, policy };
    return { source: "import", policy };
  }
  return header.policy !== undefined && header.policy !== null ? { source: "recorded" } : null;
}

/** A run's findings (at one seq, when given), in the one finding order. */
export async function findingsOf(db: Db, runId: string, seq?: number): Promise<FindingItem[]> {
  const rows = await db.sql.all<{ rule: string; seq: number | string; severity: string; message: string }>(
    `SELECT "rule", "seq", "severity", "message" FROM "Finding" WHERE "runId" = ?${seq === undefined ? "" : ` AND "seq" = ?`}`,
    seq === undefined ? [runId] : [runId, seq],
  );
  // the one finding order (the database's collation need not be code-unit order)
  return rows.map((f) => findingItem({ ...f, seq: Number(f.seq) })).sort(compareFindings);
}

/** A run's eventCount, updatedAt and when its payloads were dropped (0: never), or null when there is no such run. */
export async function runVersion(db: Db, runId: string): Promise<{ eventCount: number; updatedAt: number; droppedAt: number } | null> {
  if (!isRunId(runId)) return null;
  const read = () =>
    db.sql.all<{
      eventCount: number | string;
      updatedAt: number | string;
      payloadsDroppedAt: number | string | null;
      settleFrom: number | string | null;
    }>(`SELECT "eventCount", "updatedAt", "payloadsDroppedAt", "settleFrom" FROM "Run" WHERE "id" = ?`, [runId]);
  let rows = await read();
  // the version of the run as settled (its chain verdicts are in the viewer's summary)
  if (rows.length > 0 && (await settleRun(db, runId, rows[0].settleFrom))) rows = await read();
  return rows.length > 0
    ? { eventCount: Number(rows[0].eventCount), updatedAt: Number(rows[0].updatedAt), droppedAt: Number(rows[0].payloadsDroppedAt ?? 0) }
    : null;
}

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(-1).default(-1),
  limit: z.coerce.number().int().min(1).max(5000).default(500),
});

/** Events with seq > after, in seq order; bodies are returned as stored text. */
export async function listEventBodies(db: Db, runId: string, after: number, limit: number) {
  if (!isRunId(runId)) return [];
  // the server chain's hashes as settled
  await settleRun(db, runId);
  return db.sql.all<{ seq: number; body: string; hash: string | null; recordedHash: string | null; chain: string; redactions: number }>(
    `SELECT "seq", "body", "hash", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?`,
    [runId, after, limit],
  );
}

/** The project a run belongs to, or null when there is no such run. */
export async function runProjectOf(db: Db, runId: string): Promise<string | null> {
  const rows = await db.sql.all<{ projectId: string }>(`SELECT "projectId" FROM "Run" WHERE "id" = ?`, [runId]);
  return rows.length > 0 ? rows[0].projectId : null;
}

/** Whether a run with at least one stored event exists. */
export async function runHasEvents(db: Db, runId: string): Promise<boolean> {
  if (!isRunId(runId)) return false;
  const run = await runVersion(db, runId);
  return !!run && run.eventCount > 0;
}

/** Database reachability: a trivial query that throws when the database is down. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.sql.all(`SELECT 1 AS ok`);
}
