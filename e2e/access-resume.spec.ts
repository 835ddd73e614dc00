/**
 * Resume (issue 17) end to end on a locked SQLite server with the demo project's sandbox
 * executors (the demo bank and scripted model over HTTP, registered with the real CLI):
 *
 * - the resume plan of the demo run that failed after a durable checkpoint: a table whose
 *   links go to the right events (the kb_search read reused, the first refund skipped, the
 *   timed-out second one to reconcile first);
 * - server actions called directly: a viewer and a reviewer are refused with the role, an
 *   operator's resume is refused while the timeout is unreconciled; nothing reaches the bank;
 * - after reconciling (asking the bank by idempotency key, from the plan's link), the
 *   resume runs the scripted model from the checkpoint and makes a branch run with
 *   `resumeOf`, listed under the original, and a log entry; no write reaches the bank;
 * - a succeeded run's checkpoint says why there is no resume; hostile names stay text.
 *
 * Screenshots (1440x900, 1024x768) go to /tmp/shots-resume/.
 */
import { expect, test, type Page } from "@playwright/test";
import { hashOf } from "../lib/canonical";
import { actionIds, ACCESS_PORT_BASE, callAction, PASSWORD } from "./access-servers";
import { startLiveFixture, type DemoEvent as Ev, type LiveFixture } from "./live-fixture";

const OUTAGE = "demo-refund-gateway-outage";
const OK_RUN = "demo-refund-approval";
const HOSTILE = "hostile-resume";

let fx: LiveFixture;
let model = "";

const seqOf = (run: string, type: string, pick: (e: Ev) => boolean = () => true, n = 0) =>
  fx.journals[run].filter((e) => e.type === type && pick(e))[n].seq;

/** A failed run whose names are hostile: markup, bidi controls, a very long tool name. */
function hostileJournal(): string {
  const state = { note: "<b>bold</b>" };
  const tool = `<img src=x onerror="document.title='pwned'">${"x".repeat(300)}\u202Egnp.exe`;
  const ts = (i: number) => new Date(Date.UTC(2026, 10, 7, 12, 0, i)).toISOString();
  const events = [
    { type: "run.start", data: { workflow: { name: "hostile", version: "1" }, agent: { name: "a", version: "1" }, environment: "demo" } },
    { type: "model.request", data: { call: "m", model: "scripted-planner-1", messages: [{ role: "user", content: "hi" }] } },
    { type: "model.response", data: { call: "m", output: { toolCalls: [{ id: "c1", name: tool, args: {} }] } } },
    { type: "checkpoint", data: { id: `cp-\u202E<script>alert(1)</script>${"y".repeat(200)}`, state, hash: hashOf(state), durable: true } },
    { type: "tool.call", data: { call: "c1", tool, args: { q: "<i>x</i>" }, effect: "read" } },
    { type: "tool.result", data: { call: "c1", status: "ok", result: "<svg onload=alert(1)>" } },
    { type: "tool.call", data: { call: "c2", tool, args: { n: 2 }, effect: "write", idempotencyKey: "k2" } },
    { type: "tool.result", data: { call: "c2", status: "unknown" } },
    { type: "run.end", data: { status: "cancelled" } },
  ];
  return events.map((e, seq) => JSON.stringify({ run: HOSTILE, seq, ts: ts(seq), ...e })).join("\n") + "\n";
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  fx = await startLiveFixture({
    name: "resume",
    port: ACCESS_PORT_BASE + 12,
    shotsDir: "/tmp/shots-resume",
    journals: { "hostile.jsonl": hostileJournal() },
  });
  fx.executor("tool", "*", "sandbox", fx.bank.url);
  model = fx.executor("model", "scripted-planner-1", "sandbox", `${fx.bank.url}/v1`);
});

test.afterAll(async () => {
  await fx?.close();
});

async function openPlan(page: Page) {
  const panel = page.getByTestId("resume-panel");
  await expect(panel).toBeVisible();
  await panel.locator("summary").click();
  await expect(panel.getByRole("table", { name: "Resume plan" })).toBeVisible();
  return panel;
}

test("the plan of the failed demo run: reuse, skip, reconcile first, each row linked to its events", async ({ page }) => {
  const refund = (e: Ev) => e.data.tool === "issue_refund";
  const kb = seqOf(OUTAGE, "tool.call", (e) => e.data.tool === "kb_search");
  const [pay2, pay3] = [seqOf(OUTAGE, "tool.call", refund, 0), seqOf(OUTAGE, "tool.call", refund, 1)];
  const timeout = seqOf(OUTAGE, "tool.result", (e) => e.data.status === "timeout");
  const cp = seqOf(OUTAGE, "checkpoint", (e) => e.data.id === "triaged");
  await fx.signIn(page, "viewer");
  await page.goto(`${fx.server.base}/runs/${OUTAGE}`);
  const panel = await openPlan(page);
  const rows = panel.getByRole("table", { name: "Resume plan" }).locator("tbody tr");
  await expect(rows).toHaveCount(3);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action")))).toEqual(["reuse", "skip", "reconcile"]);
  await expect(rows.nth(0)).toContainText("kb_search");
  await expect(rows.nth(1)).toContainText("rf_0001");
  await expect(rows.nth(2)).toContainText("reconcile first");
  await expect(panel.getByTestId("resume-counts")).toContainText("1 reused · 1 skipped · 1 to reconcile first");
  await expect(panel.getByLabel("Checkpoint")).toHaveValue("triaged");
  // every link is the event's deep link
  const href = (seq: number) => `/runs/${OUTAGE}?event=${seq}`;
  const links = (i: number) => rows.nth(i).getByRole("link");
  expect(await links(0).first().getAttribute("href")).toBe(href(kb));
  expect(await links(1).first().getAttribute("href")).toBe(href(pay2));
  expect(await links(2).first().getAttribute("href")).toBe(href(pay3));
  expect(await links(2).nth(1).getAttribute("href")).toBe(href(timeout));
  expect(await panel.getByRole("link", { name: `#${cp}`, exact: true }).getAttribute("href")).toBe(href(cp));
  await expect(panel.getByTestId("resume-refusal")).toContainText(`#${timeout} issue_refund (timeout)`);
  // a viewer sees the plan and is offered no resume
  await expect(panel.getByTestId("resume-form")).toHaveCount(0);
  await expect(panel).toContainText("Resuming needs the operator role");
  await fx.shots(page, "plan-viewer");

  // a link selects its event in place, and the URL follows; opened on its own it goes there too
  await links(2).nth(1).click();
  await expect(page.getByTestId("inspector")).toHaveAttribute("data-seq", String(timeout));
  await expect(page).toHaveURL(new RegExp(`event=${timeout}$`));
  await page.goto(`${fx.server.base}${href(kb)}`);
  await expect(page.getByTestId("inspector")).toHaveAttribute("data-seq", String(kb));
  await expect(page.getByTestId("inspector")).toContainText("kb_search");
});

test("server actions called directly: viewer and reviewer refused with the role, the unreconciled timeout refuses an operator; nothing reaches the bank", async () => {
  const ids = actionIds();
  const plan = await callAction(fx.server.base, ids.get("live.resumePlanOf")!, { run: OUTAGE }, await fx.session("op-sandbox"));
  expect(plan.status).toBe(200);
  const digest = (plan.result?.value as { plan: { digest: string } }).plan.digest;
  const input = { run: OUTAGE, checkpoint: "triaged", executor: model, digest, reason: "resume the refunds", password: PASSWORD };
  const cases: [string, number, RegExp][] = [
    ["viewer", 403, /^\[role\].*operator role.*you are viewer/],
    ["reviewer", 403, /^\[role\].*you are reviewer/],
    ["op-sandbox", 409, /^\[unreconciled\] reconcile first: #\d+ issue_refund \(timeout\)/],
  ];
  for (const [who, status, message] of cases) {
    const out = await callAction(fx.server.base, ids.get("live.resumeRun")!, input, await fx.session(who));
    expect(out.status, `${who}: ${out.result?.error}`).toBe(status);
    expect(out.result?.error ?? "").toMatch(message);
  }
  const noPassword = await callAction(
    fx.server.base,
    ids.get("live.resumeRun")!,
    { ...input, password: undefined },
    await fx.session("op-sandbox"),
  );
  expect(noPassword.result?.error ?? "").toMatch(/^\[confirmation\]/);
  expect(fx.bank.requests).toEqual([]);
});

test("reconciled from the plan's link, the run resumes: the model asked again, a branch with resumeOf under its original, a log entry", async ({
  page,
}) => {
  const pay3 = seqOf(OUTAGE, "tool.call", (e) => e.data.tool === "issue_refund", 1);
  const cp = seqOf(OUTAGE, "checkpoint", (e) => e.data.id === "triaged");
  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${OUTAGE}`);
  const panel = await openPlan(page);
  await expect(panel.getByTestId("resume-refusal")).toBeVisible();
  await expect(panel.getByRole("button", { name: "Resume live" })).toHaveCount(0);
  await fx.shots(page, "plan-refused");

  // the reconcile row's link opens the call, whose inspector reconciles it
  await panel
    .getByRole("table", { name: "Resume plan" })
    .getByRole("link", { name: `#${pay3}`, exact: true })
    .click();
  await expect(page.getByTestId("inspector")).toHaveAttribute("data-seq", String(pay3));
  const live = page.getByTestId("live-actions");
  await live.getByRole("button", { name: "Reconcile…" }).click();
  const form = page.getByTestId("reconcile-form");
  await form.getByLabel(/ask the executor by idempotency key/).check();
  await form.getByLabel("Reason (goes into the log)").fill("the gateway timed out; ask the bank");
  await form.getByLabel("Your password, to confirm").fill(PASSWORD);
  await form.getByRole("button", { name: "Record reconcile" }).click();
  await expect(page.getByTestId("live-done")).toContainText("succeeded · external id rf_0002");
  expect(fx.bank.requests.map((r) => r.path)).toEqual(["/lookup"]);

  // the plan follows: the timeout is now skipped (reconciled on the branch), and the resume is offered
  const rows = panel.getByRole("table", { name: "Resume plan" }).locator("tbody tr");
  await expect(rows.nth(2)).toHaveAttribute("data-action", "skip");
  await expect(rows.nth(2)).toContainText("reconciled on");
  await expect(panel.getByTestId("resume-refusal")).toHaveCount(0);
  const resume = panel.getByTestId("resume-form");
  await resume.getByLabel("Reason (goes into the log)").fill("both refunds are confirmed: finish the answer");
  await resume.getByLabel("Your password, to confirm").fill(PASSWORD);
  await fx.shots(page, "resume-form");
  await resume.getByRole("button", { name: "Resume live" }).click();
  const done = panel.getByTestId("resume-done");
  await expect(done).toContainText("stopped: final-answer");
  await expect(done).toContainText("Refunded 50.00 for order A-3003");
  await fx.shots(page, "resume-done", done);
  // the model was asked; every call it made was answered from the recording: no write reached the bank
  expect(fx.bank.requests.map((r) => r.path)).toEqual(["/lookup", ...Array(4).fill("/v1/chat/completions")]);

  const branch = (await done.getByRole("link").textContent())!;
  expect(branch).toMatch(new RegExp(`^${OUTAGE}\\.resume-[0-9a-f]{8}$`));
  const events = (await (await page.request.get(`${fx.server.base}/api/runs/${encodeURIComponent(branch)}/events?limit=1000`)).json()) as {
    events: { event: Ev }[];
  };
  expect(events.events[0].event.data.resumeOf).toEqual({ run: OUTAGE, checkpoint: "triaged" });
  expect(events.events.filter((e) => e.event.seq <= cp).every((e) => e.event.data.live === undefined)).toBe(true);
  expect(events.events.filter((e) => e.event.seq > cp).every((e) => e.event.data.live !== undefined)).toBe(true);
  await page.goto(`${fx.server.base}/runs/${encodeURIComponent(branch)}`);
  await expect(page.getByTestId("branch-bar")).toContainText(`resume of ${OUTAGE} at #${cp}`);
  await fx.shots(page, "resume-branch");

  // under the original: the reconcile and the resume
  await page.goto(`${fx.server.base}/runs/${OUTAGE}`);
  const list = page.getByRole("list", { name: "Branch runs" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list).toContainText("resume at #");
  await page.goto(`${fx.server.base}/`);
  await expect(page.getByTestId("branch-of")).toHaveCount(2);
});

test("the privileged-action log has the resume, and its chain verifies", async ({ page }) => {
  await fx.signIn(page, "admin");
  await page.goto(`${fx.server.base}/admin/log`);
  await expect(page.getByText("live.resume").first()).toBeVisible();
  expect(fx.retrace(["log", "verify"])).toMatch(/ok|verif/i);
});

test("a succeeded run offers no resume: its checkpoint says why", async ({ page }) => {
  const cp = seqOf(OK_RUN, "checkpoint");
  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${OK_RUN}?event=${cp}`);
  await expect(page.getByTestId("resume-hint")).toContainText("No resume from here: the run succeeded");
  await expect(page.getByTestId("resume-panel")).toHaveCount(0);
  // a run with no branch and no resume plan gets no bar under its header
  await expect(page.getByTestId("branch-bar")).toHaveCount(0);
  await fx.shots(page, "checkpoint-no-resume");
  // the failed run's durable checkpoint opens the plan from there; a non-durable one says why not
  await page.goto(`${fx.server.base}/runs/${OUTAGE}?event=${seqOf(OUTAGE, "checkpoint", (e) => e.data.id === "refunded-2")}`);
  await expect(page.getByTestId("resume-hint")).toContainText("not durable");
  await page.goto(`${fx.server.base}/runs/${OUTAGE}?event=${seqOf(OUTAGE, "checkpoint", (e) => e.data.id === "received")}`);
  await page.getByTestId("resume-hint").getByRole("button", { name: "Resume plan from this checkpoint" }).click();
  const panel = page.getByTestId("resume-panel");
  await expect(panel.getByLabel("Checkpoint")).toHaveValue("received");
  await expect(panel.getByTestId("resume-refusal")).toContainText("no model call");
  await fx.shots(page, "plan-from-received");
});

test("hostile names in a plan stay text and nothing scrolls sideways", async ({ page }) => {
  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${HOSTILE}`);
  const panel = await openPlan(page);
  await expect(panel.getByRole("table", { name: "Resume plan" }).locator("tbody tr")).toHaveCount(2);
  expect(await page.locator(".resume-panel img, .resume-panel script, .resume-panel svg").count()).toBe(0);
  expect(await page.title()).not.toBe("pwned");
  await expect(panel.getByTestId("resume-refusal")).toContainText("reconcile first");
  // the bidi override in the checkpoint id is shown as its code, not obeyed
  await expect(panel.getByLabel("Checkpoint").locator("option").first()).toContainText("cp-(U+202E)<script>");
  // a long checkpoint id or tool name does not push the table's last column out of the page
  for (const w of [1440, 1024]) {
    await page.setViewportSize({ width: w, height: 800 });
    await expect(panel.getByRole("columnheader", { name: "why" })).toBeInViewport();
  }
  await fx.shots(page, "plan-hostile");
});
