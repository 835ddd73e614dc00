/**
 * The authorization matrix: for every route, page and server action, the status each
 * principal gets. Written by hand from issue 13's rules, NOT computed from
 * lib/access/roles.ts: this table is the independent statement of the policy that the
 * running servers are checked against (e2e/access-matrix.spec.ts). The spec also reads
 * the real list of routes, pages and actions from app/ and fails when one is missing here.
 *
 * The rules, as the issue states them:
 * - viewer reads runs; reviewer also writes (uploads, live append, OTLP); operator adds live
 *   actions per environment (app/actions/live.ts; which environment is the executor's, so
 *   the matrix, with no executors, sees both operators alike); admin adds users, keys,
 *   executors and settings.
 * - a project the principal is not in answers 404 (existence is not revealed); lacking the
 *   role answers 403; no credential answers 401 (routes, actions) or a 307 to /login (pages).
 * - an ingest key writes only (it cannot read anything back); a read key reads only; both
 *   act in their own project. Keys cannot use the web interface's actions (403).
 * - a credential that is sent and is not valid is 401 on every route, even a public one (a
 *   misconfigured agent learns it at once); pages and actions treat it as no credential.
 * - writes with no `?project=` go to the principal's project (team-b's admin: team-b).
 *
 * Statuses of server actions: 200 = the action ran and answered; 303 = it ran and
 * redirected (`x-action-redirect`); 4xx = the edge refused (the ActionResult's status).
 */

export const PRINCIPALS = [
  "anonymous",
  "wrongKey",
  "ingestKey",
  "readKey",
  "viewer",
  "reviewer",
  "operatorSandbox",
  "operatorProduction",
  "admin",
  "otherAdmin",
] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];

/** One status per principal, in PRINCIPALS order. */
export type Expected = readonly [number, number, number, number, number, number, number, number, number, number];

/** Which seeded run a `[run]` in the path stands for, or a run that does not exist yet. */
export type RunTarget = "default" | "team-b" | "new";

export type Body =
  /** a one-event journal for a new run (unique per cell) */
  | "journal"
  /** the same, through the any-format upload */
  | "import"
  /** one OTLP/JSON span of a new trace (unique per cell) */
  | "otlp"
  /** live append: for a seeded run, the identical resend of its first event (a duplicate, changes nothing); for "new", a new run's first event */
  | "append";

export type Case =
  | { kind: "route"; method: "GET" | "POST"; path: string; run?: RunTarget; query?: string; body?: Body; expect: Expected }
  | { kind: "page"; path: string; run?: RunTarget; query?: string; expect: Expected }
  | { kind: "action"; file: string; name: string; input: Record<string, unknown>; expect: Expected };

/** `GET /api/runs`, `PAGE /runs/[run]`, `ACTION session.signIn`: how the spec names what it found in app/. */
export function endpointOf(c: Case): string {
  if (c.kind === "route") return `${c.method} ${c.path}`;
  if (c.kind === "page") return `PAGE ${c.path}`;
  return `ACTION ${c.file}.${c.name}`;
}

export function caseName(c: Case): string {
  const what = c.kind === "action" ? JSON.stringify(c.input) : `${c.run ? `run=${c.run}` : ""}${c.query ? ` ?${c.query}` : ""}`.trim();
  return `${endpointOf(c)}${what ? ` [${what}]` : ""}`;
}

// prettier-ignore
export const CASES: readonly Case[] = [
  //                                                                                           anon wrong ingest read viewer review opSbx opProd admin otherAdm
  // ---- routes: public
  { kind: "route", method: "GET", path: "/api/health",                                expect: [200, 401, 200, 200, 200, 200, 200, 200, 200, 200] },
  // an /api path no route serves: JSON 404 for everyone (a sent, invalid credential is still 401)
  { kind: "route", method: "GET", path: "/api/[...path]",                             expect: [404, 401, 404, 404, 404, 404, 404, 404, 404, 404] },
  { kind: "route", method: "POST", path: "/api/[...path]",                            expect: [404, 401, 404, 404, 404, 404, 404, 404, 404, 404] },
  // ---- routes: reads (runs.read)
  { kind: "route", method: "GET", path: "/api/runs",                                  expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]", run: "default",            expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]", run: "team-b",             expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/events", run: "default",     expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/events", run: "team-b",      expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/inspect", run: "default", query: "seq=1", expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/inspect", run: "team-b", query: "seq=1",  expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/search", run: "default", query: "q=e", expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/search", run: "team-b", query: "q=e",  expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/stream", run: "default",     expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/stream", run: "team-b",      expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/summary", run: "default",    expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/summary", run: "team-b",     expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/usage", run: "default",      expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "route", method: "GET", path: "/api/runs/[run]/usage", run: "team-b",       expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  // the audit public key: public (a verifier needs no account); a sent key that is not valid is still 401
  { kind: "route", method: "GET", path: "/api/keys/audit",                            expect: [200, 401, 200, 200, 200, 200, 200, 200, 200, 200] },
  // verifying an uploaded bundle reads nothing stored but needs a reader (an empty body: 200 with the failures)
  { kind: "route", method: "POST", path: "/api/bundles/verify",                       expect: [401, 401, 403, 200, 200, 200, 200, 200, 200, 200] },
  // ---- routes: audit export (audit.export: reviewer and up, signed-in users only; keys hold no such scope)
  { kind: "route", method: "POST", path: "/api/runs/[run]/bundle", run: "default",     expect: [401, 401, 403, 403, 403, 200, 200, 200, 200, 404] },
  { kind: "route", method: "POST", path: "/api/runs/[run]/bundle", run: "team-b",      expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  // a selection's bundle: audit.export on every run's project; any run not visible is a 404 (before any 403)
  { kind: "route", method: "POST", path: "/api/bundles", query: "runs=[default]",          expect: [401, 401, 403, 403, 403, 200, 200, 200, 200, 404] },
  { kind: "route", method: "POST", path: "/api/bundles", query: "runs=[team-b]",           expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "POST", path: "/api/bundles", query: "runs=[default],[team-b]", expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 404] },
  // opening a bundle as read-only runs: audit.export in the write project (reviewer and up, users only); an empty body does not verify: 422
  { kind: "route", method: "POST", path: "/api/bundles/open",                         expect: [401, 401, 403, 403, 403, 422, 422, 422, 422, 422] },
  { kind: "route", method: "POST", path: "/api/bundles/open", query: "project=team-b", expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 422] },
  // ---- routes: writes (runs.write)
  { kind: "route", method: "POST", path: "/api/journals", body: "journal",            expect: [401, 401, 201, 403, 403, 201, 201, 201, 201, 201] },
  { kind: "route", method: "POST", path: "/api/journals", body: "journal", query: "project=team-b", expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 201] },
  { kind: "route", method: "POST", path: "/api/imports", body: "import",              expect: [401, 401, 201, 403, 403, 201, 201, 201, 201, 201] },
  { kind: "route", method: "POST", path: "/api/imports", body: "import", query: "project=team-b",   expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 201] },
  { kind: "route", method: "POST", path: "/v1/traces", body: "otlp",                  expect: [401, 401, 200, 403, 403, 200, 200, 200, 200, 200] },
  { kind: "route", method: "POST", path: "/v1/traces", body: "otlp", query: "project=team-b",       expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "POST", path: "/api/public/otel/v1/traces", body: "otlp",  expect: [401, 401, 200, 403, 403, 200, 200, 200, 200, 200] },
  { kind: "route", method: "POST", path: "/api/public/otel/v1/traces", body: "otlp", query: "project=team-b", expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "POST", path: "/api/runs/[run]/events", run: "default", body: "append", expect: [401, 401, 200, 403, 403, 200, 200, 200, 200, 404] },
  { kind: "route", method: "POST", path: "/api/runs/[run]/events", run: "team-b", body: "append",  expect: [401, 401, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "route", method: "POST", path: "/api/runs/[run]/events", run: "new", body: "append",     expect: [401, 401, 200, 403, 403, 200, 200, 200, 200, 200] },
  // ---- pages (server components)
  { kind: "page", path: "/",                                                          expect: [307, 307, 403, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "page", path: "/compare", query: "a=[default]&b=[team-b]",                  expect: [307, 307, 403, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "page", path: "/runs/[run]", run: "default",                                expect: [307, 307, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "page", path: "/runs/[run]", run: "team-b",                                 expect: [307, 307, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "page", path: "/runs/[run]/replay", run: "default",                         expect: [307, 307, 403, 200, 200, 200, 200, 200, 200, 404] },
  { kind: "page", path: "/runs/[run]/replay", run: "team-b",                          expect: [307, 307, 404, 404, 404, 404, 404, 404, 404, 200] },
  { kind: "page", path: "/verify",                                                    expect: [307, 307, 403, 200, 200, 200, 200, 200, 200, 200] },
  // admin pages: an admin of any project (team-b's too) sees its own projects' admin; everyone else 403
  { kind: "page", path: "/admin",                                                     expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/admin/users",                                               expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/admin/keys",                                                expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/admin/projects",                                            expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/admin/executors",                                           expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/admin/log",                                                 expect: [307, 307, 403, 403, 403, 403, 403, 403, 200, 200] },
  { kind: "page", path: "/login",                                                     expect: [200, 200, 200, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "page", path: "/setup", query: "token=not-a-setup-token",                   expect: [200, 200, 200, 200, 200, 200, 200, 200, 200, 200] },
  // ---- server actions
  { kind: "action", file: "session", name: "signIn", input: { name: "matrix-nobody", password: "not the password" },        expect: [200, 200, 200, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "action", file: "session", name: "finishSetup", input: { token: "not-a-setup-token", name: "x", password: "long enough pw", confirm: "long enough pw" }, expect: [200, 200, 200, 200, 200, 200, 200, 200, 200, 200] },
  { kind: "action", file: "projects", name: "chooseProject", input: { project: "default" }, expect: [401, 401, 403, 403, 200, 200, 200, 200, 200, 404] },
  { kind: "action", file: "projects", name: "chooseProject", input: { project: "team-b" },  expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  // admin actions on project default: only its admin passes the edge; what the admin then gets
  // is the action's own answer to an input chosen to change nothing the matrix relies on
  // (an existing project id: 409; a short password: 400; ids that do not exist: 404)
  { kind: "action", file: "admin", name: "createProject", input: { id: "default", name: "again" },                          expect: [401, 401, 403, 403, 403, 403, 403, 403, 409, 404] },
  { kind: "action", file: "admin", name: "addUser", input: { project: "default", name: "matrix-short", password: "short", role: "viewer" }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 400, 404] },
  { kind: "action", file: "admin", name: "addExistingMember", input: { project: "default", name: "matrix-no-such-user", role: "viewer" }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  { kind: "action", file: "admin", name: "setMemberRole", input: { project: "default", userId: "no-such-user-id", role: "viewer" }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  { kind: "action", file: "admin", name: "removeMember", input: { project: "default", userId: "no-such-user-id" },          expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  { kind: "action", file: "admin", name: "setUserDisabled", input: { project: "default", userId: "no-such-user-id", disabled: true }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  { kind: "action", file: "admin", name: "createKey", input: { project: "default", name: "matrix made", scope: "read" },     expect: [401, 401, 403, 403, 403, 403, 403, 403, 200, 404] },
  { kind: "action", file: "admin", name: "createKey", input: { project: "team-b", name: "matrix made", scope: "read" },      expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  { kind: "action", file: "admin", name: "revokeKey", input: { project: "default", keyId: "no-such-key" },                  expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  // retention: null (forever) is what the seeded projects already have, so the admin's 200 changes nothing
  { kind: "action", file: "admin", name: "setProjectRetention", input: { project: "default", days: null },                 expect: [401, 401, 403, 403, 403, 403, 403, 403, 200, 404] },
  { kind: "action", file: "admin", name: "setProjectRetention", input: { project: "team-b", days: null },                  expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  // payload retention: null (payloads kept with the run) is what the seeded projects already have
  { kind: "action", file: "admin", name: "setProjectPayloadRetention", input: { project: "default", days: null },          expect: [401, 401, 403, 403, 403, 403, 403, 403, 200, 404] },
  { kind: "action", file: "admin", name: "setProjectPayloadRetention", input: { project: "team-b", days: null },           expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  // a price line that does not parse: refused with 400 after the role check, nothing stored
  { kind: "action", file: "admin", name: "setProjectModelPrices", input: { project: "default", text: "not a price line" }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 400, 404] },
  { kind: "action", file: "admin", name: "setProjectModelPrices", input: { project: "team-b", text: "not a price line" },  expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 400] },
  // a workflow's declared policy: signed in at the edge, then the core needs an admin of every project holding the
  // workflow's runs (a 403 otherwise: workflow names are global); text that is not JSON is refused with 400 after that, nothing stored
  { kind: "action", file: "admin", name: "attachPolicy", input: { workflow: "support-refund", policy: "not json" },        expect: [401, 401, 403, 403, 403, 403, 403, 403, 400, 403] },
  { kind: "action", file: "admin", name: "attachPolicy", input: { workflow: "travel-booking", policy: "not json" },        expect: [401, 401, 403, 403, 403, 403, 403, 403, 403, 400] },
  // notes (notes.write: reviewer and up), decided on the server against the run's project; keys cannot use actions
  { kind: "action", file: "notes", name: "addNote", input: { run: "demo-refund-4185", target: "event", seq: 1, label: "question", text: "matrix note" },  expect: [401, 401, 403, 403, 403, 200, 200, 200, 200, 404] },
  { kind: "action", file: "notes", name: "addNote", input: { run: "demo-booking-5999", target: "run", label: "confirmed", text: "matrix note" },         expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  // legal hold (project.admin in the run's project); lifting a hold no run has changes nothing
  { kind: "action", file: "retention", name: "setLegalHold", input: { run: "demo-refund-4185", held: false },              expect: [401, 401, 403, 403, 403, 403, 403, 403, 200, 404] },
  { kind: "action", file: "retention", name: "setLegalHold", input: { run: "demo-booking-5999", held: false },             expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  // executors (project.admin): an endpoint that is not a URL is refused with 400 after the role check, nothing stored
  { kind: "action", file: "executors", name: "addExecutor", input: { project: "default", kind: "tool", name: "*", environment: "sandbox", url: "not a url" }, expect: [401, 401, 403, 403, 403, 403, 403, 403, 400, 404] },
  { kind: "action", file: "executors", name: "addExecutor", input: { project: "team-b", kind: "tool", name: "*", environment: "sandbox", url: "not a url" },  expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 400] },
  { kind: "action", file: "executors", name: "removeExecutor", input: { project: "default", executorId: "no-such-executor" },  expect: [401, 401, 403, 403, 403, 403, 403, 403, 404, 404] },
  // live actions (live.act: operator and up, per environment), decided on the server step by step: a
  // viewer or reviewer is refused with the role (403) before anything is looked up; the matrix
  // server has no executors, so an operator's call stops at the executor (404) and acts on nothing
  { kind: "action", file: "live", name: "liveExecutors", input: { run: "demo-refund-4185", seq: 18 },                       expect: [401, 401, 403, 403, 403, 403, 200, 200, 200, 404] },
  { kind: "action", file: "live", name: "previewReexecute", input: { run: "demo-refund-4185", seq: 18, executor: "no-such-executor" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "reexecuteCall", input: { run: "demo-refund-4185", seq: 18, executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix", password: "matrix password 0123" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "previewReconcile", input: { run: "demo-refund-4185", seq: 19, executor: "no-such-executor" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "reconcileCall", input: { run: "demo-refund-4185", seq: 19, executor: "no-such-executor", mode: "mark", outcome: "failed", reason: "matrix" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "reexecuteCall", input: { run: "demo-booking-5999", seq: 1, executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix" }, expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 400] },
  // continue a fork live: the same steps; the fork is checked first (booking's seq 1 has no model call before it: 400), then the model executor (404)
  { kind: "action", file: "live", name: "liveModelExecutors", input: { run: "demo-refund-4185" },                          expect: [401, 401, 403, 403, 403, 403, 200, 200, 200, 404] },
  { kind: "action", file: "live", name: "previewContinue", input: { run: "demo-refund-4185", seq: 19, override: { toolResult: { status: "error" } }, executor: "no-such-executor" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "continueLive", input: { run: "demo-refund-4185", seq: 19, override: { toolResult: { status: "error" } }, executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix", password: "matrix password 0123" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "continueLive", input: { run: "demo-booking-5999", seq: 1, executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix" }, expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 400] },
  // resume: the plan is read by anyone who reads the run; resuming is a live action (role, then the model executor: 404 here, none exists)
  { kind: "action", file: "live", name: "resumePlanOf", input: { run: "demo-refund-4185" },                                 expect: [401, 401, 403, 403, 200, 200, 200, 200, 200, 404] },
  { kind: "action", file: "live", name: "resumePlanOf", input: { run: "demo-booking-5999", checkpoint: "c1" },              expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 200] },
  { kind: "action", file: "live", name: "resumeRun", input: { run: "demo-refund-4185", checkpoint: "c1", executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix", password: "matrix password 0123" }, expect: [401, 401, 403, 403, 403, 403, 404, 404, 404, 404] },
  { kind: "action", file: "live", name: "resumeRun", input: { run: "demo-booking-5999", checkpoint: "c1", executor: "no-such-executor", digest: "0000000000000000000000000000000000000000000000000000000000000000", reason: "matrix" }, expect: [401, 401, 403, 403, 404, 404, 404, 404, 404, 404] },
  // signs out a session made for this cell alone (the matrix's own sessions stay alive)
  { kind: "action", file: "session", name: "signOut", input: {},                                                          expect: [303, 303, 303, 303, 303, 303, 303, 303, 303, 303] },
];
