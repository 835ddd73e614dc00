import "server-only";
/**
 * Retention and legal hold. A project may keep runs for a number of days
 * (Project.retentionDays, null: forever) and their payloads for fewer
 * (Project.payloadDays, null: as long as the run). `purge` works in two stages on the runs
 * the server has not changed for longer than those (Run.updatedAt, the server's clock: a
 * journal's own times are the recorder's word), except those under legal hold: past the
 * payload days it drops a run's payloads (every event's content, the OTLP spans kept for
 * re-derivation, the analyzer's snapshot) and keeps its row, summary, findings, notes and
 * every event's seq, type, names, times and hash columns; past the retention days it
 * removes the run with every row that holds it. Both in one transaction, each stage one
 * privileged-action log entry with the ids and counts (never a payload).
 */
import Database from "better-sqlite3";
import { sqliteFileFromUrl } from "../../prisma/urls";
import { canonicalJson } from "../canonical";
import { ProfileRedactor, Pseudonymizer } from "../evidence/profiles";
import { parseJsonExact } from "../journal/exact-json";
import { AccessError } from "./access/accounts";
import { appendAudit } from "./access/audit-log";
import type { Db } from "./db";
import { isRunId } from "./queries";
import { settlerFor } from "./settle";
import type { SqlTx } from "./sql";

const DAY_MS = 86_400_000;
/** Longest retention an admin may set (100 years); anything longer is "forever". */
export const MAX_RETENTION_DAYS = 36_500;

interface PurgedRun {
  id: string;
  project: string;
  /** when the server last changed the run (ms) */
  updatedMs: number;
  events: number;
  findings: number;
  notes: number;
  spans: number;
}

/** A run whose payloads the first stage drops (or, dry, would). */
interface DroppedRun {
  id: string;
  project: string;
  updatedMs: number;
  /** events whose contents are replaced by their lengths */
  events: number;
  /** OTLP spans removed */
  spans: number;
}

interface PurgeResult {
  dryRun: boolean;
  /** the runs whose payloads were dropped (or, dry, would be) */
  dropped: DroppedRun[];
  /** the projects whose payload policy was applied, with their days */
  payloadPolicies: { project: string; days: number }[];
  /** the payload stage's privileged-action log entry (null: dry, or nothing to say) */
  dropAuditSeq: number | null;
  /** the runs removed (or, dry, that would be) */
  runs: PurgedRun[];
  /** runs past their retention or payload days kept whole by a legal hold */
  held: string[];
  /** the projects whose policy was applied, with their days */
  policies: { project: string; days: number }[];
  /** the run-removal stage's privileged-action log entry (null for a dry run) */
  auditSeq: number | null;
  /**
   * SQLite: the write-ahead log was copied into the (zeroed) pages and emptied, so no
   * frame of it still holds the removed rows; false when a reader kept it busy (the next
   * checkpoint does it). Null on PostgreSQL and for a dry run.
   */
  walEmptied: boolean | null;
  /** PostgreSQL: the tables were vacuumed after the purge (their dead rows' space marked free). */
  vacuumed: boolean;
}

interface PurgeOptions {
  actor: string;
  project?: string;
  dryRun?: boolean;
  /** the time the purge counts from (tests give a later one instead of waiting days) */
  now?: number;
  /** log a purge that removed nothing (true; the schedule's empty rounds are not logged) */
  logEmpty?: boolean;
}

/** A project's retention in days (null: kept forever). */
async function retentionOf(db: Db, project: string): Promise<number | null> {
  const rows = await db.sql.all<{ retentionDays: number | null }>(`SELECT "retentionDays" FROM "Project" WHERE "id" = ?`, [project]);
  if (rows.length === 0) throw new AccessError(`project "${project}" not found`, 404);
  return rows[0].retentionDays === null ? null : Number(rows[0].retentionDays);
}

/** Sets a project's retention (whole days, 1 to MAX_RETENTION_DAYS; null keeps runs forever). */
export async function setRetention(db: Db, project: string, days: number | null): Promise<void> {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS))
    throw new AccessError(`retention is whole days from 1 to ${MAX_RETENTION_DAYS}, or none`);
  const payloads = await payloadRetentionOf(db, project);
  if (days !== null && payloads !== null && days <= payloads)
    throw new AccessError(
      `runs are kept more days than payloads are kept (${payloads}): give more than ${payloads} days, or drop the payload policy first`,
    );
  const n = await db.sql.transaction((tx) => tx.run(`UPDATE "Project" SET "retentionDays" = ? WHERE "id" = ?`, [days, project]));
  if (n === 0) throw new AccessError(`project "${project}" not found`, 404);
}

/** Days a project keeps its runs' payloads (null: as long as the runs). */
async function payloadRetentionOf(db: Db, project: string): Promise<number | null> {
  const rows = await db.sql.all<{ payloadDays: number | null }>(`SELECT "payloadDays" FROM "Project" WHERE "id" = ?`, [project]);
  if (rows.length === 0) throw new AccessError(`project "${project}" not found`, 404);
  return rows[0].payloadDays === null ? null : Number(rows[0].payloadDays);
}

/**
 * Sets the days after which a purge drops a project's payloads, keeping each run's summary,
 * findings and hashes (whole days, fewer than the retention; null keeps them with the run).
 */
export async function setPayloadRetention(db: Db, project: string, days: number | null): Promise<void> {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS))
    throw new AccessError(`payload retention is whole days from 1 to ${MAX_RETENTION_DAYS}, or none`);
  const runs = await retentionOf(db, project);
  if (days !== null && runs !== null && days >= runs)
    throw new AccessError(`payloads are dropped before runs are removed: give fewer days than the retention (${runs})`);
  const n = await db.sql.transaction((tx) => tx.run(`UPDATE "Project" SET "payloadDays" = ? WHERE "id" = ?`, [days, project]));
  if (n === 0) throw new AccessError(`project "${project}" not found`, 404);
}

/** When retention dropped a run's payloads (ISO time), or null when it did not. */
export async function payloadsDroppedOf(db: Db, run: string): Promise<string | null> {
  if (!isRunId(run)) return null;
  const rows = await db.sql.all<{ payloadsDroppedAt: number | null }>(`SELECT "payloadsDroppedAt" FROM "Run" WHERE "id" = ?`, [run]);
  return rows.length > 0 && rows[0].payloadsDroppedAt !== null ? new Date(Number(rows[0].payloadsDroppedAt)).toISOString() : null;
}

/** Payload text becomes its length: the placeholder of a dropped payload. */
class DroppedPayload extends Pseudonymizer {
  override public(value: unknown): string {
    const text = typeof value === "string" ? value : canonicalJson(value);
    return `[dropped:${text.length}]`;
  }
}

/**
 * A stored event with its payloads dropped: what the public profile of an audit bundle
 * removes (every content, argument, result, message, error and free string) becomes
 * `[dropped:<length>]`; the envelope and the structure stay (seq, type, step, call ids,
 * tool and model names, statuses, versions, times, hashes), so graph, timeline and lists
 * still draw the run. Personal data in what stays is replaced too, under a key forgotten at once.
 */
function droppedBody(body: string): string {
  const redactor = new ProfileRedactor("public", { pseudonymizer: new DroppedPayload() });
  return canonicalJson(redactor.event(parseJsonExact(body) as Record<string, unknown>));
}

/** Whether a run is under legal hold (false for a run that does not exist). */
export async function legalHoldOf(db: Db, run: string): Promise<boolean> {
  if (!isRunId(run)) return false;
  const rows = await db.sql.all<{ legalHold: boolean | number }>(`SELECT "legalHold" FROM "Run" WHERE "id" = ?`, [run]);
  return rows.length > 0 && Boolean(Number(rows[0].legalHold));
}

/** Puts a run under legal hold or lifts it; logged either way (run.hold / run.release). */
export async function setLegalHold(db: Db, run: string, held: boolean, actor: string, reason?: string): Promise<void> {
  const rows = isRunId(run) ? await db.sql.all<{ projectId: string }>(`SELECT "projectId" FROM "Run" WHERE "id" = ?`, [run]) : [];
  if (rows.length === 0) throw new AccessError(`run "${run}" not found`, 404);
  await db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "legalHold" = ? WHERE "id" = ?`, [held, run]));
  await appendAudit(db, {
    actor,
    action: held ? "run.hold" : "run.release",
    project: rows[0].projectId,
    target: run,
    reason: reason ?? null,
    result: "ok",
    detail: { legalHold: held },
  });
}

interface Candidate {
  id: string;
  projectId: string;
  updatedAt: number;
  legalHold: boolean | number;
}

type Reader = Pick<SqlTx, "all">;

const TABLES = [
  ["events", "Event"],
  ["findings", "Finding"],
  ["notes", "Note"],
  ["spans", "TraceSpan"],
] as const;

async function countsOf(q: Reader, ids: readonly string[]): Promise<Map<string, Record<(typeof TABLES)[number][0], number>>> {
  const out = new Map(ids.map((id) => [id, { events: 0, findings: 0, notes: 0, spans: 0 }]));
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const marks = chunk.map(() => "?").join(", ");
    for (const [key, table] of TABLES) {
      const rows = await q.all<{ runId: string; n: number | string }>(
        `SELECT "runId", COUNT(*) AS "n" FROM "${table}" WHERE "runId" IN (${marks}) GROUP BY "runId"`,
        chunk,
      );
      for (const r of rows) out.get(r.runId)![key] = Number(r.n);
    }
  }
  return out;
}

/**
 * Removes the runs past their project's retention that are not held (all projects, or
 * `project`). A dry run reads the same and changes nothing (and logs nothing).
 */
export async function purge(db: Db, opts: PurgeOptions): Promise<PurgeResult> {
  const now = opts.now ?? Date.now();
  const projects = await db.sql.all<{ id: string; retentionDays: number | null; payloadDays: number | null }>(
    opts.project === undefined
      ? `SELECT "id", "retentionDays", "payloadDays" FROM "Project" WHERE "retentionDays" IS NOT NULL OR "payloadDays" IS NOT NULL ORDER BY "id"`
      : `SELECT "id", "retentionDays", "payloadDays" FROM "Project" WHERE "id" = ?`,
    opts.project === undefined ? [] : [opts.project],
  );
  if (opts.project !== undefined && projects.length === 0) throw new AccessError(`project "${opts.project}" not found`, 404);
  const policies = projects.filter((p) => p.retentionDays !== null).map((p) => ({ project: p.id, days: Number(p.retentionDays) }));
  const payloadPolicies = projects.filter((p) => p.payloadDays !== null).map((p) => ({ project: p.id, days: Number(p.payloadDays) }));

  const find = async (q: Reader, lock = false) => {
    const due: Candidate[] = [];
    for (const p of policies) {
      due.push(
        ...(await q.all<Candidate>(
          `SELECT "id", "projectId", "updatedAt", "legalHold" FROM "Run" WHERE "projectId" = ? AND "updatedAt" < ? ORDER BY "updatedAt", "id"${lock ? " FOR UPDATE" : ""}`,
          [p.project, now - p.days * DAY_MS],
        )),
      );
    }
    const held = due.filter((r) => Boolean(Number(r.legalHold))).map((r) => r.id);
    const gone = due.filter((r) => !Number(r.legalHold));
    const removed = new Set(due.map((r) => r.id));
    // past the payload days but not (yet) the retention: the payloads go, the run stays
    const stale: Candidate[] = [];
    for (const p of payloadPolicies) {
      stale.push(
        ...(
          await q.all<Candidate>(
            `SELECT "id", "projectId", "updatedAt", "legalHold" FROM "Run" WHERE "projectId" = ? AND "updatedAt" < ? AND "payloadsDroppedAt" IS NULL ORDER BY "updatedAt", "id"${lock ? " FOR UPDATE" : ""}`,
            [p.project, now - p.days * DAY_MS],
          )
        ).filter((r) => !removed.has(r.id)),
      );
    }
    for (const r of stale) if (Number(r.legalHold)) held.push(r.id);
    const drop = stale.filter((r) => !Number(r.legalHold));
    const counts = await countsOf(q, [...gone.map((r) => r.id), ...drop.map((r) => r.id)]);
    const runs: PurgedRun[] = gone.map((r) => ({ id: r.id, project: r.projectId, updatedMs: Number(r.updatedAt), ...counts.get(r.id)! }));
    const dropped: DroppedRun[] = drop.map((r) => ({
      id: r.id,
      project: r.projectId,
      updatedMs: Number(r.updatedAt),
      events: counts.get(r.id)!.events,
      spans: counts.get(r.id)!.spans,
    }));
    return { runs, held, dropped };
  };

  if (opts.dryRun)
    return {
      dryRun: true,
      ...(await find(db.sql)),
      policies,
      payloadPolicies,
      auditSeq: null,
      dropAuditSeq: null,
      walEmptied: null,
      vacuumed: false,
    };

  const settle = await settlerFor(db);
  const found = await db.sql.transaction(async (tx) => {
    // Freed SQLite pages are zeroed rather than left holding the payloads until reused.
    if (db.sql.dialect === "sqlite") await tx.run(`PRAGMA secure_delete = ON`);
    // Found again inside the transaction (rows locked on PostgreSQL, where a hold could be
    // set meanwhile; SQLite's one writer excludes that), so what is counted is what is changed.
    const f = await find(tx, db.sql.dialect === "postgres");
    const droppedAt = Date.now();
    for (const r of f.dropped) {
      // what is kept (hashes, chain verdicts, findings) as settled, while the payloads are there
      await settle(tx, r.id);
      for (let after = -1; ;) {
        const page = await tx.all<{ seq: number; body: string }>(
          `SELECT "seq", "body" FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq" LIMIT 1000`,
          [r.id, after],
        );
        for (const e of page)
          await tx.run(`UPDATE "Event" SET "body" = ? WHERE "runId" = ? AND "seq" = ?`, [droppedBody(e.body), r.id, e.seq]);
        if (page.length < 1000) break;
        after = Number(page[page.length - 1].seq);
      }
      await tx.run(`DELETE FROM "TraceSpan" WHERE "runId" = ?`, [r.id]);
      // the analyzer's snapshot holds state values; updatedAt stays, so the retention still counts from the last change
      await tx.run(`UPDATE "Run" SET "payloadsDroppedAt" = ?, "analysis" = NULL WHERE "id" = ?`, [droppedAt, r.id]);
    }
    const ids = f.runs.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const marks = chunk.map(() => "?").join(", ");
      for (const [, table] of TABLES) await tx.run(`DELETE FROM "${table}" WHERE "runId" IN (${marks})`, chunk);
      await tx.run(`DELETE FROM "Run" WHERE "id" IN (${marks})`, chunk);
    }
    // The search index (EventText, kept by triggers on Event) marks removed entries deleted;
    // merging its segments rewrites them without those entries, on the zeroed pages above.
    // PostgreSQL's trigram index is vacuumed with its table below.
    if (db.sql.dialect === "sqlite" && (f.dropped.length > 0 || f.runs.length > 0))
      await tx.run(`INSERT INTO "EventText" ("EventText") VALUES ('optimize')`);
    if (db.sql.dialect === "sqlite") await tx.run(`PRAGMA secure_delete = OFF`);
    return f;
  });

  let dropAuditSeq: number | null = null;
  if (found.dropped.length > 0 || (opts.logEmpty !== false && payloadPolicies.length > 0)) {
    const entry = await appendAudit(db, {
      actor: opts.actor,
      action: "retention.drop-payloads",
      project: opts.project ?? null,
      target: found.dropped.length > 0 ? found.dropped.map((r) => r.id).join(",") : null,
      result: "ok",
      detail: {
        policies: payloadPolicies,
        runs: found.dropped.map((r) => ({ id: r.id, project: r.project, events: r.events, spans: r.spans })),
        totals: {
          runs: found.dropped.length,
          events: found.dropped.reduce((n, r) => n + r.events, 0),
          spans: found.dropped.reduce((n, r) => n + r.spans, 0),
        },
        held: found.held,
      },
    });
    dropAuditSeq = entry.seq;
  }
  const changed = found.runs.length > 0 || found.dropped.length > 0;
  const finish = async (auditSeq: number | null): Promise<PurgeResult> => {
    const walEmptied = db.sql.dialect === "sqlite" && changed ? emptySqliteWal(db.config.databaseUrl) : null;
    // PostgreSQL: the dead row versions' space is marked free (autovacuum reclaims the rows later)
    let vacuumed = false;
    if (db.sql.dialect === "postgres" && changed) {
      await db.sql.all(`VACUUM ${TABLES.map(([, t]) => `"${t}"`).join(", ")}, "Run"`);
      vacuumed = true;
    }
    return { dryRun: false, ...found, policies, payloadPolicies, auditSeq, dropAuditSeq, walEmptied, vacuumed };
  };
  // the removal stage says so even when it removed nothing, unless only a payload policy applies or the schedule asked for quiet
  if (found.runs.length === 0 && (opts.logEmpty === false || (policies.length === 0 && payloadPolicies.length > 0))) return finish(null);
  const total = (k: keyof PurgedRun) => found.runs.reduce((n, r) => n + Number(r[k]), 0);
  const entry = await appendAudit(db, {
    actor: opts.actor,
    action: "retention.purge",
    project: opts.project ?? null,
    target: found.runs.length > 0 ? found.runs.map((r) => r.id).join(",") : null,
    result: "ok",
    detail: {
      policies,
      runs: found.runs.map((r) => ({
        id: r.id,
        project: r.project,
        events: r.events,
        findings: r.findings,
        notes: r.notes,
        spans: r.spans,
      })),
      totals: {
        runs: found.runs.length,
        events: total("events"),
        findings: total("findings"),
        notes: total("notes"),
        spans: total("spans"),
      },
      held: found.held,
    },
  });
  return finish(entry.seq);
}

/**
 * The WAL still holds the pages as they were before the purge zeroed them: a TRUNCATE
 * checkpoint copies the zeroed pages into the file and cuts the WAL to nothing. Any
 * connection may run it; one of its own keeps the writer thread's line free.
 */
function emptySqliteWal(url: string): boolean {
  const conn = new Database(sqliteFileFromUrl(url));
  try {
    conn.pragma("busy_timeout = 5000");
    const [r] = conn.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    return r !== undefined && Number(r.busy) === 0;
  } finally {
    conn.close();
  }
}

/** RETRACE_PURGE_EVERY_MINUTES: minutes between the server's own purges (default 60), `off` for none. */
export function purgeIntervalMs(env: Record<string, string | undefined> = process.env): number | null {
  const raw = (env.RETRACE_PURGE_EVERY_MINUTES ?? "").trim();
  if (raw === "") return 60 * 60_000;
  if (raw === "off") return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new Error(`RETRACE_PURGE_EVERY_MINUTES must be a number of minutes or "off", got "${raw}"`);
  return Number(raw) * 60_000;
}

/**
 * The purge on a schedule inside the server: every `everyMs`, one purge of every project
 * with a retention (logged when it removed something). Behind one PostgreSQL database each
 * instance runs its own; their purges lock the runs they remove, so none is removed twice.
 * `schedule` is setInterval unless a test gives its own; returns what stops it.
 */
export function startPurgeSchedule(
  db: Db,
  everyMs: number,
  schedule: (tick: () => Promise<void>, ms: number) => () => void = (tick, ms) => {
    const t = setInterval(() => void tick(), ms);
    t.unref();
    return () => clearInterval(t);
  },
): () => void {
  let running = false;
  return schedule(async () => {
    if (running) return; // a slow purge is not started twice over
    running = true;
    try {
      const r = await purge(db, { actor: "server:schedule", logEmpty: false });
      if (r.runs.length > 0 || r.dropped.length > 0)
        console.log(
          `retrace: scheduled purge removed ${r.runs.length} run(s) past their retention, dropped the payloads of ${r.dropped.length}`,
        );
    } catch (e) {
      console.warn(`retrace: scheduled purge failed (${e instanceof Error ? e.message : String(e)}); the next one retries`);
    } finally {
      running = false;
    }
  }, everyMs);
}
