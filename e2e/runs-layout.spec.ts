/**
 * The runs list with a workflow name of 300 characters with no space in it: no page scrolls
 * sideways at 1440×900 or 1024×768, and the Started, Events and Findings columns stay on
 * screen (screenshots of both); links between run, replay and compare keep the event.
 */
import fs from "node:fs";
import path from "node:path";
import { SQLITE_PORT } from "./servers";
import { example, ndjson, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const LONG = `refund-reconciliation-${"x".repeat(278)}`;
const run = uniqueId("e2e-longname");

test.beforeAll(async ({ request }) => {
  fs.mkdirSync(OUT, { recursive: true });
  const events = example("00-refund-clean.jsonl", run);
  events[0].data = { ...events[0].data, workflow: { name: LONG, version: "1" } };
  await postJournal(request, BASE, ndjson(events));
});

for (const size of [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const) {
  test(`a 300-character workflow name wraps in its column at ${size.width}×${size.height}`, async ({ page }) => {
    await page.setViewportSize(size);
    await page.goto(`/?q=${encodeURIComponent(run)}`);
    const table = page.getByRole("table", { name: "Runs", exact: true });
    await expect(table.getByRole("link", { name: run })).toBeVisible();
    // the page itself never scrolls sideways
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // every header of the row is inside the window
    for (const name of ["Started (UTC)", "Events", "Findings"]) {
      const box = await table.getByRole("columnheader", { name, exact: true }).boundingBox();
      expect(box && box.x + box.width <= size.width).toBe(true);
    }
    await page.screenshot({ path: path.join(OUT, `runs-long-workflow-${size.width}.png`) });
  });
}

test("the run page's Replay and Compare links keep the selected event, and the replay's links keep its frame", async ({ page }) => {
  await page.goto(`/runs/${encodeURIComponent(run)}?event=12`);
  const replay = page.getByRole("link", { name: "Replay", exact: true });
  await expect(replay).toHaveAttribute("href", `/runs/${encodeURIComponent(run)}/replay?event=12`);
  await expect(page.getByRole("link", { name: "Compare", exact: true })).toHaveAttribute(
    "href",
    `/compare?a=${encodeURIComponent(run)}&ea=12`,
  );
  await replay.click();
  const frame = page.getByTestId("frame-panel");
  await expect(frame).toHaveAttribute("data-seq", "12");
  await expect(page.getByRole("link", { name: "Open in the run viewer" })).toHaveAttribute(
    "href",
    `/runs/${encodeURIComponent(run)}?event=12`,
  );
  await expect(page.getByRole("link", { name: "Compare with another run" })).toHaveAttribute(
    "href",
    `/compare?a=${encodeURIComponent(run)}&ea=12`,
  );
});
