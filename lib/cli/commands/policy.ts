import fs from "node:fs";
import os from "node:os";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "attach a declared policy to a workflow (versioned; its runs are judged again)";
export const usage = `Usage:
  npm run -s retrace -- policy attach WORKFLOW POLICY.json
  npm run -s retrace -- policy list WORKFLOW

attach: stores POLICY.json (the JSON of run.start.data.policy: tool contracts, invariants…;
docs/declared-policy.md) as WORKFLOW's next version, re-computes the findings of every
stored run of WORKFLOW with it, and judges runs of WORKFLOW stored later by it. Each run
records the version that judged it (the run page says so). The journals stay as recorded.
A policy the journal schema refuses is refused with its JSON path, and nothing is stored.
Like the other admin commands, it acts with the database's own rights (whoever may run it
holds DATABASE_URL); it is written to the privileged-action log.
list: the versions attached to WORKFLOW.`;

export const options = {} as const;

export async function run({ positionals }: CommandArgs<typeof options>): Promise<number> {
  const [verb, workflow, file, ...extra] = positionals;
  if (!(verb === "attach" && workflow && file && extra.length === 0) && !(verb === "list" && workflow && file === undefined)) {
    console.error(usage);
    return 2;
  }
  let text = "";
  if (verb === "attach") {
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      console.error(`retrace policy: cannot read ${file}`);
      return 2;
    }
  }
  const db = openDb();
  try {
    const { attachWorkflowPolicy, workflowPolicyVersions } = await import("../../server/workflow-policy");
    const { readPolicyFile } = await import("../../journal/policy-file");
    if (verb === "list") {
      const versions = await workflowPolicyVersions(db, workflow);
      if (versions.length === 0) console.log(`workflow "${workflow}" has no attached policy`);
      for (const v of versions) console.log(`${workflow} v${v.version}  ${new Date(v.createdAt).toISOString()}  ${v.createdBy}`);
      return 0;
    }
    const checked = readPolicyFile(text);
    if (!checked.ok) {
      console.error(`retrace policy: ${file}: ${checked.message}`);
      return 2;
    }
    const r = await attachWorkflowPolicy(db, { cli: `cli:${os.userInfo().username}` }, workflow, text);
    console.log(`attached policy v${r.version} to workflow "${r.workflow}": ${r.runs} run${r.runs === 1 ? "" : "s"} judged again`);
    return 0;
  } catch (e) {
    console.error(`retrace policy: ${(e as Error).message}`);
    return 1;
  } finally {
    await db.close();
  }
}
