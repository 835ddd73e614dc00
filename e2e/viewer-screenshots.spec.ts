/**
 * Screenshots of every screen of the viewer, saved to docs/screenshots/ (run-page.png is
 * the README's). The empty list and the 100,000-event run are taken by
 * scripts/bench-viewer.ts, which starts from an empty database.
 */
import fs from "node:fs";
import path from "node:path";
import { SQLITE_PORT } from "./servers";
import { example, hostileJournal, ndjson, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
// docs/screenshots only when asked (RETRACE_SCREENSHOTS=1): a test run must not rewrite tracked files.
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const shot = (name: string) => ({ path: path.join(OUT, name), animations: "disabled" as const });

test.beforeAll(async ({ request }) => {
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of fs.readdirSync("tests/fixtures/examples").filter((f) => f.endsWith(".jsonl"))) {
    const first = JSON.parse(fs.readFileSync(path.join("tests/fixtures/examples", f), "utf8").split("\n")[0]) as { run: string };
    const events =
      f.includes("journal.chain") || f.includes("journal.gap")
        ? fs.readFileSync(path.join("tests/fixtures/examples", f), "utf8")
        : ndjson(example(f, first.run));
    await postJournal(request, BASE, events);
  }
});

test("screenshots: runs list, upload report, run pages, hostile payloads, dark theme, wide", async ({ page, request, guard }) => {
  test.setTimeout(180_000);
  guard.allowNavigation(BASE);
  guard.allowConsoleError(/status of 400/);
  await page.goto("/?q=demo-");
  await expect(page.getByRole("table", { name: "Runs", exact: true })).toBeVisible();
  await page.screenshot(shot("runs-list.png"));

  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Upload runs" }).click();
  const bad = uniqueId("shot-bad");
  await (
    await chooser
  ).setFiles([
    {
      name: "refund-run.jsonl",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from(ndjson(example("00-refund-clean.jsonl", uniqueId("shot-upload")))),
    },
    {
      name: "broken.jsonl",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from(
        `{"run":"${bad}","seq":0,"ts":"2026-11-07T11:00:00.000Z","type":"note","data":{}}\n{"run":"${bad}","seq":"1"}\n{oops\n`,
      ),
    },
  ]);
  await expect(page.getByRole("table", { name: "Errors in broken.jsonl" })).toBeVisible();
  await page.screenshot(shot("runs-upload-report.png"));

  const rp = new RunPage(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await rp.open(BASE, "demo-refund-7036", "");
  const finding = (await (await request.get(`${BASE}/api/runs/demo-refund-7036`)).json()).findings[0] as { seq: number } | undefined;
  await rp.open(BASE, "demo-refund-7036", `?event=${finding?.seq ?? 16}`);
  await rp.shows(finding?.seq ?? 16);
  await page.screenshot(shot("run-page.png"));

  await page.setViewportSize({ width: 1280, height: 720 });
  const failing = uniqueId("shot-failing");
  await postJournal(request, BASE, example("14-booking-effect.retry-after-unknown.jsonl", failing));
  const f2 = (await (await request.get(`${BASE}/api/runs/${failing}`)).json()).findings as { seq: number }[];
  await rp.open(BASE, failing, `?event=${f2[0].seq}`);
  await page.getByRole("tab", { name: /Findings/ }).click();
  await rp.shows(f2[0].seq);
  await page.screenshot(shot("run-failing.png"));

  await page.getByRole("tab", { name: "Charts" }).click();
  await expect(page.getByLabel("Tokens per step")).toBeVisible();
  await page.screenshot(shot("run-charts.png"));

  const hostile = uniqueId("shot-hostile");
  await postJournal(request, BASE, hostileJournal(hostile, 200_000));
  await rp.open(BASE, hostile, "?event=2");
  await rp.shows(2);
  await page.screenshot(shot("run-hostile-context.png"));
  await rp.option("#6 tool.result fetch_url").click();
  await rp.shows(6);
  await rp.panel().getByRole("button", { name: "Expand" }).first().click();
  await rp
    .panel()
    .getByRole("button", { name: /show 1,000 more/ })
    .scrollIntoViewIfNeeded();
  await page.screenshot(shot("run-hostile-10k-keys.png"));

  await page.emulateMedia({ colorScheme: "dark" });
  await rp.open(BASE, "demo-booking-2781", "?event=12");
  await rp.shows(12);
  await page.screenshot(shot("run-dark.png"));
  await page.goto("/?q=demo-");
  await expect(page.getByRole("table", { name: "Runs", exact: true })).toBeVisible();
  await page.screenshot(shot("runs-list-dark.png"));

  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await rp.open(BASE, "demo-codefix-4813", "?event=20");
  await rp.shows(20);
  await page.screenshot(shot("run-wide.png"));
});
