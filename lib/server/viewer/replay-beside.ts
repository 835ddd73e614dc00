import "server-only";
/**
 * A replay of the agent (`retrace replay -- CMD`, streamed to this server) beside the
 * recorded run it replayed: what the replay page shows above the replay, with the
 * gateway's first divergence (the branch's run.end) marked and selected.
 */
import type { JournalEvent } from "../../journal/types";
import { sideBySideReplay, type ReplayBesideView, type ReplayDivergence } from "../../live/side-by-side";
import type { Db } from "../db";
import { runProjectOf } from "../queries";

/** Rows shown before the first divergence, and in all. */
const BEFORE = 3;
const ROWS = 300;

export type ReplayBeside = ReplayBesideView;

async function eventsFrom(db: Db, run: string, from: number): Promise<JournalEvent[]> {
  const rows = await db.sql.all<{ body: string }>(
    `SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" >= ? ORDER BY "seq" LIMIT ${ROWS}`,
    [run, from],
  );
  return rows.map((r) => JSON.parse(r.body) as JournalEvent);
}

async function boundary(db: Db, run: string, type: "run.start" | "run.end"): Promise<JournalEvent | null> {
  const order = type === "run.start" ? "ASC" : "DESC";
  const rows = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq" ${order} LIMIT 1`, [run]);
  const e = rows[0] ? (JSON.parse(rows[0].body) as JournalEvent) : null;
  return e && e.type === type ? e : null;
}

function divergenceOf(end: JournalEvent | null): ReplayDivergence | null {
  const output = end?.data.output;
  if (!output || typeof output !== "object" || Array.isArray(output)) return null;
  const d = (output as Record<string, unknown>).divergence;
  if (!d || typeof d !== "object" || Array.isArray(d)) return null;
  const v = d as Record<string, unknown>;
  if (typeof v.seq !== "number" || !Number.isSafeInteger(v.seq) || v.seq < 0 || typeof v.kind !== "string") return null;
  return { seq: v.seq, kind: v.kind, path: typeof v.path === "string" ? v.path : "", recorded: v.recorded, replayed: v.replayed };
}

/**
 * The replay `branch` beside the run its run.start names in `replayOf`, from a little
 * before the first divergence. Null for a run that is no replay of the agent, or whose
 * recording is gone or in another project than `project`.
 */
export async function replayBeside(db: Db, branch: string, project: string): Promise<ReplayBeside | null> {
  const start = await boundary(db, branch, "run.start");
  const of = start?.data.replayOf;
  const original = of && typeof of === "object" && !Array.isArray(of) ? (of as Record<string, unknown>).run : undefined;
  if (typeof original !== "string" || (await runProjectOf(db, original)) !== project) return null;
  const end = await boundary(db, branch, "run.end");
  const divergence = divergenceOf(end);
  const from = divergence ? Math.max(0, divergence.seq - BEFORE) : 0;
  const [o, b] = await Promise.all([eventsFrom(db, original, from), eventsFrom(db, branch, from)]);
  const view = sideBySideReplay(o, b, divergence);
  return {
    original,
    branch,
    mode: typeof start?.data.mode === "string" ? start.data.mode : "recorded",
    divergence,
    ended: end !== null,
    from,
    rows: view.rows.slice(0, ROWS),
    firstDivergence: view.firstDivergence,
    truncated: o.length === ROWS || b.length === ROWS,
  };
}
