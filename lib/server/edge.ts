import "server-only";
/**
 * The one edge every route handler, data-reading page and server action goes through:
 * authenticate (session cookie or bearer key), check the request's Host and Origin,
 * validate parameters with zod, authorize the permission for the run's project, call the
 * handler, map what it throws to a status. app/ cannot open the database itself (ESLint),
 * so the `db` handed to a handler here is the only way to data.
 */
import { cookies, headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { NextResponse } from "next/server";
import { cache } from "react";
import { z } from "zod";
import {
  currentProject,
  decide,
  defaultWriteProject,
  PROJECT_ID,
  readableProjects,
  type Decision,
  type Permission,
  type Principal,
} from "../access/roles";
import { formatIssues } from "../journal/parse-line";
import { RUN_ID_PATTERN } from "../journal/schema";
import { AccessError } from "./access/accounts";
import { clientAddress, trustProxy } from "./access/client-address";
import { crossOriginRefusal } from "../access/same-origin";
import { displayOrigin } from "./origin";
import { authenticate, type AccessMode, type Authenticated, accessMode } from "./access/authenticate";
import { SESSION_COOKIE } from "./access/sessions";
import { getDb, type Db } from "./db";
import { BadQuery } from "./queries";
import { authorizedRun, runAccess, type AuthorizedRun } from "./run-access";

/** Login rate limiting's address (lib/server/access/client-address.ts), for the session actions. */
export { clientAddress, trustProxy };

/** Which project a request acts on. */
type ProjectFrom =
  /** `params.run` names an existing run: its project (404 when missing or unseen) */
  | "run"
  /** `params.run` names a run that may not exist yet (live append): its project, or the write project */
  | "run-or-new"
  /** the project writes go to: `?project=` or the principal's own */
  | "write"
  /** no one project: the handler filters by `ctx.readable` */
  | "any";

interface EdgeSpec<P extends z.ZodType, Q extends z.ZodType> {
  /** `public`: no credential needed (health) */
  need: Permission | "public";
  project?: ProjectFrom;
  params?: P;
  query?: Q;
}

interface EdgeCtx<P, Q> {
  req: Request;
  db: Db;
  principal: Principal;
  params: P;
  query: Q;
  /** the project authorized (for `run`, `run-or-new`, `write`); "" for `any` */
  project: string;
  /** projects whose runs the principal may read */
  readable: "all" | string[];
  mode: AccessMode;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Host header names a loopback address (DNS rebinding sends a foreign name to 127.0.0.1). */
function isLoopbackHost(host: string | null): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, "").toLowerCase();
  return LOOPBACK_NAMES.has(name) || /^127(\.\d{1,3}){3}$/.test(name) || name.endsWith(".localhost");
}

function guard(method: string, h: Headers, auth: Authenticated, mode: AccessMode): { status: number; message: string } | null {
  if (mode === "open" && !isLoopbackHost(h.get("host"))) {
    return { status: 421, message: "in open mode (no accounts or keys) Retrace answers only on a loopback address such as 127.0.0.1" };
  }
  if (!SAFE_METHODS.has(method) && (auth.via === "open" || auth.via === "session")) {
    const refusal = crossOriginRefusal(h);
    if (refusal) return { status: 403, message: refusal };
  }
  return null;
}

async function resolveProject(
  db: Db,
  principal: Principal,
  need: Permission,
  from: ProjectFrom,
  params: Record<string, unknown>,
  requested: string | null,
  /** the project a write goes to when the request names none (the browser's current project) */
  preferred: string | null = null,
): Promise<{ project: string; decision: Decision }> {
  if (from === "any") {
    if (principal.kind === "anonymous") return { project: "", decision: decide(principal, need, "") };
    // a principal that can read no project (an ingest key) is refused, not shown an empty list
    if (
      need === "runs.read" &&
      principal.kind === "key" &&
      readableProjects(principal) !== "all" &&
      readableProjects(principal).length === 0
    ) {
      return { project: "", decision: decide(principal, need, principal.project) };
    }
    return { project: "", decision: { ok: true } };
  }
  // nobody learns whether a run exists before showing a credential
  if (principal.kind === "anonymous") return { project: "", decision: decide(principal, need, "") };
  if (from === "run" || from === "run-or-new") {
    const run = String(params.run ?? "");
    const { owner, decision } = await runAccess(db, principal, run, need);
    if (owner === null && from === "run-or-new") {
      const project = defaultWriteProject(principal);
      return { project, decision: decide(principal, need, project) };
    }
    return { project: owner ?? "", decision };
  }
  const project = requested ?? preferred ?? defaultWriteProject(principal);
  return { project, decision: decide(principal, need, project) };
}

const jsonError = (status: number, message: string) => NextResponse.json({ error: message }, { status });

const projectParam = z.string().regex(PROJECT_ID, "project must be a project id").nullable();

/** Route params' usual shapes. */
export const runParams = z.object({
  // pages get the segment still percent-encoded (a ":" as %3A), routes decoded; no run id holds a "%"
  run: z.preprocess(
    (v) => (typeof v === "string" && v.includes("%") ? safeDecode(v) : v),
    z.string().regex(RUN_ID_PATTERN, "run id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -"),
  ),
});

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

type NextRouteCtx = { params: Promise<Record<string, string | string[] | undefined>> };

/** Wraps a route handler in the edge. */
export function route<P extends z.ZodType = z.ZodObject<Record<string, never>>, Q extends z.ZodType = z.ZodObject<Record<string, never>>>(
  spec: EdgeSpec<P, Q>,
  handler: (ctx: EdgeCtx<z.infer<P>, z.infer<Q>>) => Promise<Response>,
): (req: Request, ctx: NextRouteCtx) => Promise<Response> {
  return async (req, nextCtx) => {
    try {
      const db = getDb();
      const mode = await accessMode(db);
      const auth = await authenticate(db, {
        authorization: req.headers.get("authorization"),
        session: cookieValue(req.headers.get("cookie"), SESSION_COOKIE),
      });
      const refused = guard(req.method, req.headers, auth, mode);
      if (refused) return jsonError(refused.status, refused.message);
      if (auth.invalid) return jsonError(401, auth.invalid);
      const rawParams = (await nextCtx?.params) ?? {};
      const params = (spec.params ?? z.object({})).safeParse(rawParams);
      if (!params.success) return jsonError(400, formatIssues(params.error.issues));
      const search = new URL(req.url).searchParams;
      const query = (spec.query ?? z.object({}).passthrough()).safeParse(Object.fromEntries(search));
      if (!query.success) return jsonError(400, formatIssues(query.error.issues));
      let project = "";
      if (spec.need !== "public") {
        const requested = projectParam.safeParse(search.get("project"));
        if (!requested.success) return jsonError(400, formatIssues(requested.error.issues));
        // an upload from the runs list goes to the project the user menu shows; a key's
        // writes stay in the key's project
        const preferred =
          auth.via === "session" ? currentProject(auth.principal, cookieValue(req.headers.get("cookie"), PROJECT_COOKIE)) : null;
        const r = await resolveProject(
          db,
          auth.principal,
          spec.need,
          spec.project ?? "any",
          params.data as Record<string, unknown>,
          requested.data,
          preferred,
        );
        if (!r.decision.ok) return jsonError(r.decision.status, r.decision.message);
        project = r.project;
      }
      return await handler({
        req,
        db,
        principal: auth.principal,
        params: params.data as z.infer<P>,
        query: query.data as z.infer<Q>,
        project,
        readable: readableProjects(auth.principal),
        mode,
      });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

function errorResponse(e: unknown): Response {
  if (e instanceof AccessError) return jsonError(e.status, e.message);
  if (e instanceof BadQuery) return jsonError(400, e.message);
  if (e instanceof z.ZodError) return jsonError(400, formatIssues(e.issues));
  // the message may hold request text; the log gets the error, the client a plain answer
  console.error("retrace: request failed:", e instanceof Error ? e.name : typeof e);
  return jsonError(500, "internal error: the request failed on the server; nothing was changed by it");
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

// ---- pages and actions (server components: credentials from next/headers) ----

/** Why the current request was refused, for app/forbidden.tsx (one request's render). */
export const refusal = cache((): { message: string } => ({ message: "" }));

interface PageCtx<P> {
  db: Db;
  principal: Principal;
  params: P;
  project: string;
  readable: "all" | string[];
  mode: AccessMode;
}

async function requestAuth(): Promise<{ db: Db; mode: AccessMode; auth: Authenticated; h: Headers }> {
  const db = getDb();
  const h = await headers();
  const mode = await accessMode(db);
  const auth = await authenticate(db, { authorization: h.get("authorization"), session: (await cookies()).get(SESSION_COOKIE)?.value });
  return { db, mode, auth, h };
}

/**
 * Wraps a page (server component) in the edge: a visitor who is not signed in goes to the
 * login page, one who lacks the role gets the 403 page naming it, and a run they cannot
 * see is a 404.
 */
export function page<
  P extends z.ZodType = z.ZodObject<Record<string, never>>,
  Props extends { params?: Promise<unknown> } = { params?: Promise<unknown> },
>(
  spec: { need: Permission; project?: "run" | "any" | "admin"; params?: P },
  render: (ctx: PageCtx<z.infer<P>>, props: Props) => Promise<React.ReactNode>,
): (props: Props) => Promise<React.ReactNode> {
  return async (props) => {
    const { db, mode, auth, h } = await requestAuth();
    if (mode === "open" && !isLoopbackHost(h.get("host"))) {
      refusal().message = "In open mode (no accounts or keys) Retrace answers only on a loopback address such as 127.0.0.1.";
      forbidden();
    }
    if (auth.principal.kind === "anonymous") redirect(`/login?next=${encodeURIComponent(h.get("x-retrace-path") ?? "/")}`);
    const parsed = (spec.params ?? z.object({})).safeParse((await props.params) ?? {});
    if (!parsed.success) notFound();
    let project = "";
    if (spec.project === "run" || spec.project === "any" || spec.project === undefined) {
      // "any" refuses, like the routes, a principal that can read no project (an ingest key)
      const from = spec.project === "run" ? "run" : "any";
      const r = await resolveProject(db, auth.principal, spec.need, from, parsed.data as Record<string, unknown>, null);
      if (!r.decision.ok) {
        if (r.decision.status === 404) notFound();
        refusal().message = r.decision.message;
        forbidden();
      }
      project = r.project;
    } else if (spec.project === "admin") {
      // an admin page: the principal must administer at least one project
      if (adminProjects(auth.principal).length === 0 && auth.principal.kind !== "open") {
        refusal().message = "This page needs the admin role in a project.";
        forbidden();
      }
    }
    return render(
      { db, principal: auth.principal, params: parsed.data as z.infer<P>, project, readable: readableProjects(auth.principal), mode },
      props,
    );
  };
}

/** Projects the principal administers ("all" in open mode). */
function adminProjects(p: Principal): string[] {
  if (p.kind !== "user") return [];
  return Object.keys(p.memberships).filter((id) => decide(p, "project.admin", id).ok);
}

export type ActionResult<R> = { ok: true; value: R } | { ok: false; status: number; error: string };

export interface ActionCtx {
  db: Db;
  principal: Principal;
  mode: AccessMode;
  headers: Headers;
  readable: "all" | string[];
}

/** The context of an action on one run (`spec.run`): the run the one run check let through. */
export interface RunActionCtx extends ActionCtx {
  run: AuthorizedRun;
}

/**
 * Wraps a server action in the edge: Next refuses cross-origin action posts itself; this
 * authenticates, parses the input (a plain object or the FormData of a form) with zod,
 * authorizes `need` in the project the input names (`projectOf`), and turns what the
 * action throws into a result the form can show.
 */
export function action<S extends z.ZodType, R>(
  spec: { need: Permission | "signed-in" | "anyone"; projectOf?: (input: z.infer<S>) => string },
  schema: S,
  fn: (ctx: ActionCtx, input: z.infer<S>) => Promise<R>,
): (...args: unknown[]) => Promise<ActionResult<R>>;
/** An action on one run: `need` decided in the run's project by the one run check, the run handed on. */
export function action<S extends z.ZodType, R>(
  spec: { need: Permission; run: (input: z.infer<S>) => string },
  schema: S,
  fn: (ctx: RunActionCtx, input: z.infer<S>) => Promise<R>,
): (...args: unknown[]) => Promise<ActionResult<R>>;
export function action<S extends z.ZodType, R>(
  spec: { need: Permission | "signed-in" | "anyone"; projectOf?: (input: z.infer<S>) => string; run?: (input: z.infer<S>) => string },
  schema: S,
  fn: (ctx: RunActionCtx, input: z.infer<S>) => Promise<R>,
): (...args: unknown[]) => Promise<ActionResult<R>> {
  return async (...args) => {
    try {
      const { db, mode, auth, h } = await requestAuth();
      if (mode === "open" && !isLoopbackHost(h.get("host")))
        return { ok: false, status: 421, error: "open mode answers only on a loopback address" };
      const refused = crossOriginRefusal(h);
      if (refused) return { ok: false, status: 403, error: refused };
      // who is asking before what they ask: an anonymous caller learns nothing from a 400
      if (spec.need !== "anyone") {
        if (auth.principal.kind === "anonymous") return { ok: false, status: 401, error: "sign in first" };
        if (auth.principal.kind === "key") return { ok: false, status: 403, error: "keys cannot use the web interface's actions" };
      }
      const raw = args.length > 0 ? args[args.length - 1] : {};
      const input = schema.safeParse(raw instanceof FormData ? formObject(raw) : raw);
      if (!input.success) return { ok: false, status: 400, error: formatIssues(input.error.issues) };
      let run: AuthorizedRun | undefined;
      if (spec.run && spec.need !== "anyone" && spec.need !== "signed-in")
        run = await authorizedRun(db, auth.principal, spec.run(input.data), spec.need);
      else if (spec.need !== "anyone" && spec.need !== "signed-in") {
        const d = decide(auth.principal, spec.need, spec.projectOf ? spec.projectOf(input.data) : "");
        if (!d.ok) return { ok: false, status: d.status, error: d.message };
      }
      const ctx = { db, principal: auth.principal, mode, headers: h, readable: readableProjects(auth.principal) };
      // an action without `spec.run` is typed with ActionCtx (the overloads): it never reads `run`
      const value = await fn({ ...ctx, run: run as AuthorizedRun }, input.data);
      return { ok: true, value };
    } catch (e) {
      if (e instanceof AccessError) return { ok: false, status: e.status, error: e.message };
      // redirect() and friends are control flow, not failures
      if (e instanceof Error && "digest" in e && String((e as { digest?: unknown }).digest).startsWith("NEXT_")) throw e;
      console.error("retrace: action failed:", e instanceof Error ? e.name : typeof e);
      return { ok: false, status: 500, error: "the action failed on the server; nothing was changed by it" };
    }
  };
}

/**
 * For an action on a run (its project known only once the run is found): `need` in the
 * run's project, or an AccessError: 404 for a run the principal cannot see (exactly like a
 * missing one), 403 for a role too weak. Returns the project.
 */
export async function authorizeRun(ctx: ActionCtx, run: string, need: Permission): Promise<string> {
  return (await authorizedRun(ctx.db, ctx.principal, run, need)).project;
}

/** May the principal do `need` on this run's project (for what a page shows: buttons, forms)? */
export function mayOnProject(p: Principal, need: Permission, project: string): boolean {
  return decide(p, need, project).ok;
}

function formObject(fd: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of fd.entries()) {
    if (k.startsWith("$ACTION")) continue;
    const value = typeof v === "string" ? v : v.name;
    const prev = out[k];
    out[k] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

// ---- what the layout shows: the open-mode banner, the user menu ----

interface ViewerInfo {
  mode: AccessMode;
  user: { name: string; projects: { id: string; role: string }[] } | null;
  /** the project uploads from the browser go to (cookie `retrace-project`, else `currentProject`'s choice) */
  project: string | null;
  admin: boolean;
}

export const PROJECT_COOKIE = "retrace-project";

/** The user menu's project for `p` in this request (pages: the forms' first choice, the upload's target). */
export async function currentProjectFor(p: Principal): Promise<string | null> {
  return currentProject(p, (await cookies()).get(PROJECT_COOKIE)?.value);
}

export async function viewerInfo(): Promise<ViewerInfo> {
  const { mode, auth } = await requestAuth();
  const chosen = (await cookies()).get(PROJECT_COOKIE)?.value ?? null;
  const p = auth.principal;
  if (p.kind !== "user") return { mode, user: null, project: null, admin: p.kind === "open" };
  const projects = Object.entries(p.memberships)
    .map(([id, m]) => ({ id, role: m.role }))
    .sort((a, b) => a.id.localeCompare(b.id));
  // the same choice route() makes for an upload, so the menu shows where uploads go
  const project = currentProject(p, chosen);
  return { mode, user: { name: p.name, projects }, project, admin: adminProjects(p).length > 0 };
}

/** The origin the browser used, for commands shown on screen; forwarded headers only behind a trusted proxy. */
export async function serverOrigin(): Promise<string> {
  return displayOrigin(await headers());
}

/** Secure cookies when the browser reached us over HTTPS (directly, or through a trusted proxy). */
export function cookieIsSecure(h: Headers): boolean {
  return (trustProxy() && h.get("x-forwarded-proto") === "https") || (h.get("origin") ?? "").startsWith("https:");
}
