import "server-only";
/** The run state at a seq, rebuilt from the last checkpoint with the run semantics' state fold. */
import { parseJsonExact } from "../../journal/parse-line";
import type { JournalEvent } from "../../journal/types";
import { INITIAL_STATE_FOLD, stepState, UNKNOWN_HASH, type StateFold } from "../../semantics";
import { EMPTY_STATE, stateHash, type RunState } from "../../state";
import type { StateAt } from "../../view/api-types";
import type { Db } from "../db";
import { isRunId } from "../queries";

/**
 * Rebuilds the run state at `seq` from the last checkpoint at or before it, with the run
 * semantics' state fold (lib/semantics/state.ts), so `hashAtSeq` is the hash in force that
 * analysis compares an approver's state with (for a `state` event without a recorded hash,
 * the rebuilt state's hash).
 */
export async function stateAt(db: Db, rawRunId: string, seq: number): Promise<StateAt> {
  const runId = isRunId(rawRunId) ? rawRunId : ""; // names no run: the state of nothing
  const cp = await db.sql.all<{ seq: number | null }>(
    `SELECT MAX("seq") AS "seq" FROM "Event" WHERE "runId" = ? AND "type" = 'checkpoint' AND "seq" <= ?`,
    [runId, seq],
  );
  const fromCheckpoint = cp[0]?.seq === null || cp[0]?.seq === undefined ? null : Number(cp[0].seq);
  const rows = await db.sql.all<{ seq: number; body: string; redactions: number }>(
    `SELECT "seq", "body", "redactions" FROM "Event" WHERE "runId" = ? AND "type" IN ('state', 'checkpoint') AND "seq" >= ? AND "seq" <= ? ORDER BY "seq"`,
    [runId, fromCheckpoint ?? -1, seq],
  );
  let fold: StateFold = INITIAL_STATE_FOLD;
  let before: RunState = EMPTY_STATE;
  let changedAt: number | null = null;
  let recordedHash: string | null = null;
  let error: string | null = null;
  for (const r of rows) {
    const event = parseJsonExact(r.body) as JournalEvent;
    // a secret replaced at ingest: the state is not the one the recorder hashed until an
    // unredacted set or checkpoint replaces it whole
    const { next, verdict } = stepState(fold, event, Number(r.redactions) > 0);
    before = fold.state;
    fold = next;
    changedAt = Number(r.seq);
    recordedHash = verdict.recorded;
    error = verdict.error;
  }
  const rebuiltHash = stateHash(fold.state);
  return {
    before,
    after: fold.state,
    changedAt,
    fromCheckpoint,
    recordedHash,
    rebuiltHash,
    hashAtSeq: fold.hashInForce === UNKNOWN_HASH ? (recordedHash ?? rebuiltHash) : fold.hashInForce,
    error,
    redacted: fold.redacted,
  };
}
