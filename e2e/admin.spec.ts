/**
 * The admin pages on a locked server of their own (the shared e2e servers are open):
 * an admin signs in, makes a project, adds a viewer to it, makes a read key that works
 * once shown and is never shown again, revokes it, and finds each step in the
 * privileged-action log; attaches a declared policy to a workflow from the Projects page
 * (refused with the reason for broken JSON and a schema error, nothing stored) and the run
 * says which version judged it; the viewer gets the 403 page naming the role needed, and
 * the attach action itself refuses them.
 *
 * Screenshots of the Projects page's workflow policies go to test-results/screenshots/.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { actionIds, callAction } from "./access-servers";
import { uniqueId } from "./fixtures/journals";

const ADMIN = { name: "chief", password: "chief-password-2026" };
const VIEWER = { name: "vera", password: "vera-password-2026" };
const PROJECT = "e2e-ops";
const DB_FILE = `.tmp/e2e-admin-${process.env.E2E_STAMP ?? "run"}.db`;

let server: ChildProcess | undefined;
let base = "";

/** The first port from E2E_PORT_BASE+50 that nothing listens on. */
async function freePort(from: number): Promise<number> {
  for (let port = from; port < from + 20; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.once("listening", () => probe.close(() => resolve(true)));
      probe.listen(port, "127.0.0.1");
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${from}..${from + 19}`);
}

function cli(env: NodeJS.ProcessEnv, args: string[], input?: string) {
  const r = spawnSync("node", ["scripts/retrace.mjs", ...args], { env, input, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`retrace ${args.join(" ")} failed: ${r.stderr}`);
}

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async () => {
  const port = await freePort(Number(process.env.E2E_PORT_BASE ?? 3100) + 50);
  fs.mkdirSync(".tmp", { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(DB_FILE + suffix, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `file:./${DB_FILE}`, NEXT_TELEMETRY_DISABLED: "1" };
  delete env.RETRACE_TOKENS;
  cli(env, ["migrate"]);
  cli(env, ["user", "add", ADMIN.name, "--role", "admin"], `${ADMIN.password}\n`);
  server = spawn("node_modules/.bin/next", ["start", "-H", "127.0.0.1", "-p", String(port)], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Ready in/.test(output)) resolve();
    };
    server!.stdout!.on("data", seen);
    server!.stderr!.on("data", seen);
    server!.once("exit", (code) => reject(new Error(`next start exited with ${code}:\n${output}`)));
  });
  base = `http://127.0.0.1:${port}`;
  expect((await fetch(`${base}/api/health`)).status).toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(DB_FILE + suffix, { force: true });
});

async function signedIn(browser: Browser, who: { name: string; password: string }): Promise<Page> {
  const context = await browser.newContext({ baseURL: base });
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Name").fill(who.name);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  return page;
}

const journal = (run: string) =>
  [
    { run, seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "run.start", data: { workflow: { name: "e2e-admin", version: "1" } } },
    { run, seq: 1, ts: "2026-11-07T11:00:01.000Z", type: "run.end", data: { status: "succeeded" } },
  ]
    .map((l) => JSON.stringify(l))
    .join("\n") + "\n";

const SHOTS = path.resolve("test-results/screenshots");

/**
 * The Projects page at 1440x900 and 1024x768, scrolled to its workflow policies, saved as
 * admin-NAME-WIDTH.png (`end`: scrolled to that selector's bottom instead); neither the page nor its scrolling main area scrolls sideways.
 */
async function shoot(page: Page, name: string, end?: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [
    [1440, 900],
    [1024, 768],
  ]) {
    await page.setViewportSize({ width, height });
    const sideways = await page.evaluate(() =>
      [document.documentElement, document.querySelector("main")].map((e) => (e ? e.scrollWidth - e.clientWidth : 0)),
    );
    expect(sideways, `${name} at ${width}px scrolls sideways`).toEqual([0, 0]);
    // the section's top, or (`end`) the bottom of what a test just answered
    if (end) await page.locator(end).evaluate((e) => e.scrollIntoView({ block: "end" }));
    else await page.locator("#workflow-policies-head").evaluate((e) => e.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: path.join(SHOTS, `admin-${name}-${width}.png`), animations: "disabled" });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("with no run naming a workflow, the Projects page says there is nothing to attach a policy to", async ({ browser }) => {
  const page = await signedIn(browser, ADMIN);
  await page.goto("/admin/projects");
  const section = page.getByRole("region", { name: "Workflow policies" });
  await expect(section).toContainText("No run in the projects you administer names a workflow yet");
  await expect(section.getByRole("form", { name: "Attach a policy" })).toHaveCount(0);
  await shoot(page, "policies-empty");
});

test("an admin makes a project, a viewer and a read key, revokes the key, and the log shows each step", async ({ browser }) => {
  const page = await signedIn(browser, ADMIN);

  await page.goto("/admin/projects");
  const projectForm = page.getByRole("form", { name: "Create a project" });
  await projectForm.getByLabel("ID").fill(PROJECT);
  await projectForm.getByRole("button", { name: "Create project" }).click();
  const projects = page.getByRole("table", { name: "Projects" });
  await expect(projects.getByRole("cell", { name: PROJECT, exact: true }).first()).toBeVisible();
  // a refused change shows the server's own words
  await projectForm.getByLabel("ID").fill(PROJECT);
  await projectForm.getByRole("button", { name: "Create project" }).click();
  await expect(projectForm.getByRole("alert")).toHaveText(`project "${PROJECT}" exists`);

  await page.goto("/admin/users");
  const addUser = page.getByRole("form", { name: "Add a user" });
  await addUser.getByLabel("Name", { exact: true }).fill(VIEWER.name);
  await addUser.getByLabel("Password", { exact: true }).fill(VIEWER.password);
  await addUser.getByLabel("Project").selectOption(PROJECT);
  await addUser.getByLabel("Role").selectOption("viewer");
  await addUser.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByRole("combobox", { name: `Role of ${VIEWER.name} in ${PROJECT}` })).toHaveValue("viewer");

  // one run in the new project, one in default: the key must see only the first
  for (const [run, project] of [
    ["e2e-admin-ops-run", PROJECT],
    ["e2e-admin-default-run", "default"],
  ]) {
    const res = await page.request.post(`/api/journals?project=${project}`, {
      data: journal(run),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status(), await res.text()).toBeLessThan(300);
  }

  await page.goto("/admin/keys");
  const keyForm = page.getByRole("form", { name: "Create a key" });
  await keyForm.getByLabel("Name", { exact: true }).fill("e2e-reader");
  await keyForm.getByLabel("Scope").selectOption("read");
  await keyForm.getByLabel("Project").selectOption(PROJECT);
  await keyForm.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("region", { name: "New key" });
  await expect(shown).toContainText("you will not see it again");
  const key = await shown.getByLabel("Key value").inputValue();
  expect(key).toMatch(/^rtk_/);

  const read = await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${key}` } });
  expect(read.status).toBe(200);
  expect(((await read.json()) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual(["e2e-admin-ops-run"]);

  const row = page.getByRole("row").filter({ hasText: "e2e-reader" });
  await expect(row).toContainText(key.slice(0, 10));
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByRole("region", { name: "New key" })).toHaveCount(0);
  expect(await page.content()).not.toContain(key);

  await row.getByRole("button", { name: "Revoke…" }).click();
  await row.getByRole("button", { name: "Revoke e2e-reader" }).click();
  await expect(row).toContainText("revoked");
  expect((await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

  await page.goto("/admin/log");
  await expect(page.getByRole("status").filter({ hasText: "Chain verified" })).toBeVisible();
  const log = page.getByRole("table", { name: "Privileged actions" });
  const entry = (action: string, target: string, result: string) =>
    log
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name: action, exact: true }) })
      .filter({ has: page.getByRole("cell", { name: target, exact: true }) })
      .filter({ has: page.getByRole("cell", { name: result, exact: true }) });
  await expect(entry("project.add", PROJECT, "ok")).toHaveCount(1);
  await expect(entry("project.add", PROJECT, "refused")).toHaveCount(1);
  await expect(entry("user.add", VIEWER.name, "ok")).toHaveCount(1);
  await expect(entry("key.add", "e2e-reader", "ok")).toHaveCount(1);
  await expect(entry("key.revoke", "e2e-reader", "ok")).toHaveCount(1);
  await expect(log).not.toContainText(key);
  await expect(log).not.toContainText(VIEWER.password);
});

/** Two modifications of order #1: the second (seq 3) breaks a once-per policy on order_id. */
const twiceModified = (run: string, workflow: string) =>
  (
    [
      ["run.start", { workflow: { name: workflow } }],
      ["tool.call", { call: "a", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-a" }],
      ["tool.result", { call: "a", status: "ok", result: {} }],
      ["tool.call", { call: "b", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-b" }],
      ["run.end", { status: "succeeded" }],
    ] as const
  )
    .map(([type, data], seq) => JSON.stringify({ run, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), type, data }))
    .join("\n") + "\n";

// the workflow the admin attaches a policy to; the viewer's test checks it still has one version
const POLICY_WORKFLOW = uniqueId("e2e-airline");
const ONCE = { invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify"], arg: "/order_id" }] };

test("an admin attaches a policy to a workflow on the Projects page, and the run says which version judged it", async ({ browser }) => {
  const page = await signedIn(browser, ADMIN);
  const run = uniqueId("e2e-policy-run");
  // a name far longer than the table's column: it wraps, the page does not scroll sideways
  const long = `${uniqueId("e2e-long")}-${"very-long-workflow-name-".repeat(13)}`.slice(0, 300);
  expect(long).toHaveLength(300);
  for (const [id, workflow] of [
    [run, POLICY_WORKFLOW],
    [uniqueId("e2e-long-run"), long],
  ]) {
    const res = await page.request.post("/api/journals?project=default", {
      data: twiceModified(id, workflow),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status(), await res.text()).toBeLessThan(300);
  }

  await page.goto("/admin/projects");
  const section = page.getByRole("region", { name: "Workflow policies" });
  const table = section.getByRole("table", { name: "Workflow policies" });
  const row = table.getByRole("row").filter({ has: page.getByRole("cell", { name: POLICY_WORKFLOW, exact: true }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(1)).toHaveText("1");
  await expect(row.getByRole("cell").nth(2)).toHaveText("none");
  await expect(table.getByRole("cell", { name: long, exact: true })).toBeVisible();
  await shoot(page, "policies-long-name");

  const form = section.getByRole("form", { name: "Attach a policy" });
  await form.getByLabel("Workflow").selectOption(POLICY_WORKFLOW);
  const text = form.getByLabel(/^Policy JSON/);

  // not JSON: the line and column of the mistake, the text kept, nothing stored
  const broken = '{\n  "invariants": [\n    oops\n  ]\n}';
  await text.fill(broken);
  await form.getByRole("button", { name: "Attach as next version" }).click();
  await expect(form.getByRole("alert")).toHaveText(/^not JSON \(line 3, column \d+\)$/);
  await expect(text).toHaveValue(broken);
  await shoot(page, "policies-refused", "form.attach-policy");

  // JSON the schema refuses: the JSON path of what is wrong, nothing stored
  const invalid = JSON.stringify({ invariants: [{ id: "x", kind: "once-per", tools: [], arg: "/order_id" }] });
  await text.fill(invalid);
  await form.getByRole("button", { name: "Attach as next version" }).click();
  await expect(form.getByRole("alert")).toHaveText(/^policy\.invariants\[0\]\.tools: /);
  await expect(text).toHaveValue(invalid);
  await page.reload();
  await expect(row.getByRole("cell").nth(2)).toHaveText("none");
  await expect(row.getByRole("cell").nth(3)).toHaveText("none");

  // a file read into the form, attached: the answer names the version and the runs judged again
  await form.getByLabel("Workflow").selectOption(POLICY_WORKFLOW);
  await form.getByLabel("Or read a JSON file").setInputFiles({
    name: "once.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(ONCE)),
  });
  await expect(text).toHaveValue(JSON.stringify(ONCE));
  await form.getByRole("button", { name: "Attach as next version" }).click();
  await expect(form.getByRole("status")).toHaveText(`Attached v1 to ${POLICY_WORKFLOW}: 1 run judged again.`);
  await expect(row.getByRole("cell").nth(2)).toContainText("v1");
  await expect(row.getByRole("cell").nth(2)).toContainText("user:chief");
  await row.locator("summary").click();
  await expect(row.locator("summary")).toHaveText("1 version");
  await expect(row.getByRole("list", { name: `Policy versions of ${POLICY_WORKFLOW}` }).getByRole("listitem")).toHaveText([
    /^v1 · \d{4}-\d\d-\d\d \d\d:\d\d · user:chief$/,
  ]);
  await shoot(page, "policies-attached", "form.attach-policy");

  await page.goto(`/runs/${run}?tab=findings`);
  await expect(page.getByTestId("judged-by")).toHaveText(`policy attached to workflow ${POLICY_WORKFLOW}, version 1`);
  await expect(page.getByText("policy.once-per").first()).toBeVisible();
});

test("a viewer opening /admin gets the 403 page naming the role needed", async ({ browser }) => {
  const page = await signedIn(browser, VIEWER);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
  const res = await page.goto("/admin");
  expect(res?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "You do not have access to this page" })).toBeVisible();
  await expect(page.getByText("This page needs the admin role in a project.")).toBeVisible();
  expect((await page.goto("/admin/projects"))?.status()).toBe(403);
  await expect(page.getByRole("region", { name: "Workflow policies" })).toHaveCount(0);
});

test("the attach action itself refuses a viewer, and stores nothing", async ({ browser }) => {
  const page = await signedIn(browser, VIEWER);
  const session = (await page.context().cookies()).find((c) => c.name === "retrace_session");
  expect(session).toBeDefined();
  const attach = actionIds().get("admin.attachPolicy");
  expect(attach, "run next build").toBeDefined();
  const out = await callAction(
    base,
    attach!,
    { workflow: POLICY_WORKFLOW, policy: JSON.stringify(ONCE) },
    { cookie: `retrace_session=${session!.value}` },
  );
  expect(out.result).toEqual({ ok: false, status: 403, error: "attaching a policy needs the admin role" });

  const admin = await signedIn(browser, ADMIN);
  await admin.goto("/admin/projects");
  const row = admin
    .getByRole("table", { name: "Workflow policies" })
    .getByRole("row")
    .filter({ has: admin.getByRole("cell", { name: POLICY_WORKFLOW, exact: true }) });
  await expect(row.locator("summary")).toHaveText("1 version");
});
