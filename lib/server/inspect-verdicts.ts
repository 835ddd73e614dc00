import "server-only";
/**
 * The verdicts of the inspect answer (GET /api/runs/{run}/inspect, `verdicts`): reads the
 * events a verdict needs and hands them to lib/semantics `eventVerdicts`, the fold and
 * call ledger the findings and the live actions read, so the panes show those verdicts
 * and decide nothing themselves. A tool call's verdicts also read the run's inputs (the
 * invariants that need the user's words), and the policy attached to the run, if any.
 */
import { parseJsonExact } from "../journal/parse-line";
import type { JournalEvent } from "../journal/types";
import { eventVerdicts, judgedEvents, type EventVerdicts } from "../semantics";
import { attachedPolicyOf } from "./attached-policy";
import type { Db } from "./db";
import { branchReconciles } from "./live/branches";

const TOOL_TYPES = `'tool.call', 'tool.result', 'reconcile', 'approval.request', 'approval.decision'`;

/** The verdicts for the event at `seq` of type `type` (the run id already checked). */
export async function inspectVerdicts(db: Db, runId: string, seq: number, type: string): Promise<EventVerdicts> {
  let where: string | null = null;
  const params: Array<string | number> = [runId];
  const tools = `"type" IN (${TOOL_TYPES})`;
  if (type === "retrieval") {
    where = `"seq" = ?`;
    params.push(seq);
  } else if (type === "approval.decision") {
    // the state from the last checkpoint before the decision on (what the hash in force
    // reads), and the calls and approvals (the verdict on the call the request gates)
    where = `(${tools} OR ("type" IN ('state', 'checkpoint') AND "seq" < ? AND "seq" >= COALESCE((SELECT MAX("seq") FROM "Event" WHERE "runId" = ? AND "type" = 'checkpoint' AND "seq" < ?), -1)))`;
    params.push(seq, runId, seq);
  } else if (type === "tool.call" || type === "tool.result" || type === "reconcile") where = `(${tools} OR "type" = 'input')`;
  else if (type === "approval.request") where = tools;
  if (where === null) return { retrieval: null, decision: null, call: null, approval: null, policy: null };
  const rows = await db.sql.all<{ seq: number; body: string; redactions: number }>(
    `SELECT "seq", "body", "redactions" FROM "Event" WHERE "runId" = ? AND ("type" = 'run.start' OR ${where}) ORDER BY "seq"`,
    params,
  );
  // judged by the attached policy when one replaced the recorded one (as the findings were)
  const events = judgedEvents(
    rows.map((r) => parseJsonExact(r.body) as JournalEvent),
    await attachedPolicyOf(db, runId),
  );
  const redacted = new Set(rows.filter((r) => Number(r.redactions) > 0).map((r) => Number(r.seq)));
  const reconciles = type === "tool.call" || type === "tool.result" || type === "reconcile" ? await branchReconciles(db, runId) : [];
  return eventVerdicts(events, seq, { branchReconciles: reconciles, redacted });
}
