import "server-only";
/**
 * Attaching a declared policy to runs that came without one (docs/declared-policy.md,
 * "Attaching a policy"): a policy file checked against the journal schema's policy
 * (lib/journal/policy-file.ts, which the CLI's replay reads files with too), a workflow's policy versions (the WorkflowPolicy table) and the re-judging of the
 * workflow's stored runs when a version is attached. The journal of a run stays as recorded
 * (its run.start, hashes and chain untouched): the run row records the policy that judged
 * it (Run.attachedPolicy, Run.policyVersion) and the analysis reads it in place of the
 * recorded one.
 */
import { readPolicyFile } from "../journal/policy-file";
import type { Principal } from "../access/roles";
import type { Db } from "./db";
import { AccessError } from "./access/accounts";
import { administeredProjects } from "./access/admin";
import { appendAudit } from "./access/audit-log";
import { publishRunChanges } from "./changes";
import { redactorFor } from "./redactors";

const MAX_WORKFLOW_CHARS = 200;

/** Who attaches: an account, a key or an open instance (checked), or the CLI (whoever holds the database). */
export type PolicyActor = { principal: Principal; label: string } | { cli: string };

/**
 * An account may attach a workflow's policy when it administers every project holding runs
 * of the workflow (and at least one project): the new version re-judges them all.
 */
async function authorize(db: Db, actor: PolicyActor, workflow: string): Promise<void> {
  if ("cli" in actor) return;
  const p = actor.principal;
  if (p.kind === "key" && p.scope === "admin" && p.static) return;
  const mine = new Set(await administeredProjects(db, p));
  if (mine.size === 0) throw new AccessError("attaching a policy needs the admin role", 403);
  const held = await db.sql.all<{ projectId: string }>(`SELECT DISTINCT "projectId" FROM "Run" WHERE "workflow" = ?`, [workflow]);
  const outside = held.filter((r) => !mine.has(r.projectId));
  if (outside.length > 0) throw new AccessError(`workflow "${workflow}" has runs in projects you do not administer`, 403);
}

export interface AttachResult {
  workflow: string;
  version: number;
  /** runs of the workflow re-judged by it */
  runs: number;
}

/**
 * Stores `policy` (readPolicyFile's text) as the workflow's next version and re-judges every
 * stored run of the workflow by it, in one transaction; runs of the workflow stored later
 * are judged by it at ingest (ingest/workflow-policies.ts). Logged in the privileged-action log.
 */
export async function attachWorkflowPolicy(db: Db, actor: PolicyActor, workflow: string, policyText: string): Promise<AttachResult> {
  if (workflow.trim() === "" || workflow.length > MAX_WORKFLOW_CHARS)
    throw new AccessError(`a workflow name is 1 to ${MAX_WORKFLOW_CHARS} characters`, 400);
  const label = "cli" in actor ? actor.cli : actor.label;
  try {
    await authorize(db, actor, workflow);
  } catch (e) {
    await appendAudit(db, { actor: label, action: "policy.attach", target: workflow, result: "refused", reason: (e as Error).message });
    throw e;
  }
  const file = readPolicyFile(policyText);
  if (!file.ok) throw new AccessError(file.message, 400);
  const redactor = await redactorFor(db);
  const { rejudgeRunInTx } = await import("./ingest");
  const dialect = db.sql.dialect;
  const { version, runIds } = await db.sql.transaction(async (tx) => {
    // one attach at a time per database: two racing ones would take the same version
    if (dialect === "postgres") await tx.all(`SELECT pg_advisory_xact_lock(hashtext('WorkflowPolicy'))`);
    const last = await tx.all<{ v: number | string | null }>(`SELECT MAX("version") AS "v" FROM "WorkflowPolicy" WHERE "workflow" = ?`, [
      workflow,
    ]);
    const v = Number(last[0]?.v ?? 0) + 1;
    await tx.run(`INSERT INTO "WorkflowPolicy" ("workflow", "version", "policy", "createdBy", "createdAt") VALUES (?, ?, ?, ?, ?)`, [
      workflow,
      v,
      file.policy,
      label,
      Date.now(),
    ]);
    const runs = await tx.all<{ id: string }>(`SELECT "id" FROM "Run" WHERE "workflow" = ? ORDER BY "id"`, [workflow]);
    const ids: string[] = [];
    for (const r of runs) if (await rejudgeRunInTx(tx, dialect, redactor, r.id, { policy: file.policy, version: v })) ids.push(r.id);
    return { version: v, runIds: ids };
  });
  await publishRunChanges(db, runIds).catch(() => undefined);
  await appendAudit(db, {
    actor: label,
    action: "policy.attach",
    target: workflow,
    result: "ok",
    detail: { version, runs: runIds.length },
  });
  return { workflow, version, runs: runIds.length };
}

export interface WorkflowPolicyVersion {
  workflow: string;
  version: number;
  createdBy: string;
  createdAt: number;
}

/** The versions attached to a workflow, oldest first. */
export async function workflowPolicyVersions(db: Db, workflow: string): Promise<WorkflowPolicyVersion[]> {
  const rows = await db.sql.all<{ workflow: string; version: number | string; createdBy: string; createdAt: number | string }>(
    `SELECT "workflow", "version", "createdBy", "createdAt" FROM "WorkflowPolicy" WHERE "workflow" = ? ORDER BY "version"`,
    [workflow],
  );
  return rows.map((r) => ({ workflow: r.workflow, version: Number(r.version), createdBy: r.createdBy, createdAt: Number(r.createdAt) }));
}

export interface WorkflowPolicies {
  workflow: string;
  /** runs of the workflow in the projects asked about (not elsewhere) */
  runs: number;
  /** its attached versions, oldest first (the last one judges its runs) */
  versions: WorkflowPolicyVersion[];
  /** the latest version's policy (canonical JSON), null with none */
  latestPolicy: string | null;
}

/** At most this many workflows are listed (by name): one page of the admin's projects page. */
export const LISTED_WORKFLOWS = 200;

/**
 * The workflows named by runs of `projects` (the Admin → Projects page: the projects the
 * viewer administers), by name, with how many of those runs each has and the policy
 * versions attached to it. `total` counts every such workflow, listed or not.
 */
export async function workflowsOfProjects(
  db: Db,
  projects: readonly string[],
  limit = LISTED_WORKFLOWS,
): Promise<{ workflows: WorkflowPolicies[]; total: number }> {
  if (projects.length === 0) return { workflows: [], total: 0 };
  const marks = projects.map(() => "?").join(", ");
  const where = `"projectId" IN (${marks}) AND "workflow" IS NOT NULL`;
  const counted = await db.sql.all<{ n: number | string }>(`SELECT COUNT(DISTINCT "workflow") AS "n" FROM "Run" WHERE ${where}`, [
    ...projects,
  ]);
  const rows = await db.sql.all<{ workflow: string; n: number | string }>(
    `SELECT "workflow", COUNT(*) AS "n" FROM "Run" WHERE ${where} GROUP BY "workflow" ORDER BY "workflow" LIMIT ?`,
    [...projects, limit],
  );
  if (rows.length === 0) return { workflows: [], total: 0 };
  const names = rows.map((r) => r.workflow);
  const versions = await db.sql.all<{
    workflow: string;
    version: number | string;
    createdBy: string;
    createdAt: number | string;
    policy: string;
  }>(
    `SELECT "workflow", "version", "createdBy", "createdAt", "policy" FROM "WorkflowPolicy" WHERE "workflow" IN (${names
      .map(() => "?")
      .join(", ")}) ORDER BY "workflow", "version"`,
    names,
  );
  const byWorkflow = new Map<string, typeof versions>();
  for (const v of versions) {
    const list = byWorkflow.get(v.workflow);
    if (list) list.push(v);
    else byWorkflow.set(v.workflow, [v]);
  }
  return {
    total: Number(counted[0]?.n ?? 0),
    workflows: rows.map((r) => {
      const vs = byWorkflow.get(r.workflow) ?? [];
      return {
        workflow: r.workflow,
        runs: Number(r.n),
        versions: vs.map((v) => ({
          workflow: v.workflow,
          version: Number(v.version),
          createdBy: v.createdBy,
          createdAt: Number(v.createdAt),
        })),
        latestPolicy: vs.length > 0 ? vs[vs.length - 1].policy : null,
      };
    }),
  };
}
