/**
 * Continue a fork live (issue 17), end to end on a locked SQLite server with the demo
 * project's sandbox executors (the demo bank and its scripted model over HTTP, registered
 * with the real CLI, credential on stdin, stored encrypted).
 *
 * - Refusals by calling the server action directly: viewer, reviewer, a sandbox operator
 *   with the production model executor, no fresh confirmation: each names what it lacks,
 *   and the executors' request log stays empty.
 * - A viewer's replay page with the same fork offers no "Continue live".
 * - The operator continues the refund run's fork with the timed-out payment edited to ok:
 *   the scripted model is called (the bank's request log), the branch run opens beside its
 *   original with the first divergence at the edited seq, what the agent then did, and the
 *   mode (recorded, simulated, live) on every frame; the log has the entry.
 *
 * Screenshots (1440x900, 1024x768) go to /tmp/shots-continue/.
 */
import { expect, test, type Page } from "@playwright/test";
import { actionIds, ACCESS_PORT_BASE, callAction, PASSWORD } from "./access-servers";
import { startLiveFixture, type LiveFixture } from "./live-fixture";

const RUN = "demo-refund-approval";
const OVERRIDE = { toolResult: { status: "ok", result: { id: "rf_0001", amountCents: 4999 } } };

let fx: LiveFixture;
let model = "";
let prodModel = "";
let fork = 0;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  fx = await startLiveFixture({
    name: "continue",
    port: ACCESS_PORT_BASE + 4,
    shotsDir: "/tmp/shots-continue",
    scenarios: ["refund-approval"],
  });
  fork = fx.journals[RUN].find((e) => e.type === "tool.result" && e.data.status === "timeout")!.seq;
  fx.executor("tool", "*", "sandbox", fx.bank.url);
  model = fx.executor("model", "scripted-planner-1", "sandbox", `${fx.bank.url}/v1`);
  // a production model executor pointing at the same bank: anything that leaked through would show in its log
  prodModel = fx.executor("model", "scripted-planner-1", "production", `${fx.bank.url}/v1`);
});

test.afterAll(async () => {
  await fx?.close();
});

const forkUrl = () => `${fx.server.base}/runs/${RUN}/replay?fork=${fork}&override=${encodeURIComponent(JSON.stringify(OVERRIDE))}`;

async function openFork(page: Page) {
  await page.goto(forkUrl());
  const view = page.getByTestId("replay-view");
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await expect(view).toHaveAttribute("data-mode", "fork");
  await page.getByRole("tab", { name: "Fork" }).click();
}

test("the server action called directly refuses viewer, reviewer, sandbox operator on production and no confirmation; nothing reaches an executor", async () => {
  const action = actionIds().get("live.continueLive")!;
  const base = { run: RUN, seq: fork, override: OVERRIDE, digest: "0".repeat(64), reason: "matrix of refusals" };
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    ["viewer", { ...base, executor: model, password: PASSWORD }, 403, /^\[role\].*operator role.*you are viewer/],
    ["reviewer", { ...base, executor: model, password: PASSWORD }, 403, /^\[role\].*you are reviewer/],
    ["op-sandbox", { ...base, executor: prodModel, password: PASSWORD, operationName: "continue" }, 403, /^\[environment\].*"production"/],
    ["op-sandbox", { ...base, executor: model }, 401, /^\[confirmation\] re-enter your password/],
  ];
  for (const [who, input, status, message] of cases) {
    const out = await callAction(fx.server.base, action, input, await fx.session(who));
    expect(out.status, `${who}: ${out.result?.error}`).toBe(status);
    expect(out.result?.error ?? "").toMatch(message);
  }
  // the preview, too, is the operator's
  const preview = await callAction(
    fx.server.base,
    actionIds().get("live.previewContinue")!,
    { run: RUN, seq: fork, override: OVERRIDE, executor: model },
    await fx.session("viewer"),
  );
  expect(preview.status).toBe(403);
  expect(fx.bank.requests).toEqual([]);
});

test("a viewer's replay page with the fork offers no Continue live", async ({ page }) => {
  await fx.signIn(page, "viewer");
  await openFork(page);
  await expect(page.getByRole("region", { name: "Active fork" }).or(page.getByLabel("Active fork"))).toBeVisible();
  await expect(page.getByTestId("continue-live")).toHaveCount(0);
  await fx.shots(page, "viewer-fork-no-continue");
});

test("continue the refund fork with the payment edited to ok: the scripted model answers, the branch opens beside the original", async ({
  page,
}) => {
  await fx.signIn(page, "op-sandbox");
  await openFork(page);
  const panel = page.getByTestId("continue-live");
  await expect(panel).toBeVisible();
  await panel.getByRole("button", { name: "Preview continue live" }).click();
  const preview = page.getByTestId("continue-preview");
  await expect(preview).toContainText(`From #${fork}`);
  await expect(preview).toContainText("scripted-planner-1");
  await expect(preview).toContainText("8 messages");
  expect(fx.bank.requests).toEqual([]);
  await preview.getByLabel("Reason (goes into the log)").fill("what would the agent have done had the payment answered ok?");
  await fx.shots(page, "continue-preview");
  await preview.getByRole("button", { name: "Continue live" }).click();
  await expect(preview.getByRole("alert")).toContainText("[confirmation]");
  expect(fx.bank.requests).toEqual([]);
  await preview.getByLabel("Your password, to confirm").fill(PASSWORD);
  await preview.getByRole("button", { name: "Continue live" }).click();

  // the branch's replay page, beside its original
  await page.waitForURL(/\/runs\/demo-refund-approval\.cont-[0-9a-f]{8}\/replay/, { timeout: 30_000 });
  const branch = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  expect(fx.bank.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
  await expect(page.getByTestId("branch-bar")).toContainText(`live continue of ${RUN} at #${fork}`);
  const beside = page.getByTestId("side-by-side");
  await expect(beside).toContainText(`first divergence at #${fork}`);
  await expect(beside.getByTestId("first-divergence")).toHaveAttribute("data-seq", String(fork));
  await expect(beside.getByTestId("first-divergence")).toContainText("simulated");
  await expect(beside.locator(`tr[data-seq="${fork + 1}"]`)).toContainText("live");
  await expect(beside.locator(`tr[data-seq="${fork + 1}"]`)).toContainText("tool.call"); // the original went on to find_payment
  const view = page.getByTestId("replay-view");
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  // every frame says its mode: recorded before the fork, simulated at it, live after
  const grid = page.getByRole("listbox", { name: "Frames: recorded run and replay" });
  await expect(grid.getByRole("option", { name: new RegExp(`^#${fork - 1} \\[recorded\\]`) })).toBeVisible();
  await expect(grid.getByRole("option", { name: new RegExp(`^#${fork} \\[simulated\\] tool.result`) })).toBeVisible();
  await expect(grid.getByRole("option", { name: new RegExp(`^#${fork + 3} \\[live\\]`) })).toBeVisible();
  await grid.getByRole("option", { name: new RegExp(`^#${fork + 3} \\[live\\]`) }).click();
  await expect(page.getByTestId("frame-panel")).toHaveAttribute("data-mode", "live");
  await fx.shots(page, "branch-beside-original");

  // what the agent then did: one model turn that answers the customer; forkOf, mode, live marks
  const events = (await (await page.request.get(`${fx.server.base}/api/runs/${encodeURIComponent(branch)}/events?limit=1000`)).json()) as {
    events: { event: { seq: number; type: string; data: Record<string, unknown> } }[];
  };
  const ev = events.events.map((e) => e.event);
  expect(ev[0].data).toMatchObject({ forkOf: { run: RUN, seq: fork }, mode: "live" });
  expect(ev.find((e) => e.seq === fork)?.data).toMatchObject({ status: "ok", whatIf: { fields: expect.arrayContaining(["status"]) } });
  expect(ev.filter((e) => e.seq > fork).map((e) => e.type)).toEqual(["context", "model.request", "model.response", "decision", "run.end"]);
  expect(ev.filter((e) => e.seq > fork).every((e) => e.data.live !== undefined)).toBe(true);
  expect(ev.find((e) => e.type === "model.response" && e.seq > fork)?.data.output).toEqual({
    text: "Refunded 49.99 for order A-1001 (payment rf_0001).",
  });
  expect(ev[ev.length - 1].data).toMatchObject({ status: "succeeded", live: { stop: "final-answer", action: "continue" } });

  // the original lists it; the log has the entry
  await page.goto(`${fx.server.base}/runs/${RUN}/replay`);
  await expect(page.getByTestId("branch-bar")).toContainText("1 branch run made by live actions");
  await expect(page.getByTestId("branch-bar")).toContainText("live continue");
  await fx.signIn(page, "admin");
  await page.goto(`${fx.server.base}/admin/log`);
  await expect(page.getByText("live.continue").first()).toBeVisible();
  expect(fx.retrace(["log", "verify"])).toMatch(/ok|verif/i);
});

test("a hostile edit shows as text in the preview, never as markup", async ({ page }) => {
  const hostile = {
    toolResult: { status: "ok", result: { id: '<img src=x onerror="window.__pwned=1">', note: "<script>window.__pwned=1</script>" } },
  };
  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${RUN}/replay?fork=${fork}&override=${encodeURIComponent(JSON.stringify(hostile))}`);
  await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.getByRole("tab", { name: "Fork" }).click();
  const before = fx.bank.requests.length;
  await page.getByTestId("continue-live").getByRole("button", { name: "Preview continue live" }).click();
  const preview = page.getByTestId("continue-preview");
  await expect(preview).toContainText("<script>window.__pwned=1</script>");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await preview.locator("img, script").count()).toBe(0);
  // a preview sends nothing
  expect(fx.bank.requests.length).toBe(before);
  await fx.shots(page, "continue-preview-hostile");
});

test("without a fork, an operator may continue as recorded from the frame under the playhead; a viewer is offered nothing", async ({
  page,
}) => {
  // how a branch goes on after the write it stopped at was re-executed: no edit, from an event
  await fx.signIn(page, "viewer");
  await page.goto(`${fx.server.base}/runs/${RUN}/replay?event=${fork}`);
  await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.getByRole("tab", { name: "Fork" }).click();
  await expect(page.getByRole("form", { name: "What-if fork" })).toBeVisible();
  await expect(page.getByTestId("continue-live")).toHaveCount(0);

  await fx.signIn(page, "op-sandbox");
  await page.goto(`${fx.server.base}/runs/${RUN}/replay?event=${fork}`);
  await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.getByRole("tab", { name: "Fork" }).click();
  const panel = page.getByTestId("continue-live");
  await expect(panel.getByRole("heading")).toHaveText(`Continue live from #${fork}, as recorded`);
  const before = fx.bank.requests.length;
  await panel.getByRole("button", { name: "Preview continue live" }).click();
  const preview = page.getByTestId("continue-preview");
  await expect(preview).toContainText(`From #${fork}`);
  await expect(preview).not.toContainText("the edit at");
  expect(fx.bank.requests.length).toBe(before);
  await fx.shots(page, "continue-as-recorded");
});
