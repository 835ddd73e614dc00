import "server-only";
/**
 * Who may do what. Tokens come from RETRACE_TOKENS ("name:role:token,…"; roles `read`,
 * `ingest`, `admin`, each implying the ones before it). With no tokens configured the
 * server is open, as the quick start on 127.0.0.1 expects; the README says so, and a
 * deployment sets tokens. Every route and action calls `authorize` itself.
 */
import { timingSafeEqual } from "node:crypto";

export type Role = "read" | "ingest" | "admin";
const RANK: Record<Role, number> = { read: 1, ingest: 2, admin: 3 };

interface TokenEntry {
  name: string;
  role: Role;
  token: Buffer;
}

function parseTokens(raw: string | undefined): TokenEntry[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, role, ...rest] = entry.split(":");
      const token = rest.join(":");
      if (!name || !token || !(role in RANK))
        throw new Error(`RETRACE_TOKENS entry "${name ?? ""}" must be name:role:token with role read, ingest or admin`);
      return { name, role: role as Role, token: Buffer.from(token) };
    });
}

export type AuthResult = { ok: true; principal: string } | { ok: false; status: 401 | 403; message: string };

export function authorize(headers: Headers, needed: Role, env: Record<string, string | undefined> = process.env): AuthResult {
  const tokens = parseTokens(env.RETRACE_TOKENS);
  if (tokens.length === 0) return { ok: true, principal: "anonymous (no RETRACE_TOKENS configured)" };
  const header = headers.get("authorization") ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return { ok: false, status: 401, message: "send Authorization: Bearer <token>" };
  const given = Buffer.from(m[1].trim());
  const entry = tokens.find((t) => t.token.length === given.length && timingSafeEqual(t.token, given));
  if (!entry) return { ok: false, status: 401, message: "unknown token" };
  if (RANK[entry.role] < RANK[needed])
    return { ok: false, status: 403, message: `token "${entry.name}" has role ${entry.role}; this needs ${needed}` };
  return { ok: true, principal: entry.name };
}
