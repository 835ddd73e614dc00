import "server-only";
/** One event with the events that belong with it (and the run state at it, when asked), as the inspector reads it. */
import { z } from "zod";
import { bigintAsDigits } from "../../journal/exact-json";
import type { FindingItem } from "../../view/api-types";
import type { Db } from "../db";
import { findingsOf, isRunId } from "../queries";
import { stateAt } from "./state-at";
import { settleRun } from "../settle";
import { inspectVerdicts } from "../inspect-verdicts";

export const inspectQuery = z.object({
  seq: z.coerce.number().int().min(0),
  state: z.enum(["0", "1"]).default("0"),
});

interface BodyRow {
  seq: number;
  type: string;
  call: string | null;
  name: string | null;
  parent: number | null;
  body: string;
  hash: string | null;
  recordedHash: string | null;
  chain: string;
  redactions: number;
}

const BODY_COLUMNS = `"seq", "type", "call", "name", "parent", "body", "hash", "recordedHash", "chain", "redactions"`;

/**
 * One StoredEvent (lib/view/api-types.ts) as JSON text, for the events and inspect routes:
 * stored bodies are exact JSON (integers beyond 2^53 included) and are never re-parsed
 * here. The server chain hash is added as the event's `hash`.
 */
export function storedEventJson(r: Pick<BodyRow, "seq" | "body" | "hash" | "recordedHash" | "chain" | "redactions">): string {
  const body = r.hash ? `${r.body.slice(0, -1)},"hash":${JSON.stringify(r.hash)}}` : r.body;
  return `{"seq":${Number(r.seq)},"chain":${JSON.stringify(r.chain)},"recordedHash":${JSON.stringify(r.recordedHash)},"redactions":${Number(r.redactions)},"event":${body}}`;
}

const MAX_RELATED = 24;

function dataOf(r: BodyRow): Record<string, unknown> {
  try {
    const e = JSON.parse(r.body) as { data?: Record<string, unknown> };
    return e.data ?? {};
  } catch {
    return {};
  }
}

/**
 * Which events belong with this one: the other side of a call (by `call`), the approval's
 * request or decisions and the call it gates, the context a model request sent, the parent.
 */
async function relatedSeqs(db: Db, runId: string, row: BodyRow): Promise<number[]> {
  const seqs = new Set<number>();
  const calls = new Set<string>();
  if (row.call) calls.add(row.call);
  if (row.parent !== null) seqs.add(Number(row.parent));
  if (row.type.startsWith("approval.") && row.name) {
    const pair = await db.sql.all<{ seq: number; call: string | null }>(
      `SELECT "seq", "call" FROM "Event" WHERE "runId" = ? AND "name" = ? AND "type" IN ('approval.request', 'approval.decision') ORDER BY "seq" LIMIT ?`,
      [runId, row.name, MAX_RELATED],
    );
    for (const p of pair) {
      seqs.add(Number(p.seq));
      if (p.call) calls.add(p.call);
    }
  }
  for (const call of calls) {
    const same = await db.sql.all<{ seq: number; type: string; name: string | null }>(
      `SELECT "seq", "type", "name" FROM "Event" WHERE "runId" = ? AND "call" = ? ORDER BY "seq" LIMIT ?`,
      [runId, call, MAX_RELATED],
    );
    for (const s of same) {
      seqs.add(Number(s.seq));
      // a gated tool call: bring its approval's decisions too
      if (s.type === "approval.request" && s.name && !row.type.startsWith("approval.")) {
        const decisions = await db.sql.all<{ seq: number }>(
          `SELECT "seq" FROM "Event" WHERE "runId" = ? AND "name" = ? AND "type" = 'approval.decision' ORDER BY "seq" LIMIT ?`,
          [runId, s.name, MAX_RELATED],
        );
        for (const d of decisions) seqs.add(Number(d.seq));
      }
    }
  }
  // the context a model request sent (for a response: the one its request sent)
  if (row.type === "model.request" || row.type === "model.response") {
    const request = row.type === "model.request" ? row : null;
    let ctx = request ? dataOf(request).context : undefined;
    if (ctx === undefined && row.call) {
      const req = await db.sql.all<BodyRow>(
        `SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "call" = ? AND "type" = 'model.request' LIMIT 1`,
        [runId, row.call],
      );
      if (req[0]) ctx = dataOf(req[0]).context;
    }
    if (typeof ctx === "number" && Number.isInteger(ctx)) seqs.add(ctx);
  }
  seqs.delete(Number(row.seq));
  return [...seqs].sort((a, b) => a - b).slice(0, MAX_RELATED);
}

/**
 * One event with what the inspector shows beside it, as JSON text. The run state is
 * rebuilt for state, checkpoint and approval events, and for any event when asked.
 */
export async function inspectEvent(db: Db, runId: string, seq: number, withState: boolean): Promise<string | null> {
  if (!isRunId(runId)) return null;
  // the event's server hash and chain verdict as settled
  await settleRun(db, runId);
  const rows = await db.sql.all<BodyRow>(`SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [runId, seq]);
  const row = rows[0];
  if (!row) return null;
  const related = await relatedSeqs(db, runId, row);
  const relatedRows = related.length
    ? await db.sql.all<BodyRow>(
        `SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "seq" IN (${related.map(() => "?").join(", ")}) ORDER BY "seq"`,
        [runId, ...related],
      )
    : [];
  const needsState = withState || row.type === "state" || row.type === "checkpoint" || row.type.startsWith("approval.");
  const state = needsState ? await stateAt(db, runId, seq) : null;
  const findingItems: FindingItem[] = await findingsOf(db, runId, seq);
  // the verdicts the panes show (lib/server/inspect-verdicts.ts); a document id may be any JSON
  const verdicts = JSON.stringify(await inspectVerdicts(db, runId, seq, row.type), bigintAsDigits);
  return `{"seq":${seq},"event":${storedEventJson(row)},"related":[${relatedRows.map(storedEventJson).join(",")}],"state":${state ? JSON.stringify(state, bigintAsDigits) : "null"},"findings":${JSON.stringify(findingItems)},"verdicts":${verdicts}}`;
}
