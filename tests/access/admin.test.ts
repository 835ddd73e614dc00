/**
 * The admin pages' rules (lib/server/access/admin.ts) and the privileged-action log's
 * paging, on both databases: an admin stays inside the projects they administer, no
 * project loses its last admin, and open mode's first account is one that can manage
 * the server it locks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import type { Db } from "@/lib/server/db";
import { addProject, addUser, membershipsOf } from "@/lib/server/access/accounts";
import { addAccount, addKey, addMember, administeredProjects, changeMembership, setAccountDisabled } from "@/lib/server/access/admin";
import { appendAudit, listAudit } from "@/lib/server/access/audit-log";
import { accessMode, userPrincipal } from "@/lib/server/access/authenticate";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "correct horse battery";

describe.each(DIALECTS)("admin rules on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  const principal = (id: string): Promise<Principal | null> => userPrincipal(db, id);

  it("open mode: the first account must be an admin of default, and it locks the server", async () => {
    expect(await accessMode(db, {})).toBe("open");
    await expect(addAccount(db, { name: "vic", password: PASSWORD, project: "default", role: "viewer" })).rejects.toThrow(
      /first account must be an admin of project "default"/,
    );
    await expect(addKey(db, { project: "default", name: "ci", scope: "read", createdBy: "open mode" })).rejects.toThrow(
      /add an admin account first/,
    );
    const r = await addAccount(db, { name: "root", password: PASSWORD, project: "default", role: "admin" });
    expect(r.locked).toBe(true);
    expect(await accessMode(db, {})).toBe("locked");
    // once locked, any role goes
    expect((await addAccount(db, { name: "vic", password: PASSWORD, project: "default", role: "viewer" })).locked).toBe(false);
  });

  it("the last admin of a project cannot be demoted or removed", async () => {
    await addProject(db, "alpha", "Alpha");
    const { id: a1 } = await addUser(db, { name: "alice", password: PASSWORD, project: "alpha", role: "admin" });
    await expect(changeMembership(db, { project: "alpha", userId: a1, role: "viewer", environments: [] })).rejects.toThrow(/last admin/);
    await expect(changeMembership(db, { project: "alpha", userId: a1, role: null, environments: [] })).rejects.toThrow(/last admin/);
    const { id: a2 } = await addUser(db, { name: "amos", password: PASSWORD, project: "alpha", role: "admin" });
    await changeMembership(db, { project: "alpha", userId: a1, role: "operator", environments: ["sandbox"] });
    expect((await membershipsOf(db, a1)).alpha).toEqual({ role: "operator", environments: ["sandbox"] });
    await expect(changeMembership(db, { project: "alpha", userId: a2, role: null, environments: [] })).rejects.toThrow(/last admin/);
  });

  it("changes only memberships that exist, and adds existing accounts by name", async () => {
    await addProject(db, "beta", "");
    const { id } = await addUser(db, { name: "bo", password: PASSWORD, project: "beta", role: "viewer" });
    // a member of beta only: alpha's admin cannot "change" bo's role in alpha into being
    await expect(changeMembership(db, { project: "alpha", userId: id, role: "admin", environments: [] })).rejects.toThrow(
      /not a member of project "alpha"/,
    );
    await expect(addMember(db, { project: "alpha", name: "nobody", role: "viewer", environments: [] })).rejects.toThrow(/no account named/);
    await addMember(db, { project: "alpha", name: "bo", role: "reviewer", environments: [] });
    expect(Object.keys(await membershipsOf(db, id)).sort()).toEqual(["alpha", "beta"]);
    await expect(addMember(db, { project: "alpha", name: "bo", role: "viewer", environments: [] })).rejects.toThrow(/already a member/);
  });

  it("an admin disables only accounts wholly inside the projects they administer, never their own", async () => {
    const { id: adminId } = await addUser(db, { name: "al2", password: PASSWORD, project: "alpha", role: "admin" });
    const al2 = (await principal(adminId))!;
    expect(await administeredProjects(db, al2)).toEqual(["alpha"]);
    // vic is in default too, which al2 does not administer
    const { userId: vic } = await addMember(db, { project: "alpha", name: "vic", role: "viewer", environments: [] });
    await expect(setAccountDisabled(db, al2, { project: "alpha", userId: vic, disabled: true })).rejects.toThrow(
      /belongs to a project you do not administer/,
    );
    expect(await principal(vic)).not.toBeNull();
    const { id: solo } = await addUser(db, { name: "solo", password: PASSWORD, project: "alpha", role: "viewer" });
    await setAccountDisabled(db, al2, { project: "alpha", userId: solo, disabled: true });
    expect(await principal(solo)).toBeNull();
    await setAccountDisabled(db, al2, { project: "alpha", userId: solo, disabled: false });
    expect((await principal(solo))?.kind).toBe("user");
    await expect(setAccountDisabled(db, al2, { project: "alpha", userId: adminId, disabled: true })).rejects.toThrow(/your own account/);
  });

  it("the log lists a full page of one project's entries however many others come between", async () => {
    await appendAudit(db, { actor: "test", action: "a.beta", project: "beta", target: "old", result: "ok" });
    for (let i = 0; i < 25; i++)
      await appendAudit(db, { actor: "test", action: "a.alpha", project: "alpha", target: `n${i}`, result: "ok" });
    const page = await listAudit(db, { projects: ["beta"], limit: 2 });
    expect(page.map((e) => e.target)).toEqual(["old"]);
    const alpha = await listAudit(db, { projects: ["alpha"], limit: 10 });
    expect(alpha).toHaveLength(10);
    const older = await listAudit(db, { projects: ["alpha"], limit: 10, before: alpha[9].seq });
    expect(older[0].seq).toBeLessThan(alpha[9].seq);
    expect(new Set([...alpha, ...older].map((e) => e.seq)).size).toBe(20);
    expect(await listAudit(db, { projects: [] })).toEqual([]);
  });
});
