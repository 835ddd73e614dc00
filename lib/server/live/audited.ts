import "server-only";
/**
 * The one wrapper every live action and its preview run in (docs/live-actions.md), on a
 * run the edge's run check let through (AuthorizedRun): first what only a live action asks
 * of the run (authorize.ts `admitLive`), then, for an action on a recorded tool call, the
 * call's tool, the project's executor for it and the live decision for its environment
 * (the preamble re-execute and reconcile share), then the work. An action is audited: the
 * one place its log entry and its LiveBranch row are written. A refusal after the run was
 * admitted is logged (who, why, which step, from LiveRefusal.step) and thrown; a done
 * action is logged with its result, then its branch row is recorded with that entry's seq.
 */
import { actorOf, type Principal } from "../../access/roles";
import type { JournalEvent } from "../../journal/types";
import { callToServe } from "../../live/executor-match";
import type { ExecutorInfo } from "../../live/types";
import { appendAudit } from "../access/audit-log";
import type { Db } from "../db";
import type { AuthorizedRun } from "../run-access";
import { admitLive, executorFor, mayActOn } from "./authorize";
import { recordBranch, runEvents, type BranchRow } from "./branches";
import { LiveRefusal, planned } from "./refusal";
import { previewToolOf } from "./tool-of";

/** What the log says of the action whatever its end; `detail` may grow as steps pass. */
export interface AuditEntry {
  action: string;
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

/** A preview (or what an action offers): the run admitted, nothing logged. */
export async function livePreview<R>(db: Db, principal: Principal, at: AuthorizedRun, work: () => Promise<R>): Promise<R> {
  await admitLive(db, principal, at);
  return work();
}

/** Runs `work` as an audited live action on `at` (see the file comment). */
export async function audited<R>(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  entry: AuditEntry,
  work: () => Promise<LiveDone<R>>,
): Promise<R> {
  const logged = { ...entry, project: at.project };
  let done: LiveDone<R>;
  try {
    await admitLive(db, principal, at);
    done = await work();
  } catch (e) {
    if (e instanceof LiveRefusal && e.step !== "run") {
      await appendAudit(db, {
        ...logged,
        detail: { ...entry.detail, step: e.step, error: e.message },
        actor: actorOf(principal),
        result: "refused",
      });
    }
    throw e;
  }
  const actor = actorOf(principal);
  const audit = await appendAudit(db, {
    ...logged,
    target: done.target ?? entry.target,
    actor,
    result: done.result,
    detail: { ...entry.detail, ...done.detail },
  });
  await recordBranch(db, { ...done.branch, actor, auditSeq: audit.seq });
  return done.answer(audit.seq);
}

/** A recorded tool call to act on: the run's events, the call's tool and id, the executor chosen. */
export interface ToolCallScope {
  events: JournalEvent[];
  tool: { tool: string; call: string };
  ex: ExecutorInfo;
}

/** The shared preamble of an action on a tool call; `entry` (an audited action's) gains the tool and environment. */
async function toolCallScope(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { seq: number; executor: string },
  entry?: AuditEntry,
): Promise<ToolCallScope> {
  const events = await runEvents(db, at.run);
  const tool = planned(() => previewToolOf(events, input.seq));
  const ex = await executorFor(db, at.project, input.executor, callToServe(events, tool.tool));
  if (entry) entry.detail = { ...entry.detail, tool: tool.tool, environment: ex.environment };
  mayActOn(principal, at.project, ex.environment);
  return { events, tool, ex };
}

/** The preview of an action on the tool call at `input.seq` with `input.executor`. */
export function previewToolCall<R>(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { seq: number; executor: string },
  work: (scope: ToolCallScope) => Promise<R>,
): Promise<R> {
  return livePreview(db, principal, at, async () => work(await toolCallScope(db, principal, at, input)));
}

/** An audited action on the tool call at `input.seq` with `input.executor`. */
export function auditedToolCall<R>(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { seq: number; executor: string },
  entry: AuditEntry,
  work: (scope: ToolCallScope) => Promise<LiveDone<R>>,
): Promise<R> {
  return audited(db, principal, at, entry, async () => work(await toolCallScope(db, principal, at, input, entry)));
}
