import "server-only";
/** Projects, local accounts and their roles per project (tables Project, User, Membership). */
import { randomUUID } from "node:crypto";
import { ENVIRONMENT, isRole, PROJECT_ID, USER_NAME, type Membership, type Role } from "../../access/roles";
import { looksSecret } from "../../redact";
import type { Db } from "../db";
import { redactorFor } from "../service";
import { hashPassword, passwordProblem } from "./password";

export class AccessError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401 | 403 | 404 | 409 | 429 | 502 = 400,
  ) {
    super(message);
  }
}

interface ProjectRow {
  id: string;
  name: string;
  createdAt: number;
}

interface UserRow {
  id: string;
  name: string;
  passwordHash: string;
  createdAt: number;
  disabledAt: number | null;
}

interface UserListItem {
  id: string;
  name: string;
  createdAt: number;
  disabled: boolean;
  memberships: Record<string, Membership>;
}

export async function listProjects(db: Db): Promise<ProjectRow[]> {
  const rows = await db.sql.all<ProjectRow>(`SELECT "id", "name", "createdAt" FROM "Project" ORDER BY "id"`);
  return rows.map((r) => ({ ...r, createdAt: Number(r.createdAt) }));
}

export async function addProject(db: Db, id: string, name: string): Promise<ProjectRow> {
  if (!PROJECT_ID.test(id))
    throw new AccessError("a project id is lower-case letters, digits and dashes (at most 63), starting with a letter or digit");
  const redactor = await redactorFor(db);
  // an id is used in URLs and keys: refused if it looks like a secret; a name is text, stored redacted
  if (looksSecret(redactor, id)) throw new AccessError("a project id must not look like a secret; choose another");
  const typed = name.trim() || id;
  if (typed.length > 100) throw new AccessError("a project name has at most 100 characters");
  const label = redactor.redactString(typed);
  const now = Date.now();
  const n = await db.sql.transaction((tx) =>
    tx.run(`INSERT INTO "Project" ("id", "name", "createdAt") VALUES (?, ?, ?) ON CONFLICT ("id") DO NOTHING`, [id, label, now]),
  );
  if (n === 0) throw new AccessError(`project "${id}" exists`, 409);
  return { id, name: label, createdAt: now };
}

export async function projectExists(db: Db, id: string): Promise<boolean> {
  return (await db.sql.all(`SELECT 1 FROM "Project" WHERE "id" = ?`, [id])).length > 0;
}

export async function countUsers(db: Db): Promise<number> {
  const rows = await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "User"`);
  return Number(rows[0].n);
}

export async function findUserByName(db: Db, name: string): Promise<UserRow | null> {
  const rows = await db.sql.all<UserRow>(`SELECT * FROM "User" WHERE "name" = ?`, [name]);
  return rows[0]
    ? { ...rows[0], createdAt: Number(rows[0].createdAt), disabledAt: rows[0].disabledAt === null ? null : Number(rows[0].disabledAt) }
    : null;
}

export async function membershipsOf(db: Db, userId: string): Promise<Record<string, Membership>> {
  const rows = await db.sql.all<{ projectId: string; role: string; environments: string }>(
    `SELECT "projectId", "role", "environments" FROM "Membership" WHERE "userId" = ?`,
    [userId],
  );
  const out: Record<string, Membership> = Object.create(null);
  for (const r of rows) if (isRole(r.role)) out[r.projectId] = { role: r.role, environments: r.environments.split(" ").filter(Boolean) };
  return out;
}

/** Environment names are matched against executors' and events': one that looks like a secret is refused. */
async function checkEnvironments(db: Db, envs: readonly string[]): Promise<void> {
  const redactor = await redactorFor(db);
  for (const e of envs) if (looksSecret(redactor, e)) throw new AccessError("an environment name must not look like a secret");
}

export function parseEnvironments(raw: string | readonly string[]): string[] {
  const list = (typeof raw === "string" ? raw.split(/[\s,]+/) : [...raw]).map((e) => e.trim()).filter(Boolean);
  for (const e of list)
    if (!ENVIRONMENT.test(e)) throw new AccessError(`"${e}" is not an environment name (lower-case letters, digits, . _ -)`);
  return [...new Set(list)].sort();
}

export interface NewUser {
  name: string;
  password: string;
  project: string;
  role: Role;
  environments?: readonly string[];
}

export async function addUser(db: Db, u: NewUser): Promise<{ id: string }> {
  if (!USER_NAME.test(u.name))
    throw new AccessError("a user name is letters, digits and . _ @ - (at most 64), starting with a letter or digit");
  // the name signs in: it cannot be stored redacted, so one that looks like a secret is refused
  if (looksSecret(await redactorFor(db), u.name)) throw new AccessError("a user name must not look like a secret; choose another");
  const problem = passwordProblem(u.password);
  if (problem) throw new AccessError(problem);
  if (!(await projectExists(db, u.project))) throw new AccessError(`project "${u.project}" does not exist`, 404);
  const envs = parseEnvironments(u.environments ?? []);
  await checkEnvironments(db, envs);
  const id = randomUUID();
  const hash = await hashPassword(u.password);
  const now = Date.now();
  await db.sql.transaction(async (tx) => {
    const taken = await tx.all(`SELECT 1 FROM "User" WHERE "name" = ?`, [u.name]);
    if (taken.length > 0) throw new AccessError(`user "${u.name}" exists`, 409);
    await tx.run(`INSERT INTO "User" ("id", "name", "passwordHash", "createdAt") VALUES (?, ?, ?, ?)`, [id, u.name, hash, now]);
    await tx.run(`INSERT INTO "Membership" ("userId", "projectId", "role", "environments") VALUES (?, ?, ?, ?)`, [
      id,
      u.project,
      u.role,
      envs.join(" "),
    ]);
  });
  return { id };
}

export async function setPassword(db: Db, userId: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new AccessError(problem);
  const hash = await hashPassword(password);
  await db.sql.transaction(async (tx) => {
    await tx.run(`UPDATE "User" SET "passwordHash" = ? WHERE "id" = ?`, [hash, userId]);
    // a new password ends every session of the account
    await tx.run(`DELETE FROM "Session" WHERE "userId" = ?`, [userId]);
  });
}

/** Grants (or changes) a role in a project; `null` removes the membership. */
export async function setMembership(
  db: Db,
  userId: string,
  project: string,
  role: Role | null,
  environments: readonly string[] = [],
): Promise<void> {
  if (!(await projectExists(db, project))) throw new AccessError(`project "${project}" does not exist`, 404);
  const envs = parseEnvironments(environments);
  await checkEnvironments(db, envs);
  await db.sql.transaction(async (tx) => {
    const user = await tx.all(`SELECT 1 FROM "User" WHERE "id" = ?`, [userId]);
    if (user.length === 0) throw new AccessError("no such user", 404);
    await tx.run(`DELETE FROM "Membership" WHERE "userId" = ? AND "projectId" = ?`, [userId, project]);
    if (role) {
      await tx.run(`INSERT INTO "Membership" ("userId", "projectId", "role", "environments") VALUES (?, ?, ?, ?)`, [
        userId,
        project,
        role,
        envs.join(" "),
      ]);
    }
  });
}

/** Disables (or enables) an account; disabling ends its sessions. */
export async function setDisabled(db: Db, userId: string, disabled: boolean): Promise<void> {
  await db.sql.transaction(async (tx) => {
    const n = await tx.run(`UPDATE "User" SET "disabledAt" = ? WHERE "id" = ?`, [disabled ? Date.now() : null, userId]);
    if (n === 0) throw new AccessError("no such user", 404);
    if (disabled) await tx.run(`DELETE FROM "Session" WHERE "userId" = ?`, [userId]);
  });
}

/** Accounts with their memberships; `projects` limits the list to members of those projects. */
export async function listUsers(db: Db, projects: "all" | readonly string[]): Promise<UserListItem[]> {
  const users = await db.sql.all<UserRow>(`SELECT * FROM "User" ORDER BY "name"`);
  const members = await db.sql.all<{ userId: string; projectId: string; role: string; environments: string }>(`SELECT * FROM "Membership"`);
  const byUser = new Map<string, Record<string, Membership>>();
  for (const m of members) {
    if (!isRole(m.role)) continue;
    const rec = byUser.get(m.userId) ?? Object.create(null);
    rec[m.projectId] = { role: m.role, environments: m.environments.split(" ").filter(Boolean) };
    byUser.set(m.userId, rec);
  }
  return users
    .map((u) => ({
      id: u.id,
      name: u.name,
      createdAt: Number(u.createdAt),
      disabled: u.disabledAt !== null,
      memberships: byUser.get(u.id) ?? {},
    }))
    .filter((u) => projects === "all" || Object.keys(u.memberships).some((p) => projects.includes(p)));
}
