import "server-only";
/**
 * Who is asking: a bearer key (Authorization header), a session cookie, or nobody. With
 * no accounts and no keys at all the server is in open mode (the quick start), where
 * everyone on a loopback address may do everything; otherwise it is locked.
 */
import type { Principal } from "../../access/roles";
import type { Db } from "../db";
import { countUsers, findUserByName, membershipsOf } from "./accounts";
import { countActiveKeys, parseStaticKeys, principalOfKey } from "./keys";
import { findSession } from "./sessions";

export type AccessMode = "open" | "locked";

const modes = new WeakMap<Db, { mode: AccessMode; at: number }>();
// "locked" is kept for the process's life (removing every account does not silently reopen
// a server); "open" is rechecked this often, so the first account locks every instance
const OPEN_RECHECK_MS = 1000;

export async function accessMode(db: Db, env: Record<string, string | undefined> = process.env): Promise<AccessMode> {
  const cached = modes.get(db);
  if (cached && (cached.mode === "locked" || Date.now() - cached.at < OPEN_RECHECK_MS)) return cached.mode;
  const locked = parseStaticKeys(env.RETRACE_TOKENS).length > 0 || (await countUsers(db)) > 0 || (await countActiveKeys(db)) > 0;
  const mode: AccessMode = locked ? "locked" : "open";
  modes.set(db, { mode, at: Date.now() });
  return mode;
}

/** Forget the cached mode (tests that add the first account and look again at once). */
export function forgetAccessMode(db: Db): void {
  modes.delete(db);
}

export interface Credentials {
  authorization: string | null;
  session: string | undefined;
}

export interface Authenticated {
  principal: Principal;
  /** how: open mode, a session cookie (ambient: state changes need a same-origin check), a key, or nothing */
  via: "open" | "session" | "key" | "none";
  /** a credential was sent and is not valid */
  invalid?: string;
  /** the session's id (its digest), for logout */
  sessionId?: string;
}

export async function authenticate(
  db: Db,
  creds: Credentials,
  env: Record<string, string | undefined> = process.env,
): Promise<Authenticated> {
  if ((await accessMode(db, env)) === "open") return { principal: { kind: "open" }, via: "open" };
  const anonymous: Principal = { kind: "anonymous" };
  if (creds.authorization !== null) {
    const key = bearerOrBasicKey(creds.authorization);
    if (key === null) return { principal: anonymous, via: "none", invalid: "send Authorization: Bearer <key>" };
    const p = await principalOfKey(db, key, env);
    return p ? { principal: p, via: "key" } : { principal: anonymous, via: "none", invalid: "unknown or revoked key" };
  }
  if (creds.session) {
    const s = await findSession(db, creds.session);
    if (s) {
      const user = await userPrincipal(db, s.userId);
      if (user) return { principal: user, via: "session", sessionId: s.id };
    }
  }
  return { principal: anonymous, via: "none" };
}

export async function userPrincipal(db: Db, userId: string): Promise<Principal | null> {
  const rows = await db.sql.all<{ id: string; name: string }>(`SELECT "id", "name" FROM "User" WHERE "id" = ? AND "disabledAt" IS NULL`, [
    userId,
  ]);
  if (rows.length === 0) return null;
  return { kind: "user", id: rows[0].id, name: rows[0].name, memberships: await membershipsOf(db, userId) };
}

export { findUserByName };

/**
 * The key an Authorization header carries: `Bearer <key>`, or `Basic base64(user:key)` as
 * the Langfuse SDK sends its public and secret key (the Retrace key is the secret key).
 */
export function bearerOrBasicKey(header: string): string | null {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header);
  if (!basic) return null;
  const text = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = text.indexOf(":");
  const key = colon >= 0 ? text.slice(colon + 1) : "";
  return /^\S+$/.test(key) ? key : null;
}
