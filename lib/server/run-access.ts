import "server-only";
/**
 * The one run check: may `principal` do `need` on `run`'s project? A run the principal
 * cannot see answers exactly like a missing one (404). The edge's routes and actions and
 * the live actions all decide through it.
 */
import { decide, type Decision, type Permission, type Principal } from "../access/roles";
import type { Db } from "./db";
import { runProjectOf } from "./queries";

/** The run's project (null: no such run) and the decision, a hidden run's refusal a 404. */
export async function runAccess(
  db: Db,
  principal: Principal,
  run: string,
  need: Permission,
): Promise<{ owner: string | null; decision: Decision }> {
  const owner = await runProjectOf(db, run);
  if (owner === null) return { owner, decision: { ok: false, status: 404, message: `run "${run}" not found` } };
  const d = decide(principal, need, owner);
  return { owner, decision: d.ok || d.status !== 404 ? d : { ok: false, status: 404, message: `run "${run}" not found` } };
}
