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

test("a gateway replay is listed under the run it replays, matched or diverged, and its page links back", async ({ page, request }) => {
  const original = uniqueId("e2e-recorded");
  const replays = [uniqueId("e2e-replay-ok"), uniqueId("e2e-replay-div")];
  const rec = example("00-refund-clean.jsonl", original);
  rec[0].data = { ...rec[0].data, gateway: { command: ["node", "agent.mjs", "--fast"], cwd: "/tmp/w" } };
  await postJournal(request, BASE, ndjson(rec));
  for (const [i, id] of replays.entries()) {
    const ev = example("00-refund-clean.jsonl", id);
    ev[0].data = { ...ev[0].data, replayOf: { run: original, head: "h" }, mode: "recorded" };
    // the diverged one ran under `retrace replay --isolate`
    if (i === 1)
      ev[0].data.isolation = { tool: "bubblewrap", network: "gateway-only", cwd: "/tmp/retrace-isolate-x/work", copiedFrom: "/tmp/w" };
    const end = ev[ev.length - 1];
    if (i === 1) end.data = { status: "failed", output: { match: false } };
    await postJournal(request, BASE, ndjson(ev));
  }
  await page.goto(`/?q=${encodeURIComponent("e2e-re")}`);
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const rows = table.locator("tbody tr");
  await expect(table.getByRole("link", { name: original })).toBeVisible();
  const ids = await rows.locator("td.run-id > a").allTextContents();
  const at = ids.indexOf(original);
  // both replays right after their original
  expect(new Set(ids.slice(at + 1, at + 3))).toEqual(new Set(replays));
  await expect(rows.filter({ hasText: replays[0] }).getByTestId("branch-of")).toHaveText(`↳ replay of ${original} · matched`);
  await expect(rows.filter({ hasText: replays[1] }).getByTestId("branch-of")).toHaveText(`↳ replay of ${original} · diverged`);
  await page.goto(`/runs/${encodeURIComponent(replays[1])}`);
  await expect(page.getByTestId("replay-of")).toHaveText(`replay of ${original} (diverged) · beside its recording`);
  await expect(page.getByTestId("replay-beside-link")).toHaveAttribute("href", `/runs/${encodeURIComponent(replays[1])}/replay`);
  await expect(page.getByTestId("isolation")).toHaveText("isolated by bubblewrap (network: gateway-only; cwd /tmp/retrace-isolate-x/work)");
  await page.goto(`/runs/${encodeURIComponent(replays[0])}`);
  await expect(page.getByTestId("replay-of")).toBeVisible();
  await expect(page.getByTestId("isolation")).toHaveCount(0);
  await page.goto(`/runs/${encodeURIComponent(original)}`);
  await expect(page.getByTestId("gateway-command")).toHaveText("command node agent.mjs --fast");
});
