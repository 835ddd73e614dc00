import "server-only";
/**
 * API keys for agents, exporters and CI: stored as SHA-256, shown once, per project,
 * scoped ingest (write-only) or read, revocable, last use recorded. Static keys from
 * RETRACE_TOKENS ("name:scope:token,…") work beside them.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { DEFAULT_PROJECT, KEY_SCOPES, STATIC_SCOPES, type KeyScope, type Principal, type StaticScope } from "../../access/roles";
import type { Db } from "../db";
import { redactorFor } from "../service";
import { AccessError, projectExists } from "./accounts";
import { digest, newToken } from "./tokens";

const KEY_PREFIX = "rtk_";
const TOUCH_MS = 60_000;

interface KeyListItem {
  id: string;
  projectId: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  createdMs: number;
  createdBy: string;
  lastUsedMs: number | null;
  revokedMs: number | null;
}

interface StaticKey {
  name: string;
  scope: StaticScope;
  token: Buffer;
}

export function parseStaticKeys(raw: string | undefined): StaticKey[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, scope, ...rest] = entry.split(":");
      const token = rest.join(":");
      if (!name || token.length < 16 || !(STATIC_SCOPES as readonly string[]).includes(scope)) {
        // the entry is not echoed: it holds the token
        throw new Error(
          `RETRACE_TOKENS: each entry must be name:scope:token with scope ingest, read or admin and a token of at least 16 characters`,
        );
      }
      return { name, scope: scope as StaticScope, token: Buffer.from(token) };
    });
}

export async function createKey(
  db: Db,
  k: { project: string; name: string; scope: KeyScope; createdBy: string },
): Promise<{ id: string; key: string }> {
  if (!(KEY_SCOPES as readonly string[]).includes(k.scope)) throw new AccessError("a key's scope is ingest or read");
  const name = k.name.trim();
  if (!/^[\w .@-]{1,64}$/.test(name)) throw new AccessError("a key name is 1 to 64 letters, digits, spaces and . _ @ -");
  if (!(await projectExists(db, k.project))) throw new AccessError(`project "${k.project}" does not exist`, 404);
  // a name is free text: a secret typed into it is stored (and listed) as its placeholder
  const stored = (await redactorFor(db)).redactString(name);
  const key = newToken(KEY_PREFIX);
  const id = randomUUID();
  await db.sql.transaction((tx) =>
    tx.run(
      `INSERT INTO "ApiKey" ("id", "projectId", "name", "scope", "hash", "prefix", "createdMs", "createdBy") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, k.project, stored, k.scope, digest(key), key.slice(0, KEY_PREFIX.length + 6), Date.now(), k.createdBy],
    ),
  );
  return { id, key };
}

export async function revokeKey(db: Db, id: string, projects: "all" | readonly string[]): Promise<KeyListItem> {
  const key = (await listKeys(db, projects)).find((k) => k.id === id);
  if (!key) throw new AccessError("no such key", 404);
  if (key.revokedMs === null)
    await db.sql.transaction((tx) => tx.run(`UPDATE "ApiKey" SET "revokedMs" = ? WHERE "id" = ?`, [Date.now(), id]));
  return key;
}

export async function listKeys(db: Db, projects: "all" | readonly string[]): Promise<KeyListItem[]> {
  const rows = await db.sql.all<KeyListItem>(
    `SELECT "id", "projectId", "name", "scope", "prefix", "createdMs", "createdBy", "lastUsedMs", "revokedMs" FROM "ApiKey" ORDER BY "createdMs" DESC`,
  );
  const n = (v: number | null) => (v === null ? null : Number(v));
  return rows
    .filter((r) => projects === "all" || projects.includes(r.projectId))
    .map((r) => ({ ...r, createdMs: Number(r.createdMs), lastUsedMs: n(r.lastUsedMs), revokedMs: n(r.revokedMs) }));
}

export async function countActiveKeys(db: Db): Promise<number> {
  const rows = await db.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "ApiKey" WHERE "revokedMs" IS NULL`);
  return Number(rows[0].n);
}

/** The principal a bearer token stands for, or null when it is no live key. */
export async function principalOfKey(
  db: Db,
  token: string,
  env: Record<string, string | undefined> = process.env,
): Promise<Principal | null> {
  const given = Buffer.from(token);
  for (const s of parseStaticKeys(env.RETRACE_TOKENS)) {
    if (s.token.length === given.length && timingSafeEqual(s.token, given)) {
      return { kind: "key", id: `static:${s.name}`, name: s.name, scope: s.scope, project: DEFAULT_PROJECT, static: true };
    }
  }
  if (!token.startsWith(KEY_PREFIX) || token.length > 200) return null;
  const rows = await db.sql.all<{ id: string; projectId: string; name: string; scope: string; lastUsedMs: number | null }>(
    `SELECT "id", "projectId", "name", "scope", "lastUsedMs" FROM "ApiKey" WHERE "hash" = ? AND "revokedMs" IS NULL`,
    [digest(token)],
  );
  const k = rows[0];
  if (!k || !(KEY_SCOPES as readonly string[]).includes(k.scope)) return null;
  const now = Date.now();
  if (k.lastUsedMs === null || now - Number(k.lastUsedMs) > TOUCH_MS) {
    await db.sql.transaction((tx) => tx.run(`UPDATE "ApiKey" SET "lastUsedMs" = ? WHERE "id" = ?`, [now, k.id]));
  }
  return { kind: "key", id: k.id, name: k.name, scope: k.scope as KeyScope, project: k.projectId, static: false };
}
