import Link from "next/link";
import { administeredProjects, projectSummaries } from "@/lib/server/access/admin";
import { listUsers } from "@/lib/server/access/accounts";
import { verifyAudit } from "@/lib/server/access/audit-log";
import { page } from "@/lib/server/edge";

export const dynamic = "force-dynamic";
export const metadata = { title: "Admin · Retrace" };

/** What the viewer administers, with a way into each admin page. */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal, mode }) => {
  const projects = await administeredProjects(db, principal);
  const summaries = await projectSummaries(db, projects);
  const users = await listUsers(db, projects);
  const chain = await verifyAudit(db);
  const keys = summaries.reduce((n, p) => n + p.activeKeys, 0);
  return (
    <>
      <header className="admin-head">
        <h1>Admin</h1>
        <p>
          {mode === "open" ? (
            <>Open mode: anyone on this machine administers every project.</>
          ) : (
            <>
              You administer {projects.length === 1 ? "project" : `${projects.length} projects:`}{" "}
              {projects.map((p, i) => (
                <span key={p}>
                  {i > 0 ? ", " : ""}
                  <code>{p}</code>
                </span>
              ))}
              .
            </>
          )}
        </p>
      </header>
      <div className="admin-cards">
        <Link href="/admin/users" prefetch={false} className="admin-card">
          <h2>Users</h2>
          <b>{users.length}</b>
          <span>accounts, their roles per project and operator environments</span>
        </Link>
        <Link href="/admin/keys" prefetch={false} className="admin-card">
          <h2>Keys</h2>
          <b>{keys}</b>
          <span>active API keys for agents, exporters and CI</span>
        </Link>
        <Link href="/admin/projects" prefetch={false} className="admin-card">
          <h2>Projects</h2>
          <b>{projects.length}</b>
          <span>runs, keys and roles belong to a project</span>
        </Link>
        <Link href="/admin/log" prefetch={false} className="admin-card">
          <h2>Log</h2>
          <b className={chain.ok ? "good" : "bad"}>{chain.ok ? "verified" : `broken at ${chain.brokenAt}`}</b>
          <span>every privileged action: who, when, what and the result, hash-chained</span>
        </Link>
      </div>
    </>
  );
});
