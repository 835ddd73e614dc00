/**
 * Live actions end to end (issue 17) on a locked SQLite server made like an operator
 * makes one, with the demo project's sandbox executors: the demo bank and scripted model
 * over HTTP, registered with the real CLI (credential on stdin, stored encrypted).
 *
 * - The demo refund run whose payment timed out although it committed: re-executing it is
 *   refused until reconciled; reconciled as succeeded with the bank's external id; the
 *   retry is then previewed as a repeat of confirmed writes and needs the operation's name;
 *   the branch run exists with forkOf, its live event marked, and a log entry.
 * - The same idempotency key sent twice to the bank moves money once (its ledger).
 * - Refusals by calling the server actions directly: viewer, reviewer, a sandbox operator
 *   on production, no fresh confirmation: each names what it lacks, and the bank's request
 *   log stays empty.
 * - A viewer's run page and the simulated replay page offer no live action.
 *
 * Screenshots (1440x900, 1024x768) go to /tmp/shots-live/.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { startBankServer, type BankServer } from "../scripts/demo-agent/bank-server";
import { runScenarios } from "../scripts/demo-agent/scenarios";
import { ACCESS_PORT_BASE, actionIds, callAction, PASSWORD, startLockedServer, type LockedServer } from "./access-servers";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SHOTS = "/tmp/shots-live";
const TOKEN = `bank-${Math.random().toString(36).slice(2)}-0123456789`;
const RETRY = "demo-refund-retry-no-idempotency";
const KEYED = "demo-refund-approval";

let server: LockedServer;
let bank: BankServer;
let dir: string;
let sandbox = "";
let production = "";
const seqs: Record<string, number[]> = {};

function retrace(args: string[], input = ""): string {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: server.databaseUrl };
  delete env.RETRACE_TOKENS;
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    env,
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`retrace ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  fs.mkdirSync(SHOTS, { recursive: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-live-e2e-"));
  await runScenarios({ outDir: dir, dbDir: path.join(dir, "bank"), fixedClock: true });
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl"))) {
    const events = fs
      .readFileSync(path.join(dir, f), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { run: string; seq: number; type: string; data: { tool?: string } });
    seqs[events[0].run] = events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund").map((e) => e.seq);
  }
  server = await startLockedServer({
    name: "live",
    dialect: "sqlite",
    port: ACCESS_PORT_BASE + 10,
    accounts: [
      { name: "viewer", role: "viewer" },
      { name: "reviewer", role: "reviewer" },
      { name: "op-sandbox", role: "operator", env: "sandbox" },
      { name: "admin", role: "admin" },
    ],
  });
  retrace([
    "import",
    ...fs
      .readdirSync(dir)
      .filter((x) => x.endsWith(".jsonl"))
      .map((f) => path.join(dir, f)),
  ]);
  bank = await startBankServer({ dir: path.join(dir, "bank"), port: ACCESS_PORT_BASE + 11, token: TOKEN });
  const add = (kind: string, name: string, env: string, url: string) =>
    /executor (ex_[0-9a-f]+)/.exec(
      retrace(
        ["executor", "add", "--project", "default", "--kind", kind, "--name", name, "--env", env, "--url", url, "--credential"],
        `${TOKEN}\n`,
      ),
    )![1];
  sandbox = add("tool", "*", "sandbox", bank.url);
  add("model", "scripted-planner-1", "sandbox", `${bank.url}/v1`);
  // a production executor pointing at the same bank: anything that leaked through would show in its log
  production = add("tool", "issue_refund", "production", bank.url);
});

test.afterAll(async () => {
  await bank?.close();
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function signIn(page: Page, name: string) {
  await page.goto(`${server.base}/login`);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname !== "/login");
}

async function shots(page: Page, name: string) {
  for (const [w, h] of [
    [1440, 900],
    [1024, 768],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}.png` });
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    expect(scroll, `${name} at ${w}px scrolls sideways`).toBe(false);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function session(name: string): Promise<Record<string, string>> {
  const out = await callAction(server.base, actionIds().get("session.signIn")!, { name, password: PASSWORD });
  if (!out.cookie) throw new Error(`no session for ${name}`);
  return { cookie: `retrace_session=${out.cookie}` };
}

test("the admin page lists the sandbox executors without their credentials", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto(`${server.base}/admin/executors`);
  const table = page.getByRole("table", { name: "Executors" });
  await expect(table).toContainText("sandbox");
  await expect(table).toContainText("production");
  await expect(table).toContainText("set (encrypted)");
  expect(await page.content()).not.toContain(TOKEN);
  await shots(page, "admin-executors");
});

test("server actions called directly refuse viewer, reviewer, sandbox operator on production and no confirmation; nothing reaches the bank", async () => {
  const ids = actionIds();
  const reexecute = ids.get("live.reexecuteCall")!;
  const reconcile = ids.get("live.reconcileCall")!;
  const [first] = seqs[RETRY];
  const base = { run: RETRY, seq: first, digest: "0".repeat(64), reason: "matrix of refusals" };
  const cases: [string, { id: string; page: string }, Record<string, unknown>, number, RegExp][] = [
    ["viewer", reexecute, { ...base, executor: sandbox, password: PASSWORD }, 403, /^\[role\].*operator role/],
    ["reviewer", reexecute, { ...base, executor: sandbox, password: PASSWORD }, 403, /^\[role\].*you are reviewer/],
    [
      "op-sandbox",
      reexecute,
      { ...base, executor: production, password: PASSWORD, operationName: "issue_refund" },
      403,
      /^\[environment\].*"production"/,
    ],
    ["op-sandbox", reexecute, { ...base, executor: sandbox }, 401, /^\[confirmation\] re-enter your password/],
    ["viewer", reconcile, { ...base, executor: sandbox, mode: "mark", outcome: "succeeded", password: PASSWORD }, 403, /^\[role\]/],
    ["op-sandbox", reconcile, { ...base, executor: sandbox, mode: "mark", outcome: "succeeded" }, 401, /^\[confirmation\]/],
  ];
  for (const [who, action, input, status, message] of cases) {
    const out = await callAction(server.base, action, input, await session(who));
    expect(out.status, `${who}: ${out.result?.error}`).toBe(status);
    expect(out.result?.error ?? "").toMatch(message);
  }
  expect(bank.requests).toEqual([]);
});

test("reconcile the timed-out refund, then re-execute it as a confirmed repeat: branch runs, live marks, log entries", async ({ page }) => {
  const [first, retry] = seqs[RETRY];
  await signIn(page, "op-sandbox");
  await page.goto(`${server.base}/runs/${RETRY}?event=${first}`);
  const live = page.getByTestId("live-actions");
  await expect(live).toBeVisible();
  await live.getByRole("button", { name: "Preview re-execute" }).click();
  const preview = page.getByTestId("reexecute-preview");
  await expect(preview.getByTestId("live-refusal")).toContainText(`#${first} (timeout)`);
  await expect(preview.getByTestId("live-refusal")).toContainText("reconcile it first");
  await expect(preview.getByRole("button", { name: "Re-execute live" })).toHaveCount(0);
  await shots(page, "reexecute-refused");

  await live.getByRole("button", { name: "Reconcile…" }).click();
  const form = page.getByTestId("reconcile-form");
  await form.getByLabel("it succeeded").check();
  await form.getByLabel("External id (evidence)").fill("rf_0001");
  await form.getByLabel("Evidence", { exact: true }).fill("the bank's ledger shows rf_0001 for A-2002");
  await form.getByLabel("Reason (goes into the log)").fill("the gateway timed out after committing");
  await form.getByLabel("Your password, to confirm").fill(PASSWORD);
  await shots(page, "reconcile-form");
  await form.getByRole("button", { name: "Record reconcile" }).click();
  await expect(page.getByTestId("live-done")).toContainText("succeeded · external id rf_0001");
  expect(bank.requests).toEqual([]);

  await live.getByRole("button", { name: "Preview re-execute" }).click();
  await expect(preview.getByTestId("live-refusal")).toHaveCount(0);
  await expect(preview.getByTestId("live-duplicate")).toContainText(`#${first} rf_0001, #${retry} rf_0002`);
  await expect(preview.getByTestId("key-source")).toContainText("new key");
  await preview.getByLabel("Reason (goes into the log)").fill("the customer was refunded twice already: checking the executor");
  await preview.getByLabel("Your password, to confirm").fill(PASSWORD);
  await preview.getByRole("button", { name: "Re-execute live" }).click();
  await expect(preview.getByRole("alert")).toContainText("[operation name]");
  expect(bank.requests).toEqual([]);
  await preview.getByLabel("Operation name").fill("issue_refund");
  await shots(page, "reexecute-duplicate");
  await preview.getByRole("button", { name: "Re-execute live" }).click();
  const done = page.getByTestId("live-done");
  await expect(done).toContainText("ok · external id rf_0003");
  expect(bank.requests.map((r) => r.path)).toEqual(["/call"]);

  // the branch run: forkOf, the live events marked, its original linked
  const branch = (await done.getByRole("link").textContent())!;
  await page.goto(`${server.base}/runs/${encodeURIComponent(branch)}?event=${first}`);
  await expect(page.getByTestId("branch-bar")).toContainText(`live re-execute of ${RETRY} at #${first}`);
  await expect(page.getByTestId("live-event").first()).toContainText("re-execute on sandbox by user:op-sandbox");
  await shots(page, "branch-run");
  const events = (await (await page.request.get(`${server.base}/api/runs/${encodeURIComponent(branch)}/events?limit=1000`)).json()) as {
    events: { event: { seq: number; type: string; data: Record<string, unknown> } }[];
  };
  expect(events.events[0].event.data.forkOf).toEqual({ run: RETRY, seq: first });
  expect(events.events.filter((e) => e.event.data.live !== undefined).map((e) => [e.event.seq, e.event.type])).toEqual([
    [first, "tool.call"],
    [first + 1, "tool.result"],
  ]);

  // both branches under the original, on its page and in the runs list
  await page.goto(`${server.base}/runs/${RETRY}`);
  await expect(page.getByRole("list", { name: "Branch runs" }).getByRole("listitem")).toHaveCount(2);
  await page.goto(`${server.base}/`);
  await expect(page.getByTestId("branch-of")).toHaveCount(2);
  await shots(page, "runs-list-branches");
});

test("the privileged-action log has the reconcile and the re-execution, and its chain verifies", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto(`${server.base}/admin/log`);
  await expect(page.getByText("live.reconcile").first()).toBeVisible();
  await expect(page.getByText("live.reexecute").first()).toBeVisible();
  expect(retrace(["log", "verify"])).toMatch(/ok|verif/i);
});

test("the same idempotency key sent twice moves money once (the bank's ledger)", async () => {
  const ids = actionIds();
  const cookie = await session("op-sandbox");
  const [pay] = seqs[KEYED];
  const ledger = async () =>
    (
      (await (await fetch(`${bank.url}/ledger?order=A-1001`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        payments: { id: string; idempotencyKey: string }[];
      }
    ).payments;
  expect(await ledger()).toHaveLength(1);
  const before = bank.requests.length;
  for (let i = 0; i < 2; i++) {
    const p = await callAction(server.base, ids.get("live.previewReexecute")!, { run: KEYED, seq: pay, executor: sandbox }, cookie);
    const v = p.result?.value as { digest: string; idempotencyKey: string; keySource: string };
    expect(v).toMatchObject({ idempotencyKey: "refund-A-1001", keySource: "recorded" });
    const out = await callAction(
      server.base,
      ids.get("live.reexecuteCall")!,
      {
        run: KEYED,
        seq: pay,
        executor: sandbox,
        digest: v.digest,
        reason: "same key twice",
        password: PASSWORD,
        operationName: "issue_refund",
      },
      cookie,
    );
    expect(out.result?.value).toMatchObject({ status: "ok", externalId: "rf_0001" });
  }
  expect(bank.requests.slice(before).map((r) => r.idempotencyKey)).toEqual(["refund-A-1001", "refund-A-1001"]);
  expect((await ledger()).map((p) => p.idempotencyKey)).toEqual(["refund-A-1001"]);
});

test("a viewer's run page and the simulated replay page offer no live action", async ({ page, browser }) => {
  const [first] = seqs[RETRY];
  await signIn(page, "viewer");
  await page.goto(`${server.base}/runs/${RETRY}?event=${first}`);
  await expect(page.getByText("Arguments").first()).toBeVisible();
  await expect(page.getByTestId("live-actions")).toHaveCount(0);
  const ctx = await browser.newContext();
  const op = await ctx.newPage();
  await signIn(op, "op-sandbox");
  await op.goto(`${server.base}/runs/${RETRY}/replay`);
  await expect(op.getByTestId("run-view").or(op.locator("main"))).toBeVisible();
  await op.waitForTimeout(500);
  await expect(op.getByTestId("live-actions")).toHaveCount(0);
  // the replay page lists the branch runs live actions made of this run, as the run page does
  await expect(op.getByTestId("branch-bar")).toContainText("2 branch runs made by live actions");
  await shots(op, "replay-branches");
  await ctx.close();
});
