import "server-only";
/**
 * The policy attached to a stored run (Run.attachedPolicy: `retrace import --policy`,
 * `retrace policy attach`, Admin → Projects), which every reading of the run takes in place
 * of the one its run.start recorded (lib/semantics `judgedBy`): the analysis at ingest, the
 * inspect answer's verdicts, the live actions' call ledger and the replay page.
 */
import { parseJsonExact } from "../journal/parse-line";
import type { JsonValue } from "../journal/types";
import type { Db } from "./db";

/** The run's attached policy, undefined when it is judged by the policy it recorded (or there is no such run). */
export async function attachedPolicyOf(db: Db, runId: string): Promise<JsonValue | undefined> {
  const rows = await db.sql.all<{ attachedPolicy: string | null }>(`SELECT "attachedPolicy" FROM "Run" WHERE "id" = ?`, [runId]);
  const text = rows[0]?.attachedPolicy ?? null;
  return text === null ? undefined : (parseJsonExact(text) as JsonValue);
}
