/**
 * The graph refits when its pane changes size (issue 32): opening the resume plan of the
 * failed demo run above the graph shrinks the graph's pane; at 1440×900 and at 1024×768 at
 * least one graph node is still wholly inside the graph's visible box afterwards, and
 * after the plan closes again.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { SQLITE_PORT } from "./servers";
import { expect, postJournal, resizeTo, RunPage, test } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const FAILED_RUN = "demo-refund-gateway-outage";

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-e2e-refit-"));
  try {
    execFileSync(
      "node_modules/.bin/tsx",
      ["scripts/demo-agent/main.ts", "--out", tmp, "--db", path.join(tmp, "bank"), "--scenario", "refund-gateway-outage"],
      { stdio: "ignore" },
    );
    await postJournal(request, BASE, fs.readFileSync(path.join(tmp, "refund-gateway-outage.jsonl"), "utf8"));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

/** How many graph nodes lie wholly inside the canvas's box, and the canvas's height (px). */
async function nodesInView(page: Page): Promise<{ inside: number; height: number }> {
  return page.locator(".graph-canvas").evaluate((canvas) => {
    const box = canvas.getBoundingClientRect();
    let inside = 0;
    for (const n of canvas.querySelectorAll(".react-flow__node")) {
      const r = n.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom) inside++;
    }
    return { inside, height: box.height };
  });
}

for (const [width, height] of [
  [1440, 900],
  [1024, 768],
] as const) {
  test(`at ${width}×${height}, opening the resume plan keeps a graph node in view`, async ({ page, guard }) => {
    guard.allowNavigation(BASE);
    await resizeTo(page, width, height);
    const rp = new RunPage(page);
    await rp.open(BASE, FAILED_RUN);
    const before = await nodesInView(page);
    expect(before.inside).toBeGreaterThan(0);

    const panel = page.getByTestId("resume-panel");
    await panel.locator("summary").click();
    await expect(panel.getByRole("table", { name: "Resume plan" })).toBeVisible();
    // the plan took room from the graph
    await expect.poll(async () => (await nodesInView(page)).height).toBeLessThan(before.height);
    await expect.poll(async () => (await nodesInView(page)).inside).toBeGreaterThan(0);
    if (process.env.SHOTS_DIR) await page.screenshot({ path: `${process.env.SHOTS_DIR}/resume-plan-graph-${width}x${height}.png` });

    await panel.locator("summary").click();
    await expect(panel.getByRole("table", { name: "Resume plan" })).toBeHidden();
    await expect.poll(async () => (await nodesInView(page)).height).toBeGreaterThan(before.height - 1);
    await expect.poll(async () => (await nodesInView(page)).inside).toBeGreaterThan(0);
  });
}
