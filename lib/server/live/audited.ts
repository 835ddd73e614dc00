import "server-only";
/**
 * The audited-action wrapper every live action runs in (docs/live-actions.md): the one
 * place a live action's log entry and its LiveBranch row are written. A refusal after the
 * run was found is logged (who, why, which step) and thrown; a done action is logged with
 * its result, then its branch row is recorded with that entry's seq.
 */
import { actorOf, type Principal } from "../../access/roles";
import { appendAudit } from "../access/audit-log";
import type { Db } from "../db";
import { recordBranch, type BranchRow } from "./branches";
import { LiveRefusal } from "./refusal";

/** What the log says of the action whatever its end; `detail` may grow as steps pass. */
export interface AuditEntry {
  action: string;
  project: string;
  target: string;
  reason: string;
  detail: Record<string, unknown>;
}

/** A live action that went through: what its log entry adds, the branch it made, and its answer once logged. */
export interface LiveDone<R> {
  result: "ok" | "failed";
  /** the entry's target when it differs from the one asked (a call named by its result's seq) */
  target?: string;
  detail: Record<string, unknown>;
  branch: Omit<BranchRow, "createdMs" | "auditSeq" | "actor">;
  answer: (auditSeq: number) => R;
}

/** Runs `work` as an audited live action (see the file comment). */
export async function audited<R>(db: Db, principal: Principal, entry: AuditEntry, work: () => Promise<LiveDone<R>>): Promise<R> {
  let done: LiveDone<R>;
  try {
    done = await work();
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
  const actor = actorOf(principal);
  const audit = await appendAudit(db, {
    ...entry,
    target: done.target ?? entry.target,
    actor,
    result: done.result,
    detail: { ...entry.detail, ...done.detail },
  });
  await recordBranch(db, { ...done.branch, actor, auditSeq: audit.seq });
  return done.answer(audit.seq);
}
