import { AddUserForm } from "@/components/admin/add-user-form";
import { UsersTable, type AdminUser } from "@/components/admin/users-table";
import { listUsers } from "@/lib/server/access/accounts";
import { administeredProjects } from "@/lib/server/access/admin";
import { currentProjectFor, page } from "@/lib/server/edge";

export const dynamic = "force-dynamic";
export const metadata = { title: "Users · Admin · Retrace" };

/** Accounts of the projects the viewer administers, with their roles there (and only there). */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal, mode }) => {
  const projects = await administeredProjects(db, principal);
  const users: AdminUser[] = (await listUsers(db, projects)).map((u) => ({
    id: u.id,
    name: u.name,
    createdAt: u.createdAt,
    disabled: u.disabled,
    memberships: Object.entries(u.memberships)
      .filter(([p]) => projects.includes(p))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([project, m]) => ({ project, role: m.role, environments: [...m.environments] })),
  }));
  return (
    <>
      <header className="admin-head">
        <h1>Users</h1>
        <p>
          Roles are per project: <b>viewer</b> reads runs, <b>reviewer</b> also uploads, writes notes and exports audits, <b>operator</b>{" "}
          also takes live actions in the environments listed, <b>admin</b> also manages users, keys and settings.
        </p>
      </header>
      <AddUserForm projects={projects} current={await currentProjectFor(principal)} firstAccount={mode === "open"} />
      <UsersTable users={users} selfId={principal.kind === "user" ? principal.id : null} />
    </>
  );
});
