import "server-only";
/**
 * The latest attached policy of each workflow (the WorkflowPolicy table), read by a request
 * that opens a run whose run.start has not been seen: that run is judged by its workflow's
 * latest version (lib/server/workflow-policy.ts attaches them and re-judges stored runs).
 */
import type { SqlTx } from "../sql";
import type { PolicyLookup, WorkflowPolicyText } from "./analysis";

export async function latestWorkflowPolicies(tx: SqlTx): Promise<PolicyLookup> {
  const rows = await tx.all<{ workflow: string; version: number | string; policy: string }>(
    `SELECT "workflow", "version", "policy" FROM "WorkflowPolicy" ORDER BY "workflow", "version"`,
  );
  const latest = new Map<string, WorkflowPolicyText>();
  for (const r of rows) latest.set(r.workflow, { version: Number(r.version), policy: r.policy });
  return (workflow) => latest.get(workflow);
}
