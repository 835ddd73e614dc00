import "server-only";
/**
 * Branch runs live actions make (docs/live-actions.md): the run's stored events, the
 * LiveBranch rows (which branch, of what, with what outcome), and the reconciles made on
 * branches that the call ledger reads.
 */
import type { JournalEvent } from "../../journal/types";
import { judgedEvents, type BranchReconcile } from "../../semantics";
import { attachedPolicyOf } from "../attached-policy";
import type { Db } from "../db";

/**
 * Every stored (redacted) event of a run, in seq order, as the run is judged: its run.start
 * carries the attached policy when one was attached (lib/server/attached-policy.ts), so the
 * call ledger reads the contracts that judged the run.
 */
export async function runEvents(db: Db, run: string): Promise<JournalEvent[]> {
  const [rows, attached] = await Promise.all([
    db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [run]),
    attachedPolicyOf(db, run),
  ]);
  return [
    ...judgedEvents(
      rows.map((r) => JSON.parse(r.body) as JournalEvent),
      attached,
    ),
  ];
}

export interface BranchRow {
  runId: string;
  originalRun: string;
  forkSeq: number;
  kind: string;
  call: string;
  outcome: string;
  externalId: string | null;
  environment: string;
  actor: string;
  auditSeq: number;
  createdMs: number;
}

/** Branch runs live actions made of `run` (those still stored), oldest first. */
export async function branchesOf(db: Db, run: string): Promise<BranchRow[]> {
  const rows = await db.sql.all<BranchRow>(
    `SELECT b.* FROM "LiveBranch" b JOIN "Run" r ON r."id" = b."runId" WHERE b."originalRun" = ? ORDER BY b."createdMs", b."runId"`,
    [run],
  );
  return rows.map((r) => ({ ...r, forkSeq: Number(r.forkSeq), auditSeq: Number(r.auditSeq), createdMs: Number(r.createdMs) }));
}

/** Which of these runs are branches, and of what (the runs list shows them under their original). */
export async function branchOriginsOf(db: Db, runs: readonly string[]): Promise<Record<string, { original: string; kind: string }>> {
  if (runs.length === 0) return {};
  const rows = await db.sql.all<{ runId: string; originalRun: string; kind: string }>(
    `SELECT "runId", "originalRun", "kind" FROM "LiveBranch" WHERE "runId" IN (${runs.map(() => "?").join(", ")})`,
    [...runs],
  );
  return Object.fromEntries(rows.map((r) => [r.runId, { original: r.originalRun, kind: r.kind }]));
}

export async function branchReconciles(db: Db, run: string): Promise<BranchReconcile[]> {
  return (await branchesOf(db, run))
    .filter((b) => b.kind === "reconcile")
    .map((b) => ({ run: b.runId, call: b.call, outcome: b.outcome as "succeeded" | "failed", externalId: b.externalId }));
}

export async function recordBranch(db: Db, b: Omit<BranchRow, "createdMs">): Promise<void> {
  await db.sql.transaction((tx) =>
    tx.run(
      `INSERT INTO "LiveBranch" ("runId", "originalRun", "forkSeq", "kind", "call", "outcome", "externalId", "environment", "actor", "auditSeq", "createdMs") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [b.runId, b.originalRun, b.forkSeq, b.kind, b.call, b.outcome, b.externalId, b.environment, b.actor, b.auditSeq, Date.now()],
    ),
  );
}

/** For the run page: the original this run branches from, and the branch runs made of it. */
export async function branchInfo(db: Db, run: string) {
  const own = await db.sql.all<{ originalRun: string; forkSeq: number; kind: string }>(
    `SELECT "originalRun", "forkSeq", "kind" FROM "LiveBranch" WHERE "runId" = ?`,
    [run],
  );
  const children = (await branchesOf(db, run)).map((b) => ({
    run: b.runId,
    kind: b.kind,
    forkSeq: b.forkSeq,
    outcome: b.outcome,
    externalId: b.externalId,
    actor: b.actor,
    environment: b.environment,
  }));
  return { of: own[0] ? { run: own[0].originalRun, seq: Number(own[0].forkSeq), kind: own[0].kind } : null, children };
}
