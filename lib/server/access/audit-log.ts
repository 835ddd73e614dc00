import "server-only";
/**
 * The privileged-action log: append-only and hash-chained. Each entry's hash is the
 * SHA-256 of the canonical JSON of its fields and the previous entry's hash, so editing,
 * removing or reordering any row breaks every hash after it; `verify` names the first.
 */
import { entryHash, GENESIS, type AuditEntry } from "../../access/audit-entry";
import { canonicalJson } from "../../canonical";
import type { Db } from "../db";
import { redactorFor } from "../service";

export { entryHash, GENESIS, type AuditEntry };

/** The PostgreSQL advisory lock that puts appends in one line (any fixed number; this one is Retrace's). */
const AUDIT_LOCK = 7_262_722_001;
/** "seq" is a 32-bit integer on PostgreSQL: a larger bound is an error there, not "no bound". */
const MAX_SEQ = 2_147_483_647;

export interface AuditInput {
  actor: string;
  action: string;
  project?: string | null;
  target?: string | null;
  reason?: string | null;
  result: "ok" | "refused" | "failed";
  detail?: Record<string, unknown>;
}

/** Appends one entry (in line behind concurrent appends; retried if a seq still collides). Text is redacted like stored events. */
export async function appendAudit(db: Db, input: AuditInput): Promise<AuditEntry> {
  const redactor = await redactorFor(db);
  const red = (s: string | null | undefined) => (s === null || s === undefined ? null : redactor.redactString(s));
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.sql.transaction(async (tx) => {
        // PostgreSQL runs transactions side by side: without the lock every racer reads the
        // same last entry and all but one collide on its seq (20 parallel appends failed).
        // SQLite's one writer already runs them one after another.
        if (db.sql.dialect === "postgres") await tx.all(`SELECT pg_advisory_xact_lock(${AUDIT_LOCK})`);
        const last = await tx.all<{ seq: number; hash: string }>(`SELECT "seq", "hash" FROM "AuditEntry" ORDER BY "seq" DESC LIMIT 1`);
        const base = {
          seq: last.length > 0 ? Number(last[0].seq) + 1 : 1,
          ts: new Date().toISOString(),
          actor: red(input.actor) ?? "",
          action: input.action,
          project: input.project ?? null,
          target: red(input.target),
          reason: red(input.reason),
          result: input.result,
          // as an object, keys included (a secret-named field, an AWS secret key beside its id)
          detail: redactor.redactString(canonicalJson(redactor.redact(input.detail ?? {}).value)),
          prevHash: last.length > 0 ? last[0].hash : GENESIS,
        };
        const entry: AuditEntry = { ...base, hash: entryHash(base) };
        await tx.run(
          `INSERT INTO "AuditEntry" ("seq", "ts", "actor", "action", "project", "target", "reason", "result", "detail", "prevHash", "hash") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            entry.seq,
            entry.ts,
            entry.actor,
            entry.action,
            entry.project,
            entry.target,
            entry.reason,
            entry.result,
            entry.detail,
            entry.prevHash,
            entry.hash,
          ],
        );
        return entry;
      });
    } catch (e) {
      if (attempt >= 5 || !/unique|duplicate|constraint/i.test(String(e))) throw e;
    }
  }
}

/**
 * Entries newest first, `limit` at most (500), older than seq `before`; `projects` limits
 * them to those projects (filtered in SQL, so a page is full however sparse they are).
 */
export async function listAudit(
  db: Db,
  opts: { projects: "all" | readonly string[]; before?: number; limit?: number },
): Promise<AuditEntry[]> {
  const limit = Math.max(1, Math.min(opts.limit ?? 100, 500));
  if (opts.projects !== "all" && opts.projects.length === 0) return [];
  // "seq" is a 32-bit integer on PostgreSQL: no bound at all rather than a huge one
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  if (opts.before !== undefined) {
    conditions.push(`"seq" < ?`);
    params.push(Math.min(opts.before, MAX_SEQ));
  }
  if (opts.projects !== "all") {
    conditions.push(`"project" IN (${opts.projects.map(() => "?").join(", ")})`);
    params.push(...opts.projects);
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
  const rows = await db.sql.all<AuditEntry>(`SELECT * FROM "AuditEntry"${where} ORDER BY "seq" DESC LIMIT ?`, [...params, limit]);
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

type VerifyResult = { ok: true; entries: number } | { ok: false; entries: number; brokenAt: number; reason: string };

/** Walks the whole chain in seq order. */
export async function verifyAudit(db: Db): Promise<VerifyResult> {
  let prev = GENESIS;
  let expectedSeq = 1;
  let n = 0;
  const page = 1000;
  for (let after = 0; ;) {
    const rows = await db.sql.all<AuditEntry>(`SELECT * FROM "AuditEntry" WHERE "seq" > ? ORDER BY "seq" LIMIT ?`, [after, page]);
    for (const raw of rows) {
      const r = { ...raw, seq: Number(raw.seq) };
      if (r.seq !== expectedSeq)
        return { ok: false, entries: n, brokenAt: expectedSeq, reason: `entry ${expectedSeq} is missing (next is ${r.seq})` };
      if (r.prevHash !== prev)
        return { ok: false, entries: n, brokenAt: r.seq, reason: `entry ${r.seq} does not follow entry ${r.seq - 1} (prevHash differs)` };
      const { hash, ...rest } = r;
      if (entryHash(rest) !== hash)
        return {
          ok: false,
          entries: n,
          brokenAt: r.seq,
          reason: `entry ${r.seq} was changed after it was written (its hash does not match its fields)`,
        };
      prev = hash;
      expectedSeq++;
      n++;
      after = r.seq;
    }
    if (rows.length < page) return { ok: true, entries: n };
  }
}
