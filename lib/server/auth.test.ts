import { describe, expect, it } from "vitest";
import { authorize } from "./auth";

const env = { RETRACE_TOKENS: "ci:ingest:tok-ingest-123,alice:read:tok-read-456,ops:admin:tok-admin-789" };
const h = (token?: string) => new Headers(token ? { authorization: `Bearer ${token}` } : {});

describe("authorize", () => {
  it("is open when no tokens are configured", () => {
    expect(authorize(h(), "admin", {}).ok).toBe(true);
  });
  it("asks for a token (401) and refuses an unknown one (401)", () => {
    expect(authorize(h(), "read", env)).toMatchObject({ ok: false, status: 401 });
    expect(authorize(h("nope"), "read", env)).toMatchObject({ ok: false, status: 401 });
  });
  it("lets a role do what it and the roles below it may, and nothing more (403)", () => {
    expect(authorize(h("tok-read-456"), "read", env)).toMatchObject({ ok: true, principal: "alice" });
    expect(authorize(h("tok-read-456"), "ingest", env)).toMatchObject({ ok: false, status: 403 });
    expect(authorize(h("tok-ingest-123"), "read", env).ok).toBe(true);
    expect(authorize(h("tok-ingest-123"), "admin", env)).toMatchObject({ ok: false, status: 403 });
    expect(authorize(h("tok-admin-789"), "admin", env).ok).toBe(true);
  });
  it("refuses a malformed token list at start rather than running open", () => {
    expect(() => authorize(h("x"), "read", { RETRACE_TOKENS: "broken" })).toThrow(/name:role:token/);
  });
});
