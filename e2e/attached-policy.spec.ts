/**
 * The run page says which declared policy judged a run: nothing for a run with none, and
 * "attached to workflow W, version N" once `retrace policy attach` gave the workflow one
 * (run against the SQLite server's own file), with the policy's finding in the findings tab.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { SQLITE_PORT } from "./servers";
import { uniqueId, type Ev } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
// the SQLite server's database (playwright.config.ts)
const DB_FILE = path.resolve(`.tmp/e2e-${process.env.E2E_STAMP ?? "run"}_${SQLITE_PORT}.db`);

function retrace(args: string[]) {
  const r = spawnSync(process.execPath, ["scripts/retrace.mjs", ...args], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: `file:${DB_FILE}` },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Two modifications of order #1: the second (seq 3) breaks a once-per policy. */
function journal(run: string, workflow: string): Ev[] {
  const items: Array<[string, Record<string, unknown>]> = [
    ["run.start", { workflow: { name: workflow } }],
    ["tool.call", { call: "a", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-a" }],
    ["tool.result", { call: "a", status: "ok", result: {} }],
    ["tool.call", { call: "b", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-b" }],
    ["run.end", { status: "succeeded" }],
  ];
  return items.map(([type, data], seq) => ({ run, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), type, data }));
}

test("the run header names the workflow policy version that judged the run", async ({ page, request, guard }) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  const run = uniqueId("attached");
  const workflow = uniqueId("airline");
  await postJournal(request, BASE, journal(run, workflow));
  const rp = new RunPage(page);
  await rp.open(BASE, run);
  await expect(page.getByTestId("judged-by")).toHaveCount(0);

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "policy-")), "once.json");
  fs.writeFileSync(file, JSON.stringify({ invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify"], arg: "/order_id" }] }));
  expect(retrace(["policy", "attach", workflow, file])).toContain("1 run judged again");

  await rp.open(BASE, run, "?tab=findings");
  await expect(page.getByTestId("judged-by")).toHaveText(`policy attached to workflow ${workflow}, version 1`);
  await expect(page.getByText("policy.once-per").first()).toBeVisible();
});

test("after attaching, the tool pane shows the policy's verdict and the replay diverges at the same call", async ({
  page,
  request,
  guard,
}) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  const run = uniqueId("attached-pane");
  const workflow = uniqueId("airline");
  await postJournal(request, BASE, journal(run, workflow));
  const rp = new RunPage(page);
  // nothing declared yet: the pane says nothing of a policy, the replay finds nothing
  await rp.open(BASE, run, "?event=3");
  await rp.shows(3);
  await expect(page.getByTestId("policy-verdict")).toHaveCount(0);

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "policy-")), "once.json");
  fs.writeFileSync(file, JSON.stringify({ invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify"], arg: "/order_id" }] }));
  expect(retrace(["policy", "attach", workflow, file])).toContain("1 run judged again");

  // the first modification holds; the second (seq 3) breaks it, with the first as evidence
  await rp.open(BASE, run, "?event=1");
  await rp.shows(1);
  await expect(page.getByTestId("policy-verdict")).toHaveAttribute("data-broken", "false");
  await expect(page.getByTestId("policy-verdict")).toContainText("✓ Invariant modify-once holds.");
  await rp.open(BASE, run, "?event=3");
  await rp.shows(3);
  const verdict = page.getByTestId("policy-verdict");
  await expect(verdict).toHaveAttribute("data-broken", "true");
  await expect(verdict).toContainText("✗ policy.once-per: invariant modify-once is broken");
  await verdict
    .getByRole("button", { name: "#1" })
    .or(verdict.getByRole("link", { name: "#1" }))
    .first()
    .click();
  await rp.shows(1);

  // the replay, in the browser, judges by the attached policy too
  await page.goto(`${BASE}/runs/${encodeURIComponent(run)}/replay`);
  const view = page.getByTestId("replay-view");
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  const details = page.getByRole("complementary", { name: "Replay details" });
  await expect(details.getByRole("tab", { name: "Divergences (1)" })).toBeVisible();
  await details.getByRole("tab", { name: /^Divergences/ }).click();
  await expect(details).toContainText("modify-once");
});
