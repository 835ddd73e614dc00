/**
 * lib/access/roles.ts against the policy in issue 13, stated here by hand: viewer reads,
 * reviewer also writes runs, notes and exports audits, operator also acts live (only on
 * its granted environments), admin also administers; a project the principal is not in
 * answers 404; an ingest key writes only, a read key reads only, each in its own project;
 * a static admin key reads and writes every project.
 */
import { describe, expect, it } from "vitest";
import { decide, readableProjects, type Permission, type Principal, type Role } from "@/lib/access/roles";

const user = (memberships: Record<string, { role: Role; environments?: string[] }>): Principal => ({
  kind: "user",
  id: "u1",
  name: "ann",
  memberships: Object.fromEntries(Object.entries(memberships).map(([p, m]) => [p, { role: m.role, environments: m.environments ?? [] }])),
});
const key = (scope: "ingest" | "read" | "admin", project = "default", isStatic = false): Principal => ({
  kind: "key",
  id: "k1",
  name: "ci",
  scope,
  project,
  static: isStatic,
});
const status = (p: Principal, perm: Permission, project = "default", env?: string) => {
  const d = decide(p, perm, project, env);
  return d.ok ? 200 : d.status;
};

const PERMS: Permission[] = ["runs.read", "runs.write", "notes.write", "audit.export", "live.act", "project.admin"];

describe("decide: roles in a project", () => {
  // rows: role; columns: PERMS in order; live.act asked on an environment the member holds
  const table: Record<Role, number[]> = {
    viewer: [200, 403, 403, 403, 403, 403],
    reviewer: [200, 200, 200, 200, 403, 403],
    operator: [200, 200, 200, 200, 200, 403],
    admin: [200, 200, 200, 200, 200, 200],
  };
  for (const [role, expected] of Object.entries(table) as [Role, number[]][]) {
    it(`${role}: ${expected.join(" ")}`, () => {
      const p = user({ default: { role, environments: ["sandbox"] } });
      expect(PERMS.map((perm) => status(p, perm, "default", "sandbox"))).toEqual(expected);
    });
  }

  it("an operator acts only on the environments granted to it", () => {
    const sandbox = user({ default: { role: "operator", environments: ["sandbox"] } });
    expect(status(sandbox, "live.act", "default", "sandbox")).toBe(200);
    expect(status(sandbox, "live.act", "default", "production")).toBe(403);
    expect(status(sandbox, "live.act", "default")).toBe(403);
    const none = user({ default: { role: "operator" } });
    expect(status(none, "live.act", "default", "sandbox")).toBe(403);
  });

  it("a role in one project gives nothing in another, and the other answers 404", () => {
    const p = user({ "team-b": { role: "admin", environments: ["production"] } });
    for (const perm of PERMS) expect(status(p, perm, "default", "production")).toBe(404);
    expect(status(p, "project.admin", "team-b")).toBe(200);
  });

  it("the refusal names the role needed and the project", () => {
    const d = decide(user({ default: { role: "viewer" } }), "notes.write", "default");
    expect(d).toMatchObject({ ok: false, status: 403 });
    expect(!d.ok && d.message).toContain("reviewer");
    expect(!d.ok && d.message).toContain('"default"');
  });

  it("anonymous is 401 for every permission; open mode allows every one", () => {
    for (const perm of PERMS) {
      expect(status({ kind: "anonymous" }, perm)).toBe(401);
      expect(status({ kind: "open" }, perm, "any-project", "production")).toBe(200);
    }
  });
});

describe("decide: API keys", () => {
  it("an ingest key writes runs in its project and reads nothing", () => {
    expect(PERMS.map((perm) => status(key("ingest"), perm))).toEqual([403, 200, 403, 403, 403, 403]);
  });
  it("a read key reads runs in its project and writes nothing", () => {
    expect(PERMS.map((perm) => status(key("read"), perm))).toEqual([200, 403, 403, 403, 403, 403]);
  });
  it("a key is 404 outside its project", () => {
    for (const scope of ["ingest", "read"] as const) for (const perm of PERMS) expect(status(key(scope, "team-b"), perm)).toBe(404);
  });
  it("a static admin key reads and writes every project, and does nothing else", () => {
    const k = key("admin", "default", true);
    for (const project of ["default", "team-b"])
      expect(PERMS.map((perm) => status(k, perm, project))).toEqual([200, 200, 403, 403, 403, 403]);
  });
  it("static ingest and read keys act on the default project only", () => {
    expect(status(key("ingest", "default", true), "runs.write", "default")).toBe(200);
    expect(status(key("ingest", "default", true), "runs.write", "team-b")).toBe(404);
    expect(status(key("read", "default", true), "runs.read", "team-b")).toBe(404);
  });
});

describe("readableProjects", () => {
  it("a user reads every project they hold a role in, and no other", () => {
    const p = user({ default: { role: "viewer" }, "team-b": { role: "admin" } });
    expect([...(readableProjects(p) as string[])].sort()).toEqual(["default", "team-b"]);
    expect(readableProjects(user({}))).toEqual([]);
  });
  it("an ingest key reads nothing; a read key its project; a static admin key all", () => {
    expect(readableProjects(key("ingest", "team-b"))).toEqual([]);
    expect(readableProjects(key("read", "team-b"))).toEqual(["team-b"]);
    expect(readableProjects(key("admin", "default", true))).toBe("all");
  });
  it("anonymous reads nothing; open mode reads all", () => {
    expect(readableProjects({ kind: "anonymous" })).toEqual([]);
    expect(readableProjects({ kind: "open" })).toBe("all");
  });
});
