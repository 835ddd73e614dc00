import "server-only";
/**
 * The one run check: may `principal` do `need` on `run`'s project? A run the principal
 * cannot see answers exactly like a missing one (404). The edge's routes and actions and
 * the live actions all decide through it.
 */
import { decide, type Decision, type Permission, type Principal } from "../access/roles";
import { AccessError } from "./access/accounts";
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

declare const authorized: unique symbol;

/** A run the one run check let through, with its project: only `authorizedRun` makes one. */
export interface AuthorizedRun {
  readonly run: string;
  readonly project: string;
  readonly [authorized]: true;
}

/**
 * The one run check as the edge's actions use it: the run and its project when `principal`
 * may do `need` there, else an AccessError (404 exactly like a missing run for one it
 * cannot see, 403 naming the role for a role too weak).
 */
export async function authorizedRun(db: Db, principal: Principal, run: string, need: Permission): Promise<AuthorizedRun> {
  const { owner, decision: d } = await runAccess(db, principal, run, need);
  if (!d.ok || owner === null)
    throw new AccessError(!d.ok && d.status === 403 ? d.message : `run "${run}" not found`, !d.ok && d.status === 403 ? 403 : 404);
  return { run, project: owner } as AuthorizedRun;
}
