/**
 * lib/server/access on both databases: sessions die when idle (time injected), login
 * throttling counts per account and per address within a window, keys are stored hashed,
 * record their last use and stop working when revoked, and the privileged-action log stays
 * one unbroken chain when many appends race (several "instances" on one database).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, setDisabled, setPassword } from "@/lib/server/access/accounts";
import { appendAudit, listAudit, verifyAudit } from "@/lib/server/access/audit-log";
import { createKey, countActiveKeys, listKeys, principalOfKey, revokeKey } from "@/lib/server/access/keys";
import { login, THROTTLED, WRONG_LOGIN } from "@/lib/server/access/login";
import { createSession, endSession, findSession, idleLimitMs } from "@/lib/server/access/sessions";
import { ACCOUNT_LIMIT, ADDRESS_LIMIT, loginAllowed, recordFailure, recordSuccess, WINDOW_MS } from "@/lib/server/access/throttle";
import type { Db } from "@/lib/server/db";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "correct horse battery";
const MIN = 60_000;

describe.each(DIALECTS)("access storage on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let userId: string;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    await db.sql.transaction((tx) => tx.run(`INSERT INTO "Project" ("id", "name", "createdAt") VALUES ('team-b', 'team-b', 0)`));
    userId = (await addUser(db, { name: "ann", password: PASSWORD, project: "default", role: "viewer" })).id;
  });
  afterAll(async () => t.cleanup());

  describe("sessions", () => {
    const IDLE = 60 * MIN;
    it("a session lives while used within the idle limit and dies after it", async () => {
      const t0 = 1_000_000_000_000;
      const token = await createSession(db, userId, t0);
      expect(await findSession(db, token, t0 + 40 * MIN, IDLE)).toMatchObject({ userId });
      // the use at +40 min moved its idle clock: +90 min is 50 idle minutes
      expect(await findSession(db, token, t0 + 90 * MIN, IDLE)).toMatchObject({ userId });
      expect(await findSession(db, token, t0 + 151 * MIN, IDLE)).toBeNull();
      // dead for good: it was deleted, so an earlier clock does not revive it
      expect(await findSession(db, token, t0 + 100 * MIN, IDLE)).toBeNull();
    });

    it("an unused session dies once idle for longer than the limit", async () => {
      const t0 = 1_000_000_000_000;
      const token = await createSession(db, userId, t0);
      expect(await findSession(db, token, t0 + IDLE, IDLE)).not.toBeNull();
      expect(await findSession(db, token, t0 + 2 * IDLE + 1, IDLE)).toBeNull();
    });

    it("logout, a new password and disabling the account each end sessions", async () => {
      const now = Date.now();
      const a = await createSession(db, userId, now);
      await endSession(db, a);
      expect(await findSession(db, a, now, IDLE)).toBeNull();

      const b = await createSession(db, userId, now);
      await setPassword(db, userId, PASSWORD);
      expect(await findSession(db, b, now, IDLE)).toBeNull();

      const c = await createSession(db, userId, now);
      await setDisabled(db, userId, true);
      expect(await findSession(db, c, now, IDLE)).toBeNull();
      await setDisabled(db, userId, false);
      expect(await findSession(db, c, now, IDLE)).toBeNull();
    });

    it("the table keeps a digest, not the cookie's token", async () => {
      const token = await createSession(db, userId);
      const rows = await db.sql.all<{ id: string }>(`SELECT "id" FROM "Session"`);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.id).not.toBe(token);
    });

    it("RETRACE_SESSION_IDLE_MINUTES: minutes, fractions allowed, nonsense refused", () => {
      expect(idleLimitMs({})).toBe(60 * MIN);
      expect(idleLimitMs({ RETRACE_SESSION_IDLE_MINUTES: "0.05" })).toBe(3000);
      expect(() => idleLimitMs({ RETRACE_SESSION_IDLE_MINUTES: "0" })).toThrow(/positive/);
      expect(() => idleLimitMs({ RETRACE_SESSION_IDLE_MINUTES: "soon" })).toThrow(/positive/);
    });
  });

  describe("login throttling", () => {
    const t0 = 2_000_000_000_000;
    it("an account is refused after its failure limit, from any address, until the window has passed", async () => {
      for (let i = 0; i < ACCOUNT_LIMIT; i++) {
        expect(await loginAllowed(db, "bob", `10.0.0.${i}`, t0 + i)).toBe(true);
        await recordFailure(db, "bob", `10.0.0.${i}`, t0 + i);
      }
      expect(await loginAllowed(db, "bob", "10.9.9.9", t0 + 10)).toBe(false);
      // names differ only in case: the same account
      expect(await loginAllowed(db, "BOB", "10.9.9.9", t0 + 10)).toBe(false);
      expect(await loginAllowed(db, "carol", "10.0.0.1", t0 + 10)).toBe(true);
      expect(await loginAllowed(db, "bob", "10.9.9.9", t0 + WINDOW_MS + 1)).toBe(true);
    });

    it("an address is refused after its limit, whatever name it tries", async () => {
      for (let i = 0; i < ADDRESS_LIMIT; i++) await recordFailure(db, `spray-${i}`, "10.1.1.1", t0);
      expect(await loginAllowed(db, "never-tried", "10.1.1.1", t0 + 1)).toBe(false);
      expect(await loginAllowed(db, "never-tried", "10.1.1.2", t0 + 1)).toBe(true);
    });

    it("a window starts at its first failure: failures after it has passed count afresh", async () => {
      await recordFailure(db, "dave", "10.2.0.1", t0);
      for (let i = 0; i < ACCOUNT_LIMIT - 1; i++) await recordFailure(db, "dave", "10.2.0.1", t0 + WINDOW_MS + 1 + i);
      expect(await loginAllowed(db, "dave", "10.2.0.1", t0 + WINDOW_MS + 10)).toBe(true);
      await recordFailure(db, "dave", "10.2.0.1", t0 + WINDOW_MS + 10);
      expect(await loginAllowed(db, "dave", "10.2.0.1", t0 + WINDOW_MS + 11)).toBe(false);
    });

    it("a good login clears its account's count but not the address's", async () => {
      for (let i = 0; i < ACCOUNT_LIMIT - 1; i++) await recordFailure(db, "erin", "10.3.0.1", t0);
      await recordSuccess(db, "erin");
      expect(await loginAllowed(db, "erin", "10.3.0.1", t0 + 1)).toBe(true);
      for (let i = 0; i < ACCOUNT_LIMIT - 1; i++) await recordFailure(db, "erin", "10.3.0.1", t0 + 2);
      expect(await loginAllowed(db, "erin", "10.3.0.1", t0 + 3)).toBe(true);
      for (let i = 0; i < ADDRESS_LIMIT - 2 * (ACCOUNT_LIMIT - 1); i++) await recordFailure(db, `x${i}`, "10.3.0.1", t0 + 2);
      expect(await loginAllowed(db, "erin", "10.3.0.1", t0 + 3)).toBe(false);
    });

    it("login: one message for a wrong name and a wrong password; the throttle refuses even the right password", async () => {
      await addUser(db, { name: "frank", password: PASSWORD, project: "default", role: "viewer" });
      const wrongName = await login(db, "no-such-user", PASSWORD, "10.4.0.1");
      const wrongPassword = await login(db, "frank", "not the password", "10.4.0.1");
      expect(wrongName).toEqual({ ok: false, status: 401, message: WRONG_LOGIN });
      expect(wrongPassword).toEqual(wrongName);
      for (let i = 1; i < ACCOUNT_LIMIT; i++) await login(db, "frank", "not the password", "10.4.0.2");
      expect(await login(db, "frank", PASSWORD, "10.4.0.3")).toEqual({ ok: false, status: 429, message: THROTTLED });
    });

    it("login makes a new session and ends the one the browser sent", async () => {
      const { id } = await addUser(db, { name: "gina", password: PASSWORD, project: "default", role: "viewer" });
      const planted = await createSession(db, id);
      const r = await login(db, "gina", PASSWORD, "10.5.0.1", planted);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.token).not.toBe(planted);
      expect(await findSession(db, planted)).toBeNull();
      expect(await findSession(db, r.token)).toMatchObject({ userId: id });
    });
  });

  describe("API keys", () => {
    it("a key is stored hashed, works for its project and scope, and records its last use", async () => {
      const { id, key } = await createKey(db, { project: "team-b", name: "agent", scope: "ingest", createdBy: "test" });
      expect(key).toMatch(/^rtk_/);
      const stored = await db.sql.all<Record<string, unknown>>(`SELECT * FROM "ApiKey" WHERE "id" = ?`, [id]);
      expect(JSON.stringify(stored)).not.toContain(key);
      expect((await listKeys(db, ["team-b"])).find((k) => k.id === id)?.lastUsedMs).toBeNull();

      const before = Date.now();
      expect(await principalOfKey(db, key, {})).toMatchObject({ kind: "key", id, scope: "ingest", project: "team-b", static: false });
      const used = (await listKeys(db, ["team-b"])).find((k) => k.id === id)?.lastUsedMs;
      expect(used).toBeGreaterThanOrEqual(before);
      expect(await principalOfKey(db, key.slice(0, -1) + (key.endsWith("A") ? "B" : "A"), {})).toBeNull();
    });

    it("a revoked key stops working; revoking is limited to the projects given", async () => {
      const { id, key } = await createKey(db, { project: "default", name: "ci", scope: "read", createdBy: "test" });
      const active = await countActiveKeys(db);
      await expect(revokeKey(db, id, ["team-b"])).rejects.toMatchObject({ status: 404 });
      expect(await principalOfKey(db, key, {})).not.toBeNull();
      const revoked = await revokeKey(db, id, ["default"]);
      expect(revoked).toMatchObject({ id, name: "ci" });
      expect(await principalOfKey(db, key, {})).toBeNull();
      expect(await countActiveKeys(db)).toBe(active - 1);
      expect((await listKeys(db, "all")).find((k) => k.id === id)?.revokedMs).not.toBeNull();
    });

    it("static keys from RETRACE_TOKENS stand for the default project; malformed entries are refused without echoing them", async () => {
      const env = { RETRACE_TOKENS: "ci:read:0123456789abcdef0123" };
      expect(await principalOfKey(db, "0123456789abcdef0123", env)).toMatchObject({ scope: "read", project: "default", static: true });
      expect(await principalOfKey(db, "0123456789abcdef0124", env)).toBeNull();
      await expect(principalOfKey(db, "x", { RETRACE_TOKENS: "ci:read:short-secret" })).rejects.toThrow(/at least 16/);
      await expect(principalOfKey(db, "x", { RETRACE_TOKENS: "ci:read:short-secret" })).rejects.not.toThrow(/short-secret/);
    });
  });

  describe("privileged-action log", () => {
    it("20 appends racing from two instances make seq 1..20, one chain that verifies", async () => {
      const u = await freshDb(dialect);
      try {
        const instances = [u.open(), u.open()];
        const entries = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            appendAudit(instances[i % 2], { actor: `user:a${i}`, action: "key.add", project: "default", target: `k${i}`, result: "ok" }),
          ),
        );
        expect(entries.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
        expect(await verifyAudit(instances[0])).toEqual({ ok: true, entries: 20 });
        const listed = await listAudit(instances[1], { projects: ["default"], limit: 50 });
        expect(new Set(listed.map((e) => e.target))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `k${i}`)));
      } finally {
        await u.cleanup();
      }
    });

    it("verify names the first entry that was edited, removed or reordered", async () => {
      const u = await freshDb(dialect);
      try {
        const d = u.open();
        for (let i = 0; i < 5; i++) await appendAudit(d, { actor: "cli:test", action: "project.add", target: `p${i}`, result: "ok" });
        expect(await verifyAudit(d)).toEqual({ ok: true, entries: 5 });
        await d.sql.transaction((tx) => tx.run(`UPDATE "AuditEntry" SET "result" = 'refused' WHERE "seq" = 3`));
        expect(await verifyAudit(d)).toMatchObject({ ok: false, brokenAt: 3, entries: 2 });
        await d.sql.transaction((tx) => tx.run(`UPDATE "AuditEntry" SET "result" = 'ok' WHERE "seq" = 3`));
        expect(await verifyAudit(d)).toEqual({ ok: true, entries: 5 });
        await d.sql.transaction((tx) => tx.run(`DELETE FROM "AuditEntry" WHERE "seq" = 2`));
        expect(await verifyAudit(d)).toMatchObject({ ok: false, brokenAt: 2 });
      } finally {
        await u.cleanup();
      }
    });
  });
});
