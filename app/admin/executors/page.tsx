import { ExecutorsSection } from "@/components/admin/executors-section";
import { administeredProjects } from "@/lib/server/access/admin";
import { currentProjectFor, page } from "@/lib/server/edge";
import { listExecutors } from "@/lib/server/live/executors";

export const dynamic = "force-dynamic";
export const metadata = { title: "Executors · Admin · Retrace" };

/** What live actions act through, per project: tool endpoints and model endpoints, each on one environment. */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal }) => {
  const projects = await administeredProjects(db, principal);
  return (
    <>
      <header className="admin-head">
        <h1>Executors</h1>
        <p>
          A live action (reconcile, re-execute) goes only to an executor listed here, and only for an operator of its environment. A{" "}
          <b>tool</b> executor is an HTTP endpoint (<code>POST URL/call</code>, <code>POST URL/lookup</code>); a <b>model</b> executor is an
          OpenAI-compatible base URL. Credentials are stored encrypted under the executor key file kept with the data and are never shown
          again; a credential found in a journal is never used.
        </p>
      </header>
      <ExecutorsSection projects={projects} executors={await listExecutors(db, projects)} current={await currentProjectFor(principal)} />
    </>
  );
});
