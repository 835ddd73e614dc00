import "server-only";
/**
 * Login rate limiting, kept in the database so every instance counts alike: after
 * ACCOUNT_LIMIT failures for one account, or ADDRESS_LIMIT from one address, within
 * WINDOW_MS, further attempts are refused until the window has passed.
 */
import type { Db } from "../db";

export const WINDOW_MS = 15 * 60_000;
export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

const accountKey = (name: string) => `user:${name.toLowerCase()}`;
const addressKey = (address: string) => `addr:${address}`;

async function failuresOf(db: Db, key: string, now: number): Promise<number> {
  const rows = await db.sql.all<{ failures: number; firstMs: number }>(
    `SELECT "failures", "firstMs" FROM "LoginThrottle" WHERE "key" = ?`,
    [key],
  );
  if (rows.length === 0 || now - Number(rows[0].firstMs) > WINDOW_MS) return 0;
  return Number(rows[0].failures);
}

/** Whether a login for `name` from `address` may be tried now. */
export async function loginAllowed(db: Db, name: string, address: string, now = Date.now()): Promise<boolean> {
  const [account, addr] = await Promise.all([failuresOf(db, accountKey(name), now), failuresOf(db, addressKey(address), now)]);
  return account < ACCOUNT_LIMIT && addr < ADDRESS_LIMIT;
}

export async function recordFailure(db: Db, name: string, address: string, now = Date.now()): Promise<void> {
  await db.sql.transaction(async (tx) => {
    for (const key of [accountKey(name), addressKey(address)]) {
      const rows = await tx.all<{ firstMs: number }>(`SELECT "firstMs" FROM "LoginThrottle" WHERE "key" = ?`, [key]);
      if (rows.length === 0) await tx.run(`INSERT INTO "LoginThrottle" ("key", "failures", "firstMs") VALUES (?, 1, ?)`, [key, now]);
      else if (now - Number(rows[0].firstMs) > WINDOW_MS)
        await tx.run(`UPDATE "LoginThrottle" SET "failures" = 1, "firstMs" = ? WHERE "key" = ?`, [now, key]);
      else await tx.run(`UPDATE "LoginThrottle" SET "failures" = "failures" + 1 WHERE "key" = ?`, [key]);
    }
  });
}

/** A successful login clears its account's count (not the address's: one good password does not excuse a spray). */
export async function recordSuccess(db: Db, name: string): Promise<void> {
  await db.sql.transaction((tx) => tx.run(`DELETE FROM "LoginThrottle" WHERE "key" = ?`, [accountKey(name)]));
}
