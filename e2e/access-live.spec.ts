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
import { expect, test } from "@playwright/test";
import { actionIds, ACCESS_PORT_BASE, callAction, PASSWORD } from "./access-servers";
import { startLiveFixture, type LiveFixture } from "./live-fixture";

const RETRY = "demo-refund-retry-no-idempotency";
const KEYED = "demo-refund-approval";

let fx: LiveFixture;
let sandbox = "";
let production = "";
const seqs: Record<string, number[]> = {};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  fx = await startLiveFixture({ name: "live", port: ACCESS_PORT_BASE + 10, shotsDir: "/tmp/shots-live" });
  for (const [run, events] of Object.entries(fx.journals))
    seqs[run] = events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund").map((e) => e.seq);
  sandbox = fx.executor("tool", "*", "sandbox", fx.bank.url);
  fx.executor("model", "scripted-planner-1", "sandbox", `${fx.bank.url}/v1`);
  // a production executor pointing at the same bank: anything that leaked through would show in its log
  production = fx.executor("tool", "issue_refund", "production", fx.bank.url);
});

test.afterAll(async () => {
  await fx?.close();
});

test("the admin page lists the sandbox executors without their credentials", async ({ page }) => {
  await fx.signIn(page, "admin");
  await page.goto(`${fx.server.base}/admin/executors`);
  const table = page.getByRole("table", { name: "Executors" });
  await expect(table).toContainText("sandbox");
  await expect(table).toContainText("production");
  await expect(table).toContainText("set (encrypted)");
  expect(await page.content()).not.toContain(fx.token);
  await fx.shots(page, "admin-executors");
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
    const out = await callAction(fx.server.base, action, input, await fx.session(who));
    expect(out.status, `${who}: ${out.result?.error}`).toBe(status);
    expect(out.result?.error ?? "").toMatch(message);
  }
  expect(fx.bank.requests).toEqual([]);
});

test("reconcile the timed-out refund, then re-execute it as a confirmed repeat: branch runs, live marks, log entries", async ({ page }) => {
  const [first, retry] = seqs[RETRY];
  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${RETRY}?event=${first}`);
  const live = page.getByTestId("live-actions");
  await expect(live).toBeVisible();
  await live.getByRole("button", { name: "Preview re-execute" }).click();
  const preview = page.getByTestId("reexecute-preview");
  await expect(preview.getByTestId("live-refusal")).toContainText(`#${first} (timeout)`);
  await expect(preview.getByTestId("live-refusal")).toContainText("reconcile it first");
  await expect(preview.getByRole("button", { name: "Re-execute live" })).toHaveCount(0);
  await fx.shots(page, "reexecute-refused");

  await live.getByRole("button", { name: "Reconcile…" }).click();
  const form = page.getByTestId("reconcile-form");
  await form.getByLabel("it succeeded").check();
  await form.getByLabel("External id (evidence)").fill("rf_0001");
  await form.getByLabel("Evidence", { exact: true }).fill("the bank's ledger shows rf_0001 for A-2002");
  await form.getByLabel("Reason (goes into the log)").fill("the gateway timed out after committing");
  await form.getByLabel("Your password, to confirm").fill(PASSWORD);
  await fx.shots(page, "reconcile-form");
  await form.getByRole("button", { name: "Record reconcile" }).click();
  await expect(page.getByTestId("live-done")).toContainText("succeeded · external id rf_0001");
  expect(fx.bank.requests).toEqual([]);

  await live.getByRole("button", { name: "Preview re-execute" }).click();
  await expect(preview.getByTestId("live-refusal")).toHaveCount(0);
  await expect(preview.getByTestId("live-duplicate")).toContainText(`#${first} rf_0001, #${retry} rf_0002`);
  await expect(preview.getByTestId("key-source")).toContainText("new key");
  await preview.getByLabel("Reason (goes into the log)").fill("the customer was refunded twice already: checking the executor");
  await preview.getByLabel("Your password, to confirm").fill(PASSWORD);
  await preview.getByRole("button", { name: "Re-execute live" }).click();
  await expect(preview.getByRole("alert")).toContainText("[operation name]");
  expect(fx.bank.requests).toEqual([]);
  await preview.getByLabel("Operation name").fill("issue_refund");
  await fx.shots(page, "reexecute-duplicate");
  await preview.getByRole("button", { name: "Re-execute live" }).click();
  const done = page.getByTestId("live-done");
  await expect(done).toContainText("ok · external id rf_0003");
  expect(fx.bank.requests.map((r) => r.path)).toEqual(["/call"]);

  // the branch run: forkOf, the live events marked, its original linked
  const branch = (await done.getByRole("link").textContent())!;
  await page.goto(`${fx.server.base}/runs/${encodeURIComponent(branch)}?event=${first}`);
  await expect(page.getByTestId("branch-bar")).toContainText(`live re-execute of ${RETRY} at #${first}`);
  await expect(page.getByTestId("live-event").first()).toContainText("re-execute on sandbox by user:op-sandbox");
  await fx.shots(page, "branch-run");
  const events = (await (await page.request.get(`${fx.server.base}/api/runs/${encodeURIComponent(branch)}/events?limit=1000`)).json()) as {
    events: { event: { seq: number; type: string; data: Record<string, unknown> } }[];
  };
  expect(events.events[0].event.data.forkOf).toEqual({ run: RETRY, seq: first });
  expect(events.events.filter((e) => e.event.data.live !== undefined).map((e) => [e.event.seq, e.event.type])).toEqual([
    [first, "tool.call"],
    [first + 1, "tool.result"],
  ]);

  // both branches under the original, on its page and in the runs list
  await page.goto(`${fx.server.base}/runs/${RETRY}`);
  await expect(page.getByRole("list", { name: "Branch runs" }).getByRole("listitem")).toHaveCount(2);
  await page.goto(`${fx.server.base}/`);
  await expect(page.getByTestId("branch-of")).toHaveCount(2);
  await fx.shots(page, "runs-list-branches");
});

test("the privileged-action log has the reconcile and the re-execution, and its chain verifies", async ({ page }) => {
  await fx.signIn(page, "admin");
  await page.goto(`${fx.server.base}/admin/log`);
  await expect(page.getByText("live.reconcile").first()).toBeVisible();
  await expect(page.getByText("live.reexecute").first()).toBeVisible();
  expect(fx.retrace(["log", "verify"])).toMatch(/ok|verif/i);
});

test("the same idempotency key sent twice moves money once (the bank's ledger)", async () => {
  const ids = actionIds();
  const cookie = await fx.session("op-sandbox");
  const [pay] = seqs[KEYED];
  const ledger = async () =>
    (
      (await (await fetch(`${fx.bank.url}/ledger?order=A-1001`, { headers: { authorization: `Bearer ${fx.token}` } })).json()) as {
        payments: { id: string; idempotencyKey: string }[];
      }
    ).payments;
  expect(await ledger()).toHaveLength(1);
  const before = fx.bank.requests.length;
  for (let i = 0; i < 2; i++) {
    const p = await callAction(fx.server.base, ids.get("live.previewReexecute")!, { run: KEYED, seq: pay, executor: sandbox }, cookie);
    const v = p.result?.value as { digest: string; idempotencyKey: string; keySource: string };
    expect(v).toMatchObject({ idempotencyKey: "refund-A-1001", keySource: "recorded" });
    const out = await callAction(
      fx.server.base,
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
  expect(fx.bank.requests.slice(before).map((r) => r.idempotencyKey)).toEqual(["refund-A-1001", "refund-A-1001"]);
  expect((await ledger()).map((p) => p.idempotencyKey)).toEqual(["refund-A-1001"]);
});

test("a viewer's run page and the simulated replay page offer no live action", async ({ page, browser }) => {
  const [first] = seqs[RETRY];
  await fx.signIn(page, "viewer");
  await page.goto(`${fx.server.base}/runs/${RETRY}?event=${first}`);
  await expect(page.getByText("Arguments").first()).toBeVisible();
  await expect(page.getByTestId("live-actions")).toHaveCount(0);
  const ctx = await browser.newContext();
  const op = await ctx.newPage();
  await fx.signIn(op, "op-sandbox");
  await op.goto(`${fx.server.base}/runs/${RETRY}/replay`);
  await expect(op.getByTestId("run-view").or(op.locator("main"))).toBeVisible();
  // the replay page lists the branch runs live actions made of this run, as the run page
  // does: once that shows, the page has its data, and still no live action
  await expect(op.getByTestId("branch-bar")).toContainText("2 branch runs made by live actions");
  await expect(op.getByTestId("live-actions")).toHaveCount(0);
  await fx.shots(op, "replay-branches");
  await ctx.close();
});
