import "server-only";
/**
 * Signing in and the one-time setup link. A login says only "wrong name or password",
 * whichever it was, costs the same time either way, and is refused while the account or
 * the address is over its failure limit.
 */
import type { Db } from "../db";
import { AccessError, addUser, countUsers, findUserByName } from "./accounts";
import { burnVerify, passwordProblem, verifyPassword } from "./password";
import { createSession, endSession } from "./sessions";
import { loginAllowed, recordFailure, recordSuccess } from "./throttle";
import { digest, newToken } from "./tokens";
import { appendAudit } from "./audit-log";
import { forgetAccessMode } from "./authenticate";
import { DEFAULT_PROJECT, USER_NAME } from "../../access/roles";

type LoginResult = { ok: true; token: string; userId: string } | { ok: false; status: 401 | 429; message: string };

export const WRONG_LOGIN = "wrong name or password";
export const THROTTLED = "too many failed sign-ins; wait 15 minutes and try again";

export async function login(db: Db, name: string, password: string, address: string, previousToken?: string): Promise<LoginResult> {
  if (!(await loginAllowed(db, name, address))) {
    await burnVerify(password);
    return { ok: false, status: 429, message: THROTTLED };
  }
  const user = await findUserByName(db, name);
  const good = user && user.disabledAt === null ? await verifyPassword(password, user.passwordHash) : (await burnVerify(password), false);
  if (!good || !user) {
    await recordFailure(db, name, address);
    return { ok: false, status: 401, message: WRONG_LOGIN };
  }
  await recordSuccess(db, name);
  // a session named by a cookie sent before the login is never the one after it
  if (previousToken) await endSession(db, previousToken);
  return { ok: true, token: await createSession(db, user.id), userId: user.id };
}

const SETUP_KEY = "setup-token";

/**
 * A setup link for a server with no accounts: a random token whose digest is kept in the
 * Setting table; the link makes the first admin once. Returns null when accounts exist.
 */
export async function issueSetupToken(db: Db): Promise<string | null> {
  if ((await countUsers(db)) > 0) return null;
  const token = newToken();
  await db.sql.transaction(async (tx) => {
    await tx.run(`DELETE FROM "Setting" WHERE "key" = ?`, [SETUP_KEY]);
    await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?)`, [SETUP_KEY, digest(token)]);
  });
  return token;
}

async function setupTokenValid(db: Db, token: string): Promise<boolean> {
  if (!token || (await countUsers(db)) > 0) return false;
  const rows = await db.sql.all<{ value: string }>(`SELECT "value" FROM "Setting" WHERE "key" = ?`, [SETUP_KEY]);
  return rows.length > 0 && rows[0].value === digest(token);
}

/** Makes the first admin through the setup link; the link dies with it. */
export async function completeSetup(db: Db, token: string, name: string, password: string): Promise<{ token: string } | null> {
  if (!(await setupTokenValid(db, token))) return null;
  // what addUser would refuse is refused before the one-time token is spent
  const problem = passwordProblem(password) ?? (USER_NAME.test(name) ? null : "a user name is letters, digits and . _ @ - (at most 64)");
  if (problem) throw new AccessError(problem);
  // the token is taken in one statement, so two uses at once make one admin, not two
  const taken = await db.sql.transaction((tx) =>
    tx.run(`DELETE FROM "Setting" WHERE "key" = ? AND "value" = ?`, [SETUP_KEY, digest(token)]),
  );
  if (taken !== 1) return null;
  const { id } = await addUser(db, { name, password, project: DEFAULT_PROJECT, role: "admin" });
  forgetAccessMode(db);
  await appendAudit(db, {
    actor: `user:${name}`,
    action: "user.add",
    project: DEFAULT_PROJECT,
    target: name,
    result: "ok",
    detail: { role: "admin", via: "setup link" },
  });
  return { token: await createSession(db, id) };
}
