/**
 * A run whose payloads retention dropped, in the browser: the admin sets 10 payload days on
 * /admin/projects, the run is aged in the SQLite server's file, `retrace purge` drops its payloads,
 * and the run page still draws the graph, the timeline, the events and the findings, with
 * "Payloads dropped on DATE" above them and in the inspector instead of an empty pane; the
 * runs list still lists it. Screenshots at 1440x900 and 1024x768.
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { SQLITE_PORT } from "./servers";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = process.env.SHOTS_DIR ?? path.resolve("test-results/screenshots");
// the SQLite server's database (playwright.config.ts)
const DB_FILE = path.resolve(`.tmp/e2e-${process.env.E2E_STAMP ?? "run"}_${SQLITE_PORT}.db`);
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

function retrace(args: string[]) {
  const r = spawnSync(process.execPath, ["scripts/retrace.mjs", ...args], {
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATABASE_URL: `file:${DB_FILE}` },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

test("the run page of a run whose payloads were dropped", async ({ page, request, guard }) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  const run = uniqueId("dropped");
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", run));
  const before = (await (await request.get(`${BASE}/api/runs/${run}`)).json()) as { eventCount: number; findings: unknown[] };
  const payload = (await (await request.get(`${BASE}/api/runs/${run}/events?limit=5000`)).text()).length;

  // 20 days without a change, in the server's own file
  const conn = new Database(DB_FILE);
  conn.pragma("busy_timeout = 5000");
  conn.prepare(`UPDATE "Run" SET "updatedAt" = ? WHERE "id" = ?`).run(Date.now() - 20 * 86_400_000, run);
  conn.close();
  // the admin sets the payload days on /admin/projects (the CLI's `project payloads` does the same)
  await page.goto(`${BASE}/admin/projects`);
  const form = page.getByRole("form", { name: "Payload policy of default" });
  await form.getByLabel("Payload days of default").fill("10");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByRole("button", { name: "Save" })).toBeDisabled();
  await page.reload();
  await expect(page.getByLabel("Payload days of default")).toHaveValue("10");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(OUT, `admin-projects-payloads-${size.width}.png`), animations: "disabled" });
  }
  try {
    const out = retrace(["purge", "--project", "default"]);
    expect(out).toContain(`dropped the payloads of ${run}`);
  } finally {
    retrace(["project", "payloads", "default", "off"]);
  }

  // a fresh connection: the request context's kept-alive socket may have timed out during the CLI's purge (ECONNRESET)
  const after = (await (await fetch(`${BASE}/api/runs/${run}`)).json()) as { eventCount: number; findings: unknown[] };
  expect(after.eventCount).toBe(before.eventCount);
  expect(after.findings).toEqual(before.findings);
  const events = await (await fetch(`${BASE}/api/runs/${run}/events?limit=5000`)).text();
  expect(events).toContain("[dropped:");
  expect(events.length).toBeLessThan(payload);

  const rp = new RunPage(page);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await rp.open(BASE, run, "?event=2");
    await expect(page.getByTestId("payloads-dropped")).toContainText("Payloads dropped on ");
    await expect(page.getByTestId("payload-dropped")).toContainText("Payload dropped on");
    await expect(page.getByRole("tab", { name: `Events (${before.eventCount})` })).toBeVisible();
    await expect(page.getByRole("img", { name: new RegExp(`^Timeline of ${before.eventCount} events`) })).toBeVisible();
    await expect(page.getByRole("tab", { name: `Findings (${before.findings.length})` })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(OUT, `payloads-dropped-${size.width}.png`), animations: "disabled" });
  }
  await page.setViewportSize(SIZES[0]);
  await page.getByRole("tab", { name: /^Findings/ }).click();
  await expect(page.getByRole("list", { name: "Findings" })).toContainText("tool.partial");
  await page.screenshot({ path: path.join(OUT, `payloads-dropped-findings-1440.png`), animations: "disabled" });

  // the runs list still lists it
  await page.goto(`${BASE}/?q=${encodeURIComponent(run)}`);
  await expect(page.getByRole("link", { name: run })).toBeVisible();
});
