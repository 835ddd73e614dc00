import { CreateKeyForm } from "@/components/admin/create-key-form";
import { KeysTable } from "@/components/admin/keys-table";
import { administeredProjects } from "@/lib/server/access/admin";
import { listKeys } from "@/lib/server/access/keys";
import { currentProjectFor, page, serverOrigin } from "@/lib/server/edge";

export const dynamic = "force-dynamic";
export const metadata = { title: "Keys · Admin · Retrace" };

/** API keys of the projects the viewer administers: who made them, when they were last used, revoke. */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal, mode }) => {
  const projects = await administeredProjects(db, principal);
  const keys = await listKeys(db, projects);
  return (
    <>
      <header className="admin-head">
        <h1>Keys</h1>
        <p>
          An <b>ingest</b> key writes runs and cannot read anything back; a <b>read</b> key reads the runs of its project. Send either as{" "}
          <code>Authorization: Bearer rtk_…</code>. Keys from <code>RETRACE_TOKENS</code> are not listed here.
        </p>
      </header>
      <CreateKeyForm
        projects={projects}
        current={await currentProjectFor(principal)}
        origin={await serverOrigin()}
        open={mode === "open"}
      />
      <KeysTable keys={keys} />
    </>
  );
});
