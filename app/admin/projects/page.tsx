import Link from "next/link";
import { CreateProjectForm } from "@/components/admin/create-project-form";
import { RetentionForm } from "@/components/admin/retention-form";
import { ModelPricesForm } from "@/components/admin/model-prices-form";
import { AttachPolicyForm } from "@/components/admin/attach-policy-form";
import { WorkflowPoliciesTable } from "@/components/admin/workflow-policies-table";
import { DEFAULT_PROJECT, decide } from "@/lib/access/roles";
import { administeredProjects, projectSummaries } from "@/lib/server/access/admin";
import { page } from "@/lib/server/edge";
import { modelPricesOf } from "@/lib/server/prices";
import { workflowsOfProjects } from "@/lib/server/workflow-policy";
import { formatPriceLines } from "@/lib/view/prices";

export const dynamic = "force-dynamic";
export const metadata = { title: "Projects · Admin · Retrace" };

/**
 * The projects the viewer administers; an admin of the default project may make more. The
 * workflows of their runs get a declared policy here (docs/declared-policy.md).
 */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal }) => {
  const administered = await administeredProjects(db, principal);
  const projects = await projectSummaries(db, administered);
  const policies = await workflowsOfProjects(db, administered);
  const mayCreate = decide(principal, "project.admin", DEFAULT_PROJECT).ok;
  const prices = await Promise.all(
    projects.map(async (p) => ({ id: p.id, name: p.name, prices: formatPriceLines(await modelPricesOf(db, p.id)) })),
  );
  return (
    <>
      <header className="admin-head">
        <h1>Projects</h1>
        <p>Runs, keys, notes and roles belong to one project; a user sees only the projects they are a member of.</p>
        <p>
          Retention: <code>npm run -s retrace -- purge</code> removes a project&apos;s runs unchanged for longer than its days, except runs
          under legal hold (<code>retrace hold RUN</code>); empty keeps runs forever. Payloads: after fewer days it drops their payloads,
          keeping each run&apos;s summary, findings, notes and hashes; empty keeps payloads with the run.
        </p>
      </header>
      {mayCreate ? (
        <CreateProjectForm />
      ) : (
        <p className="admin-note">
          Only an admin of the <code>{DEFAULT_PROJECT}</code> project can create projects.
        </p>
      )}
      <ModelPricesForm projects={prices} />
      <div className="admin-table-wrap">
        <table className="admin-table" aria-label="Projects">
          <thead>
            <tr>
              <th>ID</th>
              <th>Name</th>
              <th>Created (UTC)</th>
              <th className="num">Members</th>
              <th className="num">Admins</th>
              <th className="num">Active keys</th>
              <th className="num">Runs</th>
              <th>Retention</th>
              <th title="after this many days a purge drops a run's payloads, keeping its summary, findings and hashes">Payloads</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {projects.map((p) => (
              <tr key={p.id}>
                <td className="mono">{p.id}</td>
                <td>{p.name}</td>
                <td className="nowrap">{new Date(p.createdAt).toISOString().replace("T", " ").slice(0, 16)}</td>
                <td className="num">{p.members}</td>
                <td className="num">{p.admins}</td>
                <td className="num">{p.activeKeys}</td>
                <td className="num">{p.runs.toLocaleString("en-US")}</td>
                <td>
                  <RetentionForm key={`${p.id}:${p.retentionDays}`} project={p.id} days={p.retentionDays} of="runs" />
                </td>
                <td>
                  <RetentionForm key={`${p.id}:${p.payloadDays}`} project={p.id} days={p.payloadDays} of="payloads" />
                </td>
                <td>
                  <Link href={`/?project=${encodeURIComponent(p.id)}`} prefetch={false}>
                    Runs
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <section className="admin-panel" aria-labelledby="workflow-policies-head">
        <div className="panel-head">
          <h2 id="workflow-policies-head">Workflow policies</h2>
        </div>
        <p className="admin-note">
          A declared policy (tool contracts, invariants, limits) judges the runs of a workflow that recorded none. Each attach is the
          workflow&apos;s next version: its stored runs are judged again, in every project, and so are its runs stored later. An admin
          attaches it only when they administer every project holding runs of the workflow. Same as{" "}
          <code>retrace policy attach WORKFLOW POLICY.json</code>.
        </p>
        {policies.workflows.length === 0 ? (
          <p className="admin-empty">
            No run in the projects you administer names a workflow yet (<code>run.start</code>&apos;s <code>workflow.name</code>).
          </p>
        ) : (
          <>
            {policies.total > policies.workflows.length ? (
              <p className="admin-note">
                The first {policies.workflows.length.toLocaleString("en-US")} of {policies.total.toLocaleString("en-US")} workflows, by
                name; <code>retrace policy attach</code> reaches the others.
              </p>
            ) : null}
            <WorkflowPoliciesTable workflows={policies.workflows} />
            <AttachPolicyForm workflows={policies.workflows} />
          </>
        )}
      </section>
    </>
  );
});
