import { Suspense } from "react";
import { RunsPage } from "@/components/runs/runs-page";
import { defaultWriteProject } from "@/lib/access/roles";
import { listProjects } from "@/lib/server/access/accounts";
import { currentProjectFor, mayOnProject, page, serverOrigin } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/**
 * The runs list (of the projects the viewer may read). The origin is the one the browser
 * used, so the empty state's commands work when pasted; the projects decide whether the
 * list shows a Project column, and the upload's project is the one route() will pick.
 */
export default page({ need: "runs.read", project: "any" }, async ({ db, principal, readable }) => {
  const projects = readable === "all" ? (await listProjects(db)).map((p) => p.id) : [...readable].sort();
  const uploadProject = (await currentProjectFor(principal)) ?? defaultWriteProject(principal);
  return (
    <Suspense fallback={<div className="skeleton">Loading runs…</div>}>
      <RunsPage
        origin={await serverOrigin()}
        projects={projects}
        uploadProject={uploadProject}
        canExport={projects.some((p) => mayOnProject(principal, "audit.export", p))}
      />
    </Suspense>
  );
});
