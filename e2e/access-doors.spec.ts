/**
 * Issue 27's doors, against a locked SQLite server this file starts itself:
 *
 * - a sign-in with a hostile `next` lands on this server's `/`, in a browser and over HTTP;
 * - bundle exports are POSTs: a GET exports nothing and logs nothing, a cross-site POST is
 *   refused (403) and logs nothing, a same-origin POST exports and logs once;
 * - a cross-origin server action is answered 403 at the edge (proxy.ts) with one log line;
 * - an executor on a metadata, loopback or decimal-spelled address is refused at save time.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import {
  ACCESS_PORT_BASE,
  PASSWORD,
  STAMP,
  actionIds,
  callAction,
  seedJournal,
  startLockedServer,
  type LockedServer,
} from "./access-servers";

const EVIL = "http://evil.example";

let s: LockedServer;
let run: string;
let reviewer: string;
let admin: string;
const logFile = () => path.join(process.cwd(), ".tmp", `access-doors-${STAMP}.log`);

/** `audit.export` entries in the server's privileged-action log, read from its database file. */
function exportsLogged(): number {
  const db = new Database(s.databaseUrl.slice("file:".length), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM "AuditEntry" WHERE "action" = 'audit.export'`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const action = (name: string) => {
  const a = actionIds().get(name);
  if (!a) throw new Error(`no action ${name} in this build`);
  return a;
};

async function session(name: string): Promise<string> {
  const out = await callAction(s.base, action("session.signIn"), { name, password: PASSWORD });
  if (!out.cookie) throw new Error(`no session for ${name}`);
  return `retrace_session=${out.cookie}`;
}

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a hook asks for from this pattern
test.beforeAll(async ({}, info) => {
  info.setTimeout(180_000);
  s = await startLockedServer({
    name: "doors",
    dialect: "sqlite",
    port: ACCESS_PORT_BASE + 14,
    accounts: [
      { name: "reviewer", role: "reviewer" },
      { name: "admin", role: "admin" },
    ],
    keys: { ingest: ["ingest", "default"] },
  });
  [run] = await seedJournal(s.base, s.keys.ingest, "00-refund-clean.jsonl");
  reviewer = await session("reviewer");
  admin = await session("admin");
});
test.afterAll(async () => s?.stop());

// `next` values that lead off-site when passed through as they are (tests/access/safe-next.test.ts has the full table)
const HOSTILE_NEXT = [
  "/\t/evil.example",
  "/\\evil.example",
  "\\/evil.example",
  "//evil.example",
  "https://evil.example/",
  "/%09/evil.example",
];

test("a sign-in with a hostile next lands on this server's /, in the browser", async ({ browser }) => {
  for (const next of HOSTILE_NEXT) {
    const context = await browser.newContext();
    try {
      // were the browser sent off-site, it would reach nothing and its URL would say so
      await context.route(
        (u) => u.hostname.endsWith("evil.example"),
        (r) => r.abort(),
      );
      const page = await context.newPage();
      await page.goto(`${s.base}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel("Name", { exact: true }).fill("reviewer");
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => u.pathname !== "/login");
      const at = new URL(page.url());
      expect([next, at.origin, at.pathname]).toEqual([next, s.base, "/"]);
    } finally {
      await context.close();
    }
  }
});

test("a sign-in with a path of this server still goes there", async ({ page }) => {
  await page.goto(`${s.base}/login?next=${encodeURIComponent(`/runs/${run}`)}`);
  await page.getByLabel("Name", { exact: true }).fill("reviewer");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname !== "/login");
  expect(new URL(page.url()).pathname).toBe(`/runs/${run}`);
});

test("the sign-in action redirects a hostile next to /, over HTTP", async () => {
  const signIn = action("session.signIn");
  for (const next of HOSTILE_NEXT) {
    const res = await fetch(`${s.base}${signIn.page}`, {
      method: "POST",
      redirect: "manual",
      headers: { "next-action": signIn.id, accept: "text/x-component", "content-type": "text/plain;charset=UTF-8", origin: s.base },
      body: JSON.stringify([{ name: "reviewer", password: PASSWORD, next }]),
    });
    await res.text();
    expect([next, (res.headers.get("x-action-redirect") ?? "").split(";")[0]]).toEqual([next, "/"]);
  }
});

test("bundle exports: a GET exports and logs nothing; a cross-site POST is refused; a same-origin POST exports once", async () => {
  const one = `${s.base}/api/runs/${encodeURIComponent(run)}/bundle?profile=reviewer`;
  const many = `${s.base}/api/bundles?runs=${encodeURIComponent(run)}&profile=reviewer`;
  expect(exportsLogged()).toBe(0);
  for (const url of [one, many]) {
    // what an <img src> or a link on another site makes the victim's browser send
    const get = await fetch(url, { headers: { cookie: reviewer, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" } });
    expect([url, get.status]).toEqual([url, 405]);
    const plainGet = await fetch(url, { headers: { cookie: reviewer } });
    expect([url, plainGet.status]).toEqual([url, 405]);
    const foreign: Record<string, string>[] = [
      { origin: EVIL },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of foreign) {
      const post = await fetch(url, { method: "POST", headers: { cookie: reviewer, ...headers } });
      expect([url, headers, post.status]).toEqual([url, headers, 403]);
      expect(((await post.json()) as { error: string }).error).toMatch(/cross-(origin|site) request refused/);
    }
  }
  expect(exportsLogged()).toBe(0);
  const ok = await fetch(one, { method: "POST", headers: { cookie: reviewer, origin: s.base, "sec-fetch-site": "same-origin" } });
  expect(ok.status).toBe(200);
  expect(ok.headers.get("content-type")).toBe("application/gzip");
  expect((await ok.arrayBuffer()).byteLength).toBeGreaterThan(100);
  expect(exportsLogged()).toBe(1);
});

test("the run page's Export bundle button downloads the bundle (a form POST)", async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const token = reviewer.split("=")[1];
    await context.addCookies([{ name: "retrace_session", value: token, url: s.base }]);
    const page = await context.newPage();
    await page.goto(`${s.base}/runs/${encodeURIComponent(run)}`);
    const before = exportsLogged();
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export bundle" }).click();
    expect((await download).suggestedFilename()).toMatch(/\.reviewer\.retrace-bundle\.tar\.gz$/);
    expect(exportsLogged()).toBe(before + 1);
  } finally {
    await context.close();
  }
});

test("a cross-origin server action is answered 403 at the edge with one short log line", async () => {
  const signIn = action("session.signIn");
  const logSize = () => fs.statSync(logFile()).size;
  for (const [what, headers, body] of [
    ["fetch action, foreign Origin", { "next-action": signIn.id, origin: EVIL, "content-type": "text/plain;charset=UTF-8" }, "[{}]"],
    ["fetch action, null Origin", { "next-action": signIn.id, origin: "null", "content-type": "text/plain;charset=UTF-8" }, "[{}]"],
    [
      "form post without script, Sec-Fetch-Site cross-site",
      { "sec-fetch-site": "cross-site", "content-type": "application/x-www-form-urlencoded" },
      `$ACTION_ID_${signIn.id}=&name=admin&password=x`,
    ],
  ] as const) {
    const before = logSize();
    const res = await fetch(`${s.base}${signIn.page}`, {
      method: "POST",
      redirect: "manual",
      headers: { accept: "text/x-component", cookie: admin, ...headers },
      body,
    });
    expect([what, res.status]).toEqual([what, 403]);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(await res.text()).toMatch(/cross-(origin|site) request refused/);
    // the line is written as the answer goes out: wait for it, then check it came alone
    await expect.poll(() => logSize() > before, { timeout: 5000 }).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const added = fs.readFileSync(logFile()).subarray(before).toString("utf8").trimEnd().split("\n");
    expect([what, added.length]).toEqual([what, 1]);
    expect(added[0]).toMatch(/^retrace: 403 POST \/login: cross-origin/);
    expect(added[0].length).toBeLessThan(200);
  }
  // the same action from this server's own page still works
  const own = await callAction(s.base, signIn, { name: "admin", password: PASSWORD });
  expect(own.cookie).toBeTruthy();
});

test("an executor on a metadata, loopback or decimal-spelled address is refused when saved", async () => {
  const add = action("executors.addExecutor");
  for (const url of ["http://169.254.169.254/latest", "http://127.0.0.1:9", "http://2130706433/", "http://[::1]/", "http://10.0.0.1/"]) {
    const r = await callAction(
      s.base,
      add,
      { project: "default", kind: "tool", name: "*", environment: "sandbox", url, credential: "" },
      { cookie: admin },
    );
    expect([url, r.status]).toEqual([url, 400]);
    expect(r.result?.error).toMatch(/address/);
  }
});
