import "server-only";
/**
 * Server-side sessions: the cookie holds a random token, the table its SHA-256. A login
 * always makes a new session (no fixation), logout deletes it, and one idle for longer
 * than RETRACE_SESSION_IDLE_MINUTES (default 60) is dead.
 */
import type { Db } from "../db";
import { digest, newToken } from "./tokens";

export const SESSION_COOKIE = "retrace_session";

export function idleLimitMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.RETRACE_SESSION_IDLE_MINUTES;
  const minutes = raw === undefined || raw === "" ? 60 : Number(raw);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`RETRACE_SESSION_IDLE_MINUTES must be a positive number, got "${raw}"`);
  return minutes * 60_000;
}

// lastSeen is written at most this often: a page load makes several requests
const TOUCH_MS = 30_000;

export async function createSession(db: Db, userId: string, now = Date.now()): Promise<string> {
  const token = newToken();
  await db.sql.transaction((tx) =>
    tx.run(`INSERT INTO "Session" ("id", "userId", "createdMs", "lastSeenMs") VALUES (?, ?, ?, ?)`, [digest(token), userId, now, now]),
  );
  return token;
}

interface LiveSession {
  id: string;
  userId: string;
}

/** The session a cookie names, if it is alive (touching it); an expired one is deleted. */
export async function findSession(db: Db, token: string, now = Date.now(), idleMs = idleLimitMs()): Promise<LiveSession | null> {
  if (!token || token.length > 200) return null;
  const id = digest(token);
  const rows = await db.sql.all<{ userId: string; lastSeenMs: number }>(
    `SELECT s."userId", s."lastSeenMs" FROM "Session" s JOIN "User" u ON u."id" = s."userId" WHERE s."id" = ? AND u."disabledAt" IS NULL`,
    [id],
  );
  if (rows.length === 0) return null;
  const last = Number(rows[0].lastSeenMs);
  if (now - last > idleMs) {
    await endSession(db, token);
    return null;
  }
  if (now - last > TOUCH_MS) await db.sql.transaction((tx) => tx.run(`UPDATE "Session" SET "lastSeenMs" = ? WHERE "id" = ?`, [now, id]));
  return { id, userId: rows[0].userId };
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.sql.transaction((tx) => tx.run(`DELETE FROM "Session" WHERE "id" = ?`, [digest(token)]));
}
