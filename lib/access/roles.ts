/**
 * Who may do what, decided in one place: roles per project, API key scopes, and the
 * permission each page, route and action needs. Pure: the server (lib/server/access)
 * finds the principal, this says yes or no and with which status.
 */

export const DEFAULT_PROJECT = "default";

/** Project roles, weakest first; each holds every power of the ones before it. */
export const ROLES = ["viewer", "reviewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** Scopes of API keys stored in the database (per project). */
export const KEY_SCOPES = ["ingest", "read"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
/** Scopes of static keys from RETRACE_TOKENS; `admin` reads and writes every project. */
export const STATIC_SCOPES = ["ingest", "read", "admin"] as const;
export type StaticScope = (typeof STATIC_SCOPES)[number];

export type Permission =
  /** list, open, search, compare, stream and replay (in the browser) runs */
  | "runs.read"
  /** upload journals and trace exports, append live, OTLP */
  | "runs.write"
  /** notes on runs, events and findings */
  | "notes.write"
  /** audit bundles */
  | "audit.export"
  /** live re-execution, reconciliation, resume: also needs the environment granted */
  | "live.act"
  /** users, roles, keys and settings of the project; the privileged-action log */
  | "project.admin";

/** The weakest role holding each permission. */
const ROLE_NEEDED: Record<Permission, Role> = {
  "runs.read": "viewer",
  "runs.write": "reviewer",
  "notes.write": "reviewer",
  "audit.export": "reviewer",
  "live.act": "operator",
  "project.admin": "admin",
};

const SCOPE_GRANTS: Record<StaticScope, readonly Permission[]> = {
  // write-only: an agent's key cannot read anything back
  ingest: ["runs.write"],
  read: ["runs.read"],
  admin: ["runs.read", "runs.write"],
};

export interface Membership {
  role: Role;
  /** environments the member may act on (live actions) */
  environments: readonly string[];
}

export type Principal =
  /** no accounts and no keys: the quick start on a loopback address */
  | { kind: "open" }
  | { kind: "anonymous" }
  | { kind: "user"; id: string; name: string; memberships: Readonly<Record<string, Membership>> }
  | { kind: "key"; id: string; name: string; scope: StaticScope; project: string; static: boolean };

export type Decision = { ok: true } | { ok: false; status: 401 | 403 | 404; message: string };

const rankOf = (r: Role): number => ROLES.indexOf(r);
export const isRole = (s: string): s is Role => (ROLES as readonly string[]).includes(s);

export function roleHolds(role: Role, permission: Permission): boolean {
  return rankOf(role) >= rankOf(ROLE_NEEDED[permission]);
}

const ALLOWED: Decision = { ok: true };

/**
 * May `p` do `permission` in `project` (and, for live actions, on `environment`)?
 * A project the principal cannot see answers 404, so nobody learns what exists there.
 */
export function decide(p: Principal, permission: Permission, project: string, environment?: string): Decision {
  switch (p.kind) {
    case "open":
      return ALLOWED;
    case "anonymous":
      return { ok: false, status: 401, message: "sign in, or send Authorization: Bearer <key>" };
    case "key": {
      const everyProject = p.static && p.scope === "admin";
      if (!everyProject && p.project !== project) return { ok: false, status: 404, message: "not found" };
      if (SCOPE_GRANTS[p.scope].includes(permission)) return ALLOWED;
      return { ok: false, status: 403, message: `key "${p.name}" has scope ${p.scope}; this needs ${scopeFor(permission)}` };
    }
    case "user": {
      const m = p.memberships[project];
      if (!m) return { ok: false, status: 404, message: "not found" };
      const need = ROLE_NEEDED[permission];
      if (!roleHolds(m.role, permission)) {
        return { ok: false, status: 403, message: `this needs the ${need} role in project "${project}"; you are ${m.role}` };
      }
      if (permission === "live.act" && (environment === undefined || !m.environments.includes(environment))) {
        return {
          ok: false,
          status: 403,
          message: `this needs the operator role for environment "${environment ?? "?"}" in project "${project}"`,
        };
      }
      return ALLOWED;
    }
  }
}

function scopeFor(permission: Permission): string {
  if (permission === "runs.read") return "a read key";
  if (permission === "runs.write") return "an ingest key";
  return "a signed-in user";
}

/** The projects whose runs `p` may read: every one (open mode, static admin key) or a list. */
export function readableProjects(p: Principal): "all" | string[] {
  switch (p.kind) {
    case "open":
      return "all";
    case "anonymous":
      return [];
    case "key":
      if (p.static && p.scope === "admin") return "all";
      return SCOPE_GRANTS[p.scope].includes("runs.read") ? [p.project] : [];
    case "user":
      return Object.keys(p.memberships).filter((id) => roleHolds(p.memberships[id].role, "runs.read"));
  }
}

/** The project a write goes to when the request names none: the key's, or the user's first writable one. */
export function defaultWriteProject(p: Principal): string {
  if (p.kind === "key" && !(p.static && p.scope === "admin")) return p.project;
  if (p.kind === "user") {
    const writable = Object.keys(p.memberships).filter((id) => roleHolds(p.memberships[id].role, "runs.write"));
    if (writable.includes(DEFAULT_PROJECT) || writable.length === 0) return DEFAULT_PROJECT;
    return writable.sort()[0];
  }
  return DEFAULT_PROJECT;
}

/**
 * The user's current project (what the user menu shows and uploads from the browser go
 * to): the one they chose (cookie) if they belong to it, else their default write
 * project if they belong to that, else their first. Null for anyone but a user with a
 * membership.
 */
export function currentProject(p: Principal, chosen: string | null | undefined): string | null {
  if (p.kind !== "user") return null;
  const ids = Object.keys(p.memberships).sort();
  if (ids.length === 0) return null;
  if (chosen && ids.includes(chosen)) return chosen;
  const fallback = defaultWriteProject(p);
  return ids.includes(fallback) ? fallback : ids[0];
}

/** What a person is called in the privileged-action log. */
export function actorOf(p: Principal): string {
  switch (p.kind) {
    case "open":
      return "open mode (loopback)";
    case "anonymous":
      return "anonymous";
    case "user":
      return `user:${p.name}`;
    case "key":
      return `key:${p.name}`;
  }
}

/** Project names: what a URL, a cookie and a log line can carry safely. */
export const PROJECT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Account names. */
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** Environment names (sandbox, production, …). */
export const ENVIRONMENT = /^[a-z0-9][a-z0-9._-]{0,31}$/;
