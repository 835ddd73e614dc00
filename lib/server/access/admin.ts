import "server-only";
/**
 * What the admin pages do with accounts and projects, and the rules that keep an admin
 * inside the projects they administer: an admin changes only memberships of those
 * projects, never leaves a project without an admin, and disables only accounts that
 * belong to no project beyond their reach.
 */
import { DEFAULT_PROJECT, roleHolds, type KeyScope, type Principal, type Role } from "../../access/roles";
import type { Db } from "../db";
import {
  AccessError,
  addUser,
  findUserByName,
  listProjects,
  membershipsOf,
  parseEnvironments,
  projectExists,
  setDisabled,
  setMembership,
  type NewUser,
} from "./accounts";
import { accessMode, forgetAccessMode } from "./authenticate";
import { createKey } from "./keys";

/** Projects `p` administers: every one in open mode, else those where they hold admin. */
export async function administeredProjects(db: Db, p: Principal): Promise<string[]> {
  if (p.kind === "open") return (await listProjects(db)).map((r) => r.id);
  if (p.kind !== "user") return [];
  return Object.keys(p.memberships)
    .filter((id) => roleHolds(p.memberships[id].role, "project.admin"))
    .sort();
}

interface ProjectSummary {
  id: string;
  name: string;
  createdAt: number;
  members: number;
  admins: number;
  activeKeys: number;
  runs: number;
  /** days a purge keeps unchanged runs; null: forever */
  retentionDays: number | null;
  /** days a purge keeps the payloads of unchanged runs; null: as long as the run */
  payloadDays: number | null;
}

/** Projects `ids` with their counts of members, admins, active keys and runs. */
export async function projectSummaries(db: Db, ids: readonly string[]): Promise<ProjectSummary[]> {
  if (ids.length === 0) return [];
  const marks = ids.map(() => "?").join(", ");
  const count = async (sql: string) => {
    const rows = await db.sql.all<{ id: string; n: number | string }>(sql, [...ids]);
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  };
  const members = await count(
    `SELECT "projectId" AS "id", COUNT(*) AS "n" FROM "Membership" WHERE "projectId" IN (${marks}) GROUP BY "projectId"`,
  );
  const admins = await count(
    `SELECT "projectId" AS "id", COUNT(*) AS "n" FROM "Membership" WHERE "role" = 'admin' AND "projectId" IN (${marks}) GROUP BY "projectId"`,
  );
  const keys = await count(
    `SELECT "projectId" AS "id", COUNT(*) AS "n" FROM "ApiKey" WHERE "revokedMs" IS NULL AND "projectId" IN (${marks}) GROUP BY "projectId"`,
  );
  const runs = await count(`SELECT "projectId" AS "id", COUNT(*) AS "n" FROM "Run" WHERE "projectId" IN (${marks}) GROUP BY "projectId"`);
  const retention = new Map(
    (
      await db.sql.all<{ id: string; retentionDays: number | null; payloadDays: number | null }>(
        `SELECT "id", "retentionDays", "payloadDays" FROM "Project" WHERE "id" IN (${marks})`,
        [...ids],
      )
    ).map((r) => [
      r.id,
      { runs: r.retentionDays === null ? null : Number(r.retentionDays), payloads: r.payloadDays === null ? null : Number(r.payloadDays) },
    ]),
  );
  return (await listProjects(db))
    .filter((r) => ids.includes(r.id))
    .map((r) => ({
      ...r,
      members: members.get(r.id) ?? 0,
      admins: admins.get(r.id) ?? 0,
      activeKeys: keys.get(r.id) ?? 0,
      runs: runs.get(r.id) ?? 0,
      retentionDays: retention.get(r.id)?.runs ?? null,
      payloadDays: retention.get(r.id)?.payloads ?? null,
    }));
}

/** An account's name, or null when there is no such account. */
export async function accountName(db: Db, userId: string): Promise<string | null> {
  const rows = await db.sql.all<{ name: string }>(`SELECT "name" FROM "User" WHERE "id" = ?`, [userId]);
  return rows.length > 0 ? rows[0].name : null;
}

async function userName(db: Db, userId: string): Promise<string> {
  const name = await accountName(db, userId);
  if (name === null) throw new AccessError("no such user", 404);
  return name;
}

async function adminCount(db: Db, project: string): Promise<number> {
  const rows = await db.sql.all<{ n: number | string }>(
    `SELECT COUNT(*) AS "n" FROM "Membership" WHERE "projectId" = ? AND "role" = 'admin'`,
    [project],
  );
  return Number(rows[0].n);
}

/**
 * Changes a member's role and environments in `project` (`role` null removes them). The
 * user must be a member already (granting an outsider is `addMember`), and the last admin
 * of a project stays one: without an admin nobody could manage it from the web.
 */
export async function changeMembership(
  db: Db,
  change: { project: string; userId: string; role: Role | null; environments: readonly string[] },
): Promise<{ name: string; before: Role }> {
  const name = await userName(db, change.userId);
  const before = (await membershipsOf(db, change.userId))[change.project];
  if (!before) throw new AccessError(`${name} is not a member of project "${change.project}"`, 404);
  if (before.role === "admin" && change.role !== "admin" && (await adminCount(db, change.project)) <= 1) {
    throw new AccessError(`${name} is the last admin of project "${change.project}"; make another member admin first`, 409);
  }
  await setMembership(db, change.userId, change.project, change.role, change.environments);
  return { name, before: before.role };
}

/** Adds an existing account to `project` with a role. */
export async function addMember(
  db: Db,
  m: { project: string; name: string; role: Role; environments: readonly string[] },
): Promise<{ userId: string }> {
  if (!(await projectExists(db, m.project))) throw new AccessError(`project "${m.project}" does not exist`, 404);
  const user = await findUserByName(db, m.name);
  if (!user) throw new AccessError(`there is no account named "${m.name}"; create it with a password instead`, 404);
  if ((await membershipsOf(db, user.id))[m.project])
    throw new AccessError(`${m.name} is already a member of project "${m.project}"; change the role in the list`, 409);
  await setMembership(db, user.id, m.project, m.role, parseEnvironments(m.environments));
  return { userId: user.id };
}

/**
 * Disables or enables an account on behalf of `actor`. An account spans projects, so only
 * someone who administers every project it belongs to may lock it out (else the admin of
 * a small project could lock out the admin of another); nobody disables themselves.
 */
export async function setAccountDisabled(
  db: Db,
  actor: Principal,
  change: { project: string; userId: string; disabled: boolean },
): Promise<{ name: string }> {
  const name = await userName(db, change.userId);
  const theirs = Object.keys(await membershipsOf(db, change.userId));
  if (!theirs.includes(change.project)) throw new AccessError(`${name} is not a member of project "${change.project}"`, 404);
  if (actor.kind === "user" && actor.id === change.userId && change.disabled)
    throw new AccessError("you cannot disable your own account", 409);
  const mine = await administeredProjects(db, actor);
  const beyond = theirs.filter((p) => !mine.includes(p));
  if (beyond.length > 0)
    throw new AccessError(
      `${name} also belongs to ${beyond.length === 1 ? "a project" : `${beyond.length} projects`} you do not administer; ask an admin of every project ${name} is in`,
      409,
    );
  await setDisabled(db, change.userId, change.disabled);
  return { name };
}

/**
 * Adds an account from the web. In open mode (no accounts yet) the first account locks the
 * server, so it must be an admin of the default project: anything less would leave a
 * locked server nobody can manage from the web.
 */
export async function addAccount(db: Db, u: NewUser): Promise<{ id: string; locked: boolean }> {
  const wasOpen = (await accessMode(db)) === "open";
  if (wasOpen && (u.role !== "admin" || u.project !== DEFAULT_PROJECT))
    throw new AccessError(
      `the first account must be an admin of project "${DEFAULT_PROJECT}": once it exists every page needs a sign-in, and someone must be able to manage the server`,
    );
  const r = await addUser(db, u);
  if (wasOpen) forgetAccessMode(db);
  return { id: r.id, locked: wasOpen };
}

/**
 * Creates an API key from the web. Not in open mode: the first key locks the server, and
 * with no account nobody could sign in to see or revoke it.
 */
export async function addKey(
  db: Db,
  k: { project: string; name: string; scope: KeyScope; createdBy: string },
): Promise<{ id: string; key: string }> {
  if ((await accessMode(db)) === "open")
    throw new AccessError(
      "add an admin account first: a key locks the server, and with no account nobody could sign in to manage keys",
      409,
    );
  return createKey(db, k);
}
