import "server-only";
/**
 * The audited-action wrapper every live action runs in: a refusal after the run was found
 * is logged (who, why, which step) before it is thrown.
 */
import { actorOf, type Principal } from "../../access/roles";
import { appendAudit } from "../access/audit-log";
import type { Db } from "../db";
import { LiveRefusal } from "./refusal";

/** Runs `work`; a refusal after the run was found is logged (who, why, which step), then thrown. */
export async function logged<R>(
  db: Db,
  principal: Principal,
  entry: { action: string; project: string; target: string; reason: string; detail: Record<string, unknown> },
  work: () => Promise<R>,
): Promise<R> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof LiveRefusal && e.step !== "run") {
      await appendAudit(db, {
        ...entry,
        actor: actorOf(principal),
        result: "refused",
        detail: { ...entry.detail, step: e.step, error: e.message },
      });
    }
    throw e;
  }
}
