/**
 * Issue 13's "Must show", against locked servers this file starts itself (one on SQLite,
 * one on PostgreSQL, one on SQLite with a 6-second idle limit):
 *
 * - the authorization matrix (e2e/access-matrix.ts) for every route, page and server
 *   action found in app/, × 10 principals, checked against the running server;
 * - an unauthenticated browser gets no byte of a payload, run id list or workflow name;
 * - an ingest key is refused every read, a read key every write;
 * - session fixation, logout, idle expiry, login rate limiting, a cross-origin POST.
 *
 * How server actions are called: as React's client calls them, a POST to a page that
 * serves the action with `Next-Action: <id>` (ids from this build's
 * .next/server/server-reference-manifest.json, matched by file and export name), the
 * arguments as JSON text, and the page's Origin; the RSC answer's row 0 points at the
 * ActionResult (e2e/access-servers.ts callAction). That reaches every action with every
 * principal, keys included, which the UI forms cannot; the forms themselves are used for
 * signing in, out and the throttle test.
 *
 * Sessions: each user signs in once through the real login form; its cookie is then sent
 * on plain fetches (the stream route's answer never ends, so requests are fetches that read
 * the status and stop).
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { CASES, PRINCIPALS, caseName, endpointOf, type Body, type Case, type PrincipalName, type RunTarget } from "./access-matrix";
import {
  ACCESS_PORT_BASE,
  PASSWORD,
  actionIds,
  callAction,
  fixtureLine,
  seedJournal,
  startLockedServer,
  type Account,
  type LockedServer,
} from "./access-servers";

// ---- what app/ holds: the list the matrix must cover ----

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Every route method, page and server action in app/, named as endpointOf() names them. */
function discoverEndpoints(): string[] {
  const found: string[] = [];
  const files = (fs.readdirSync("app", { recursive: true }) as string[]).map((f) => f.split(path.sep).join("/")).sort();
  const urlOf = (dir: string) =>
    "/" +
    dir
      .split("/")
      .filter((s) => s && !/^\(.*\)$/.test(s))
      .join("/");
  for (const f of files) {
    const text = () => fs.readFileSync(path.join("app", f), "utf8");
    if (/(^|\/)route\.tsx?$/.test(f)) {
      const url = urlOf(path.posix.dirname(f) === "." ? "" : path.posix.dirname(f));
      const src = text();
      const methods = new Set<string>();
      for (const m of src.matchAll(/export\s+(?:const|let|async\s+function|function)\s+([A-Z]+)\b/g)) methods.add(m[1]);
      for (const m of src.matchAll(/export\s*\{([^}]*)\}/g))
        for (const part of m[1].split(","))
          methods.add(
            part
              .trim()
              .split(/\s+as\s+/)
              .pop() ?? "",
          );
      for (const m of [...methods].filter((x) => METHODS.includes(x)).sort()) found.push(`${m} ${url}`);
    } else if (/(^|\/)page\.tsx?$/.test(f)) {
      found.push(`PAGE ${urlOf(path.posix.dirname(f) === "." ? "" : path.posix.dirname(f))}`);
    } else if (/^actions\/[\w-]+\.ts$/.test(f)) {
      const file = path.posix.basename(f, ".ts");
      for (const m of text().matchAll(/export\s+(?:const|let|async\s+function|function)\s+(\w+)/g)) found.push(`ACTION ${file}.${m[1]}`);
    }
  }
  return found;
}

test("every route, page and server action in app/ is in the matrix, and nothing else is", () => {
  const discovered = discoverEndpoints();
  const inTable = new Set(CASES.map(endpointOf));
  expect(discovered.length).toBeGreaterThan(10);
  expect(
    discovered.filter((e) => !inTable.has(e)),
    "add these to e2e/access-matrix.ts",
  ).toEqual([]);
  expect(
    [...inTable].filter((e) => !discovered.includes(e)),
    "these are in the table but not in app/",
  ).toEqual([]);
  // the build the servers run has an id for each action (a stale .next would call old code)
  const ids = actionIds();
  expect(
    discovered.filter((e) => e.startsWith("ACTION ") && !ids.has(e.slice(7))),
    "run next build",
  ).toEqual([]);
});

// ---- the servers ----

const ACCOUNTS: Account[] = [
  { name: "viewer", role: "viewer" },
  { name: "reviewer", role: "reviewer" },
  { name: "op-sandbox", role: "operator", env: "sandbox" },
  { name: "op-production", role: "operator", env: "production" },
  { name: "admin", role: "admin" },
  { name: "b-admin", role: "admin", project: "team-b" },
];
const USER_OF: Partial<Record<PrincipalName, string>> = {
  viewer: "viewer",
  reviewer: "reviewer",
  operatorSandbox: "op-sandbox",
  operatorProduction: "op-production",
  admin: "admin",
  otherAdmin: "b-admin",
};

// seeded: two runs in "default", one in "team-b"
const SEED = {
  default: "00-refund-clean.jsonl",
  defaultOther: "02-codefix-clean.jsonl",
  teamB: "01-booking-clean.jsonl",
};
/** What must never reach someone who may not read the run: payload text, workflow and agent names. */
const DEFAULT_SECRETS = [
  "charged twice for order A-1214",
  "parser: crash on empty input",
  "support-refund",
  "code-fix-agent",
  '"code-fix"',
];
const TEAM_B_SECRETS = ["Book me a flight to NRT", "travel-booking"];

interface World {
  server: LockedServer;
  runs: { default: string; defaultOther: string; teamB: string };
  headers: Record<PrincipalName, Record<string, string>>;
  actions: ReturnType<typeof actionIds>;
}

const cookieHeader = (token: string) => ({ cookie: `retrace_session=${token}` });

/** Signs in through the real login form; the session cookie it set. */
async function formLogin(browser: Browser, base: string, name: string, password = PASSWORD): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname !== "/login");
    const c = (await context.cookies()).find((x) => x.name === "retrace_session");
    if (!c) throw new Error(`no session cookie after signing in as ${name}`);
    return c.value;
  } finally {
    await context.close();
  }
}

async function makeWorld(browser: Browser, dialect: "sqlite" | "postgres", port: number): Promise<World> {
  const server = await startLockedServer({
    name: "matrix",
    dialect,
    port,
    projects: ["team-b"],
    accounts: ACCOUNTS,
    keys: { "agent-ingest": ["ingest", "default"], "ci-read": ["read", "default"], "b-ingest": ["ingest", "team-b"] },
  });
  const k = server.keys;
  const [a] = await seedJournal(server.base, k["agent-ingest"], SEED.default);
  const [b] = await seedJournal(server.base, k["agent-ingest"], SEED.defaultOther);
  const [c] = await seedJournal(server.base, k["b-ingest"], SEED.teamB);
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const headers: Partial<Record<PrincipalName, Record<string, string>>> = {
    anonymous: {},
    wrongKey: bearer(`rtk_${randomBytes(32).toString("base64url")}`),
    ingestKey: bearer(k["agent-ingest"]),
    readKey: bearer(k["ci-read"]),
  };
  for (const p of PRINCIPALS) {
    const user = USER_OF[p];
    if (user) headers[p] = cookieHeader(await formLogin(browser, server.base, user));
  }
  const all = Object.fromEntries(PRINCIPALS.map((p) => [p, must(headers[p])])) as Record<PrincipalName, Record<string, string>>;
  return { server, runs: { default: a, defaultOther: b, teamB: c }, headers: all, actions: actionIds() };
}

// ---- one cell of the matrix ----

const TS = "2026-11-07T11:00:01.026Z";
const journalLine = (run: string) =>
  JSON.stringify({ run, seq: 0, ts: TS, type: "run.start", data: { workflow: { name: "matrix-write", version: "1" } } }) + "\n";
const otlpBody = (traceId: string) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "matrix-agent" } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId: traceId.slice(0, 16),
                name: "invoke_agent matrix-agent",
                kind: 1,
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000001000000000",
                attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } }],
              },
            ],
          },
        ],
      },
    ],
  });

/** A write the matrix made for a new run: where it should (not) have landed. */
interface Write {
  cell: string;
  run: string;
  allowed: boolean;
  project: string;
}

interface CellResult {
  status: number;
  problem?: string;
  write?: Write;
}

function runIdOf(w: World, target: RunTarget | undefined, cellId: string): string {
  if (target === "default") return w.runs.default;
  if (target === "team-b") return w.runs.teamB;
  return `mx-${cellId}`;
}

async function runCell(w: World, c: Case, p: PrincipalName, cellId: string): Promise<CellResult> {
  const base = w.server.base;
  const headers = w.headers[p];
  const expected = c.expect[PRINCIPALS.indexOf(p)];
  if (c.kind === "action") {
    const action = w.actions.get(`${c.file}.${c.name}`);
    if (!action) return { status: -1, problem: "no id for this action in the build" };
    let sent = headers;
    let throwaway: string | undefined;
    if (c.name === "signOut" && USER_OF[p]) {
      // a session of this user made for this cell, through the signIn action
      const made = await callAction(base, w.actions.get("session.signIn") ?? action, { name: USER_OF[p], password: PASSWORD });
      if (!made.cookie) return { status: -1, problem: "could not make a session to sign out" };
      throwaway = made.cookie;
      sent = cookieHeader(throwaway);
    }
    const out = await callAction(base, action, c.input, sent);
    if (throwaway) {
      const after = await fetch(`${base}/api/runs`, { headers: cookieHeader(throwaway) });
      if (after.status !== 401) return { status: out.status, problem: `the signed-out session still answers ${after.status}` };
    }
    return { status: out.status };
  }
  const run = runIdOf(w, c.run, cellId);
  const query = (c.query ?? "").replace("[default]", w.runs.default).replace("[team-b]", w.runs.teamB);
  const url = `${base}${c.path.replace("[run]", run)}${query ? `?${query}` : ""}`;
  if (c.kind === "page") {
    const res = await fetch(url, { headers, redirect: "manual" });
    await res.body?.cancel();
    if (res.status === 307 && !(res.headers.get("location") ?? "").includes("/login"))
      return { status: res.status, problem: `redirects to ${res.headers.get("location")}, not /login` };
    return { status: res.status };
  }
  let body: string | undefined;
  let contentType = "application/x-ndjson";
  let written: string | undefined;
  const kind: Body | undefined = c.body;
  if (kind === "journal" || kind === "import" || (kind === "append" && c.run === "new")) {
    written = run;
    body = journalLine(run);
  } else if (kind === "append") {
    body = fixtureLine(c.run === "team-b" ? SEED.teamB : SEED.default, 0);
  } else if (kind === "otlp") {
    const traceId = createHash("sha256").update(`${w.server.base}/${cellId}`).digest("hex").slice(0, 32);
    written = `otel-${traceId}`;
    body = otlpBody(traceId);
    contentType = "application/json";
  }
  const ctl = new AbortController();
  const res = await fetch(url, {
    method: c.method,
    headers: { ...headers, ...(body !== undefined ? { "content-type": contentType } : {}) },
    body,
    redirect: "manual",
    signal: ctl.signal,
  });
  // the stream route answers forever: the status is all a cell needs
  ctl.abort();
  const write: Write | undefined = written
    ? {
        cell: cellId,
        run: written,
        allowed: expected >= 200 && expected < 300,
        // writes go to ?project=, else the principal's own project
        project: query.includes("project=team-b") || p === "otherAdmin" ? "team-b" : "default",
      }
    : undefined;
  return { status: res.status, write };
}

let cellsChecked = 0;

for (const [dialect, port] of [
  ["sqlite", ACCESS_PORT_BASE + 1],
  ["postgres", ACCESS_PORT_BASE + 2],
] as const) {
  test.describe(`locked server on ${dialect}`, () => {
    let w: World;
    const writes: Write[] = [];
    test.beforeAll(async ({ browser }, info) => {
      info.setTimeout(240_000);
      w = await makeWorld(browser, dialect, port);
    });
    test.afterAll(async () => {
      await w?.server.stop();
      console.log(`access matrix on ${dialect}: ${cellsChecked} cells checked so far`);
    });

    CASES.forEach((c, i) => {
      test(`matrix: ${caseName(c)}`, async () => {
        const wrong: string[] = [];
        for (const p of PRINCIPALS) {
          const cellId = `${dialect}-${i}-${p}`.toLowerCase();
          const got = await runCell(w, c, p, cellId);
          const want = c.expect[PRINCIPALS.indexOf(p)];
          if (got.status !== want || got.problem)
            wrong.push(`${p}: expected ${want}, got ${got.status}${got.problem ? ` (${got.problem})` : ""}`);
          if (got.write) writes.push(got.write);
          cellsChecked++;
        }
        expect(wrong, caseName(c)).toEqual([]);
      });
    });

    test("a refused write stored nothing; an allowed one landed in the project it was authorized for", async () => {
      expect(writes.length).toBeGreaterThan(40);
      const wrong: string[] = [];
      for (const x of writes) {
        for (const [reader, project] of [
          ["admin", "default"],
          ["otherAdmin", "team-b"],
        ] as const) {
          const res = await fetch(`${w.server.base}/api/runs/${x.run}`, { headers: w.headers[reader] });
          const want = x.allowed && x.project === project ? 200 : 404;
          if (res.status !== want) wrong.push(`${x.cell} (${x.run}) read by ${reader}: expected ${want}, got ${res.status}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    test("an ingest key is refused every read route and page; a read key every write route", async () => {
      const discovered = discoverEndpoints();
      const own = (e: string) =>
        CASES.find(
          (c) => endpointOf(c) === e && (c.kind === "action" || (c.run !== "team-b" && !(c.query ?? "").includes("project=team-b"))),
        );
      // public: health, the audit public key (a verifier needs no account) and the JSON 404
      // of unknown /api paths
      const isPublic = (e: string) => e === "GET /api/health" || e === "GET /api/keys/audit" || e.endsWith(" /api/[...path]");
      // a POST that stores nothing: it checks the uploaded bundle and answers (a read key may)
      const NOT_WRITES = ["POST /api/bundles/verify"];
      const reads = discovered.filter(
        (e) => (e.startsWith("GET ") && !isPublic(e)) || e === "PAGE /" || e.startsWith("PAGE /runs/") || e === "PAGE /compare",
      );
      const writesTo = discovered.filter((e) => e.startsWith("POST ") && !isPublic(e) && !NOT_WRITES.includes(e));
      expect(reads.length).toBeGreaterThan(8);
      expect(writesTo.length).toBeGreaterThan(3);
      for (const [list, principal] of [
        [reads, "ingestKey"],
        [writesTo, "readKey"],
      ] as const) {
        for (const e of list) {
          const c = own(e);
          expect(c, `${e} has a case in its own project`).toBeDefined();
          if (!c) continue;
          const got = await runCell(w, c, principal, `${dialect}-explicit-${principal}-${e}`.replace(/[^\w.-]+/g, "-").toLowerCase());
          expect([401, 403], `${principal} on ${e}`).toContain(got.status);
        }
      }
    });

    test("lists are filtered server-side: each principal sees only its projects' runs", async () => {
      const ids = async (p: PrincipalName) => {
        const res = await fetch(`${w.server.base}/api/runs?limit=200`, { headers: w.headers[p] });
        expect(res.status).toBe(200);
        return ((await res.json()) as { runs: { id: string }[] }).runs.map((r) => r.id);
      };
      for (const p of ["readKey", "viewer", "admin"] as const) {
        const seen = await ids(p);
        expect(seen).toEqual(expect.arrayContaining([w.runs.default, w.runs.defaultOther]));
        expect(seen).not.toContain(w.runs.teamB);
      }
      const b = await ids("otherAdmin");
      expect(b).toContain(w.runs.teamB);
      expect(b).not.toContain(w.runs.default);
      expect(b).not.toContain(w.runs.defaultOther);
    });

    test("without a session, no page or API answer carries a payload, a run id list or a workflow name", async ({ browser }) => {
      const { default: A, defaultOther: B, teamB: C } = w.runs;
      const allIds = [A, B, C];
      const paths = [
        "/",
        `/runs/${A}`,
        `/runs/${A}/replay`,
        `/compare?a=${A}&b=${B}`,
        "/api/runs",
        "/api/runs?workflow=support-refund",
        `/api/runs/${A}`,
        `/api/runs/${A}/events`,
        `/api/runs/${A}/summary`,
        `/api/runs/${A}/inspect?seq=1`,
        `/api/runs/${A}/search?q=refund`,
        `/api/runs/${A}/stream`,
        `/api/runs/${C}/events`,
      ];
      const anonymous = await browser.newContext();
      const seen = await browse(anonymous, w.server.base, paths, A);
      await anonymous.close();
      const leaks: string[] = [];
      for (const s of seen) {
        const banned = [...DEFAULT_SECRETS, ...TEAM_B_SECRETS, ...allIds.filter((id) => !s.asked.includes(id))];
        for (const b of banned) if (s.text.includes(b)) leaks.push(`${s.asked} → ${s.url} (${s.status}) holds "${b}"`);
        if (s.url.includes("/api/") || s.url.includes("/v1/")) {
          if (s.status !== 401) leaks.push(`${s.url} answered ${s.status}, not 401`);
        }
      }
      expect(seen.length).toBeGreaterThan(paths.length);
      expect(leaks).toEqual([]);
      // every page sent the browser to the login form
      for (const s of seen.filter((x) => x.kind === "final" && !x.asked.startsWith("/api") && !x.asked.startsWith("/v1")))
        expect(new URL(s.url).pathname, s.asked).toBe("/login");
    });

    test("a member of another project gets no byte of this project's runs either", async ({ browser }) => {
      const { default: A, defaultOther: B, teamB: C } = w.runs;
      const ctx = await browser.newContext();
      await ctx.addCookies([{ name: "retrace_session", value: w.headers.otherAdmin.cookie.split("=")[1], url: w.server.base }]);
      const page = await ctx.newPage();
      await page.goto(`${w.server.base}/`);
      // the list does show runs, its project's
      await expect(page.getByText(C).first()).toBeVisible();
      await page.close();
      const seen = await browse(ctx, w.server.base, [
        "/",
        `/runs/${A}`,
        `/runs/${A}/replay`,
        `/compare?a=${A}&b=${C}`,
        `/api/runs/${A}/events`,
      ]);
      await ctx.close();
      const leaks: string[] = [];
      for (const s of seen)
        for (const b of [...DEFAULT_SECRETS, ...[A, B].filter((id) => !s.asked.includes(id))])
          if (s.text.includes(b)) leaks.push(`${s.asked} → ${s.url} (${s.status}) holds "${b}"`);
      expect(leaks).toEqual([]);

      // the check would see a leak: the project's own admin gets these strings
      const admin = await browser.newContext();
      await admin.addCookies([{ name: "retrace_session", value: w.headers.admin.cookie.split("=")[1], url: w.server.base }]);
      const own = await browse(admin, w.server.base, [`/runs/${A}`]);
      await admin.close();
      expect(own.some((s) => s.text.includes("support-refund"))).toBe(true);
    });

    test("session fixation: the cookie changes at login and the one sent before is dead", async ({ browser }) => {
      // a value an attacker planted, and a real session of another account planted the same way
      const reviewerSession = (
        await callAction(w.server.base, must(w.actions.get("session.signIn")), { name: "reviewer", password: PASSWORD })
      ).cookie;
      expect(reviewerSession).toBeTruthy();
      for (const planted of ["attacker-chosen-value-0123456789", reviewerSession as string]) {
        const ctx = await browser.newContext();
        await ctx.addCookies([{ name: "retrace_session", value: planted, url: w.server.base }]);
        const page = await ctx.newPage();
        await page.goto(`${w.server.base}/login`);
        await page.getByLabel("Name", { exact: true }).fill("viewer");
        await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL((u) => u.pathname !== "/login");
        const now = (await ctx.cookies()).find((c) => c.name === "retrace_session")?.value;
        await ctx.close();
        expect(now).toBeTruthy();
        expect(now).not.toBe(planted);
        expect((await fetch(`${w.server.base}/api/runs`, { headers: cookieHeader(planted) })).status).toBe(401);
        expect((await fetch(`${w.server.base}/api/runs`, { headers: cookieHeader(now as string) })).status).toBe(200);
      }
    });

    test("logout: after Sign out the old cookie is dead", async ({ browser }) => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`${w.server.base}/login`);
      await page.getByLabel("Name", { exact: true }).fill("viewer");
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => u.pathname === "/");
      const token = must((await ctx.cookies()).find((c) => c.name === "retrace_session")?.value);
      expect((await fetch(`${w.server.base}/api/runs`, { headers: cookieHeader(token) })).status).toBe(200);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((u) => u.pathname === "/login");
      expect((await ctx.cookies()).find((c) => c.name === "retrace_session")).toBeUndefined();
      await ctx.close();
      expect((await fetch(`${w.server.base}/api/runs`, { headers: cookieHeader(token) })).status).toBe(401);
    });

    test("a cross-origin POST with a session cookie is refused and stores nothing", async () => {
      const post = (run: string, origin: string) =>
        fetch(`${w.server.base}/api/journals`, {
          method: "POST",
          headers: { ...w.headers.reviewer, origin, "content-type": "application/x-ndjson" },
          body: journalLine(run),
        });
      const evil = await post(`xo-evil-${dialect}`, "http://evil.example");
      expect(evil.status).toBe(403);
      expect(((await evil.json()) as { error: string }).error).toMatch(/cross-origin/);
      expect((await fetch(`${w.server.base}/api/runs/xo-evil-${dialect}`, { headers: w.headers.admin })).status).toBe(404);
      // the same request from the server's own origin is stored: the refusal was the Origin's doing
      expect((await post(`xo-same-${dialect}`, w.server.base)).status).toBe(201);
      expect((await fetch(`${w.server.base}/api/runs/xo-same-${dialect}`, { headers: w.headers.admin })).status).toBe(200);
    });
  });
}

function must<T>(v: T | undefined | null): T {
  if (v === undefined || v === null) throw new Error("missing value");
  return v;
}

interface Seen {
  asked: string;
  url: string;
  status: number;
  text: string;
  kind: "response" | "final";
}

/** Opens each path in the context's browser and keeps every response body and the final HTML. */
async function browse(ctx: BrowserContext, base: string, paths: readonly string[], postTo?: string): Promise<Seen[]> {
  const page = await ctx.newPage();
  const seen: Seen[] = [];
  let asked = "";
  const pending: Promise<void>[] = [];
  const traffic: Traffic = { inFlight: new Set(), changedAt: Date.now() };
  const done = (r: unknown) => {
    if (traffic.inFlight.delete(r)) traffic.changedAt = Date.now();
  };
  page.on("request", (r) => {
    if (r.resourceType() === "eventsource") return;
    traffic.inFlight.add(r);
    traffic.changedAt = Date.now();
  });
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  page.on("response", (r) => {
    const at = asked;
    // a live stream's body never ends; the stream route is read on its own (the matrix, the paths above)
    if ((r.headers()["content-type"] ?? "").startsWith("text/event-stream")) {
      seen.push({ asked: at, url: r.url(), status: r.status(), text: "", kind: "response" });
      return;
    }
    pending.push(
      r.body().then(
        (b) => void seen.push({ asked: at, url: r.url(), status: r.status(), text: b.toString("utf8"), kind: "response" }),
        // redirects and aborted streams have no body to read
        () => void seen.push({ asked: at, url: r.url(), status: r.status(), text: "", kind: "response" }),
      ),
    );
  });
  for (const p of paths) {
    asked = p;
    const res = await page.goto(`${base}${p}`);
    await settle(page, traffic);
    seen.push({ asked: p, url: page.url(), status: res?.status() ?? 0, text: await page.content(), kind: "final" });
  }
  if (postTo) {
    // OTLP and live append are POSTs: sent from a page of the server, as a script would
    asked = `POST /v1/traces, /api/runs/${postTo}/events`;
    await page.goto(`${base}/login`);
    await page.evaluate(
      async ([body, run]) => {
        await fetch("/v1/traces", { method: "POST", headers: { "content-type": "application/json" }, body });
        await fetch(`/api/runs/${run}/events`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: "" });
      },
      [otlpBody("0".repeat(31) + "1"), postTo] as const,
    );
    await settle(page, traffic);
  }
  await Promise.all(pending);
  await page.close();
  return seen;
}

/** The requests a page has in flight (live streams aside), and when that last changed (ms). */
interface Traffic {
  inFlight: Set<unknown>;
  changedAt: number;
}

/**
 * Loaded, and no request but live streams in flight for half a second (networkidle counts
 * an EventSource, which a run page keeps open for good): a condition polled, not a sleep.
 */
async function settle(page: Page, traffic: Traffic): Promise<void> {
  await page.waitForLoadState("load");
  await expect
    .poll(() => traffic.inFlight.size === 0 && Date.now() - traffic.changedAt >= 500, { timeout: 30_000, intervals: [100] })
    .toBe(true);
}

// ---- idle expiry and login rate limiting: a server of their own ----

test.describe("locked server with a 6-second idle limit (SQLite)", () => {
  let s: LockedServer;
  let signIn: { id: string; page: string };
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a hook asks for from this pattern
  test.beforeAll(async ({}, info) => {
    info.setTimeout(180_000);
    s = await startLockedServer({
      name: "idle",
      dialect: "sqlite",
      port: ACCESS_PORT_BASE + 3,
      accounts: [
        { name: "idle-user", role: "viewer" },
        { name: "victim", role: "viewer" },
        { name: "fresh", role: "viewer" },
      ],
      env: { RETRACE_SESSION_IDLE_MINUTES: "0.1" },
    });
    signIn = must(actionIds().get("session.signIn"));
  });
  test.afterAll(async () => s?.stop());

  test("idle expiry: a session unused for longer than the limit is dead", async () => {
    const token = must((await callAction(s.base, signIn, { name: "idle-user", password: PASSWORD })).cookie);
    expect((await fetch(`${s.base}/api/runs`, { headers: cookieHeader(token) })).status).toBe(200);
    await expect
      .poll(async () => (await fetch(`${s.base}/api/runs`, { headers: cookieHeader(token) })).status, {
        timeout: 30_000,
        intervals: [1000],
      })
      .toBe(401);
  });

  test("login rate limiting: one message for a wrong name or password; the 6th try is refused even with the right password", async ({
    page,
  }) => {
    const attempt = async (name: string, password: string) => {
      await page.goto(`${s.base}/login`);
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      // the form's own alert (Next's route announcer is an alert too)
      const alert = page.locator("form[aria-label='Sign in'] [role=alert]");
      await expect(alert).toBeVisible();
      return (await alert.textContent())?.trim();
    };
    const wrongName = await attempt("no-such-account", PASSWORD);
    const messages: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) messages.push(await attempt("victim", `wrong password ${i}`));
    expect(wrongName).toBe("wrong name or password");
    expect(new Set(messages)).toEqual(new Set([wrongName]));
    expect(await attempt("victim", PASSWORD)).toMatch(/too many failed sign-ins/);
    expect((await page.context().cookies()).find((c) => c.name === "retrace_session")).toBeUndefined();
  });

  test("the per-address limit is not dodged by sending X-Forwarded-For", async () => {
    for (let i = 0; i < 20; i++) {
      const r = await callAction(
        s.base,
        signIn,
        { name: `spray-${i}`, password: "not the password" },
        { "x-forwarded-for": `10.77.0.${i}` },
      );
      expect(r.status).toBe(200);
    }
    const r = await callAction(s.base, signIn, { name: "fresh", password: PASSWORD }, { "x-forwarded-for": "10.77.1.1" });
    expect(r.cookie).toBeUndefined();
    expect(r.result?.value).toEqual({ error: expect.stringMatching(/too many failed sign-ins/) });
  });
});
