import "server-only";
/**
 * Who may act live on what (docs/live-actions.md): the run through the edge's one run
 * check (an AuthorizedRun, lib/server/run-access.ts), then what only a live action asks:
 * the operator role, not evidence, its payloads kept, the executor the project's, the
 * executor's environment. A refusal names its step (LiveRefusal.step), decided from the
 * principal, never from a message.
 */
import { decide, roleHolds, type Principal } from "../../access/roles";
import { executorServes, type CallToServe } from "../../live/executor-match";
import type { ExecutorChoice, ExecutorInfo } from "../../live/types";
import { bundleOf } from "../bundle-runs";
import type { Db } from "../db";
import { payloadsDroppedOf } from "../retention";
import type { AuthorizedRun } from "../run-access";
import { getExecutor } from "./executors";
import { LiveRefusal } from "./refusal";

export const choice = (e: ExecutorInfo): ExecutorChoice => ({ id: e.id, environment: e.environment, name: e.name, url: e.url });

/**
 * What a live action asks of a run the edge's run check let through (`at`): the operator
 * role in its project (403 naming the role; before anything else is looked up, so a viewer
 * learns nothing about executors), then a run that can be acted on: not evidence from a
 * bundle, its payloads kept (409, step "run").
 */
export async function admitLive(db: Db, principal: Principal, at: AuthorizedRun): Promise<void> {
  operatorRole(principal, at.project);
  // evidence is not a run to act on, and a dropped payload leaves no request to send
  if ((await bundleOf(db, at.run)) !== null)
    throw new LiveRefusal("run", `run "${at.run}" was opened from an audit bundle: it is read-only evidence`, 409);
  const dropped = await payloadsDroppedOf(db, at.run);
  if (dropped !== null)
    throw new LiveRefusal(
      "run",
      `run "${at.run}" had its payloads dropped by retention on ${dropped}: no recorded request is left to act on`,
      409,
    );
}

function operatorRole(principal: Principal, owner: string): void {
  if (principal.kind === "user" && !roleHolds(principal.memberships[owner].role, "live.act"))
    throw new LiveRefusal("role", `this needs the operator role in project "${owner}"; you are ${principal.memberships[owner].role}`, 403);
  if (principal.kind === "key") throw new LiveRefusal("role", "live actions need a signed-in user", 403);
}

/** The live decision for `environment`, thrown as the refusal at its step. */
export function mayActOn(principal: Principal, project: string, environment: string): void {
  const d = liveDecision(principal, project, environment);
  if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
}

/** May `principal` act live on `environment` of `project`? Open mode (the quick start, loopback only) acts on sandbox only. */
export function liveDecision(
  principal: Principal,
  project: string,
  environment: string,
): { ok: true } | { ok: false; step: string; message: string } {
  if (principal.kind === "open")
    return environment === "sandbox"
      ? { ok: true }
      : {
          ok: false,
          step: "environment",
          message: "open mode acts only on sandbox executors: add an account to act on another environment",
        };
  if (principal.kind !== "user") return { ok: false, step: "role", message: "live actions need a signed-in user" };
  const member = principal.memberships[project];
  if (!member || !roleHolds(member.role, "live.act")) {
    const role = decide(principal, "live.act", project);
    return { ok: false, step: "role", message: role.ok ? "this needs the operator role" : role.message };
  }
  const env = decide(principal, "live.act", project, environment);
  if (!env.ok) return { ok: false, step: "environment", message: env.message };
  return { ok: true };
}

/** The environments of a project `principal` may act on live (what the inspector offers). */
export function liveEnvironments(principal: Principal, project: string): string[] {
  if (principal.kind === "open") return ["sandbox"];
  if (principal.kind !== "user") return [];
  const m = principal.memberships[project];
  if (!m) return [];
  return m.environments.filter((env) => decide(principal, "live.act", project, env).ok);
}

/** Whether the run page offers live actions: the viewer acts on an environment some tool executor of the project acts on. */
export async function offersLive(db: Db, principal: Principal, project: string): Promise<boolean> {
  const envs = liveEnvironments(principal, project);
  if (envs.length === 0) return false;
  const rows = await db.sql.all<{ environment: string }>(
    `SELECT DISTINCT "environment" FROM "Executor" WHERE "projectId" = ? AND "kind" = 'tool'`,
    [project],
  );
  return rows.some((r) => envs.includes(r.environment));
}

export async function executorFor(db: Db, project: string, executorId: string, call: CallToServe): Promise<ExecutorInfo> {
  const ex = await getExecutor(db, project, executorId);
  if (!ex || ex.kind !== "tool") throw new LiveRefusal("executor", `no tool executor "${executorId}" in project "${project}"`, 404);
  // lib/live/executor-match.ts: the inspector's offer reads the same verdict
  const serves = executorServes(ex, call);
  if (!serves.ok) throw new LiveRefusal("executor", serves.reason, 400);
  return ex;
}
