import "server-only";
/**
 * When a run a live append left unsettled is settled (lib/server/ingest/settle.ts does the
 * work): once appends to it pause (SETTLE_IDLE_MS without another one, at most
 * SETTLE_LATEST_MS after the first), and before every read that serves what settling
 * changes: the stored server chain (events, inspect, the run's detail), the findings of a
 * bundle export, a retention purge. A read of an unsettled run pays for it once.
 */
import { RUN_ID_PATTERN } from "../journal/schema";
import type { Db } from "./db";
import { publishRunChanges } from "./changes";
import { redactorFor } from "./redactors";
import type { SqlTx } from "./sql";

/** Quiet time after a live append before the runs it left unsettled are settled. */
export const SETTLE_IDLE_MS = 1000;
/** Settled this long after the first append that waits, however busy the run stays. */
export const SETTLE_LATEST_MS = 10_000;

/**
 * Settles a run when a live append left it unsettled; nothing (one indexed read) otherwise.
 * `settleFrom`: the column as the caller just read it (no read then); true when it settled.
 */
export async function settleRun(db: Db, runId: string, settleFrom?: number | string | null): Promise<boolean> {
  if (!RUN_ID_PATTERN.test(runId) || settleFrom === null) return false;
  if (settleFrom === undefined) {
    const rows = await db.sql.all<{ settleFrom: number | string | null }>(`SELECT "settleFrom" FROM "Run" WHERE "id" = ?`, [runId]);
    if (rows.length === 0 || rows[0].settleFrom === null) return false;
  }
  const redactor = await redactorFor(db);
  // loaded on first use: reads of settled runs never load ingest
  const { settleRunInTx } = await import("./ingest");
  const changed = await db.sql.transaction((tx) => settleRunInTx(tx, db.sql.dialect, redactor, runId));
  if (changed) await publishRunChanges(db, [runId]).catch(() => undefined);
  return changed;
}

/**
 * What settles a run inside a transaction that is about to read or change it (a retention
 * purge). Made before that transaction begins: loading the redactor reads the database.
 */
export async function settlerFor(db: Db): Promise<(tx: SqlTx, runId: string) => Promise<boolean>> {
  const { settleRunInTx } = await import("./ingest");
  const redactor = await redactorFor(db);
  return (tx, runId) => settleRunInTx(tx, db.sql.dialect, redactor, runId);
}

interface Waiting {
  runs: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
  since: number;
}
const waiting = new WeakMap<Db, Waiting>();

/** After a live append to these runs: settle them once appends pause (a timer that keeps no process alive). */
export function settleWhenIdle(db: Db, runIds: readonly string[]): void {
  if (runIds.length === 0) return;
  let w = waiting.get(db);
  if (!w) waiting.set(db, (w = { runs: new Set(), timer: null, since: Date.now() }));
  if (w.runs.size === 0) w.since = Date.now();
  for (const id of runIds) w.runs.add(id);
  if (w.timer !== null) clearTimeout(w.timer);
  const wait = Math.max(0, Math.min(SETTLE_IDLE_MS, w.since + SETTLE_LATEST_MS - Date.now()));
  const entry = w;
  entry.timer = setTimeout(() => {
    entry.timer = null;
    const runs = [...entry.runs];
    entry.runs.clear();
    void settleRuns(db, runs);
  }, wait);
  entry.timer.unref();
}

async function settleRuns(db: Db, runIds: string[]): Promise<void> {
  for (const id of runIds) {
    // a failure (the database closed, a lock) loses nothing: the next read or append settles it
    await settleRun(db, id).catch(() => undefined);
  }
}
