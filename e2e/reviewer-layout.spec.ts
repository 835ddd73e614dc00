/**
 * The rest of issue 16's layout items, in the browser: nested spans in their own timeline
 * lanes with labels that fit, chart ticks without repeated labels, cost from the
 * project's per-model prices ("No price for MODEL" until an admin sets one), the graph's
 * "Fit step", and "versions in force" opening over the panes at 1024×768. Screenshots
 * at 1440×900 and 1024×768 of each.
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { SQLITE_PORT } from "./servers";
import { rechain, uniqueId, type Ev } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;
const OUTER = "reconcile the refund ledger against the payment gateway's settlement report";
const run = uniqueId("e2e-nested");

/**
 * Step "outer" holds step "inner" (its events come while the outer is open), and two tool
 * calls of the outer step overlap in time: 2 step lanes, 2 tool lanes.
 */
function nestedJournal(id: string): Ev[] {
  const t = (s: number) => new Date(Date.parse("2026-11-07T11:00:00.000Z") + s * 1000).toISOString();
  let seq = 0;
  const e = (at: number, type: string, data: Record<string, unknown>, step?: string): Ev => ({
    run: id,
    seq: seq++,
    ts: t(at),
    type,
    ...(step ? { step } : {}),
    data,
  });
  return rechain([
    e(0, "run.start", { workflow: { name: "nested-steps", version: "1" }, versions: { models: { planner: "p-1" } }, input: {} }),
    e(1, "step.start", { name: OUTER }, "outer"),
    e(2, "step.start", { name: "inner" }, "inner"),
    e(3, "model.request", { call: "m1", model: "planner", messages: [{ role: "user", content: "hi" }] }, "inner"),
    e(
      5,
      "model.response",
      { call: "m1", output: { text: "ok" }, usage: { inputTokens: 1000, outputTokens: 200 }, latencyMs: 2000 },
      "inner",
    ),
    e(6, "step.end", { status: "ok" }, "inner"),
    e(7, "tool.call", { call: "t1", tool: "lookup_order", effect: "read", args: {} }, "outer"),
    e(8, "tool.call", { call: "t2", tool: "lookup_charge", effect: "read", args: {} }, "outer"),
    e(11, "tool.result", { call: "t1", status: "ok", result: {}, latencyMs: 4000 }, "outer"),
    e(12, "tool.result", { call: "t2", status: "ok", result: {}, latencyMs: 4000 }, "outer"),
    e(13, "step.end", { status: "ok" }, "outer"),
    e(14, "run.end", { status: "succeeded", output: {} }),
  ]);
}

test.beforeAll(async ({ request }) => {
  fs.mkdirSync(OUT, { recursive: true });
  await postJournal(request, BASE, nestedJournal(run));
});

async function noHorizontalScroll(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, "the page scrolls horizontally").toBeLessThanOrEqual(client);
}

test("nested steps and overlapping tool calls get lanes of their own, labels fit their bars", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await rp.open(BASE, run);
    const canvas = page.locator(".timeline canvas");
    // outer (lane 0) holds inner (lane 1); t1 and t2 overlap (tool lanes 0 and 1); one model call
    await expect(canvas).toHaveAttribute("data-step-lanes", "2");
    await expect(canvas).toHaveAttribute("data-tool-lanes", "2");
    await expect(canvas).toHaveAttribute("data-model-lanes", "1");
    // both step names drawn (the long one truncated to its bar), none wider than its bar
    await expect(canvas).toHaveAttribute("data-step-labels", "2");
    await expect(canvas).toHaveAttribute("data-label-overflow", "0");
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(OUT, `timeline-nested-${size.width}x${size.height}.png`) });
  }
});

test("chart ticks never repeat a label, and the cost comes from the project's model prices", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  await page.setViewportSize(SIZES[0]);
  await rp.open(BASE, run);
  await page.getByRole("tab", { name: "Charts" }).click();
  // no price for the run's model yet: said, not drawn as $0
  await expect(page.getByRole("status").filter({ hasText: "No price for planner" })).toBeVisible();
  await page.screenshot({ path: path.join(OUT, "charts-unpriced-1440x900.png") });
  for (const title of ["Latency per step (model + tool)", "Tokens per step"]) {
    const tick = page.locator(`.chart[aria-label="${title}"]`).locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
    // the chart draws once its container is measured
    await expect(tick.nth(1)).toBeVisible();
    const ticks = await tick.allTextContents();
    expect(ticks.length, title).toBeGreaterThan(1);
    expect(new Set(ticks).size, `${title}: ${ticks.join(" | ")}`).toBe(ticks.length);
  }

  // an admin prices the model (open mode: everyone administers)
  await page.goto("/admin/projects");
  const form = page.getByRole("form", { name: "Model prices" });
  await form.getByRole("textbox").fill("planner 3 15\nother-model 1 2");
  await form.getByRole("button", { name: "Save prices" }).click();
  await expect(form.getByRole("status")).toHaveText("Prices of 2 models saved for default.");
  await expect(form.getByRole("button", { name: "Save prices" })).toBeEnabled();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `admin-model-prices-${size.width}x${size.height}.png`) });
  }
  try {
    await page.setViewportSize(SIZES[0]);
    await rp.open(BASE, run);
    await page.getByRole("tab", { name: "Charts" }).click();
    const cost = page.locator('.chart[aria-label="Cost per step"]');
    // the outer step called no model: its bar has no height; the inner one is drawn
    await expect(cost.locator(".recharts-bar-rectangle").last()).toBeVisible();
    await expect(page.getByText("No price for planner")).toHaveCount(0);
    // the inner step: 1,000 input × $3 + 200 output × $15 per million = $0.006; y ticks distinct
    await expect(cost.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").nth(1)).toBeVisible();
    const ticks = await cost.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
    expect(new Set(ticks).size, ticks.join(" | ")).toBe(ticks.length);
    expect(ticks[0]).toBe("$0");
    await cost.locator(".recharts-bar-rectangle").last().hover();
    await expect(cost.locator(".recharts-tooltip-wrapper")).toContainText("$0.0060");
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await noHorizontalScroll(page);
      await page.screenshot({ path: path.join(OUT, `charts-cost-${size.width}x${size.height}.png`) });
    }
  } finally {
    await page.goto("/admin/projects");
    await page.getByRole("form", { name: "Model prices" }).getByRole("textbox").fill("");
    await page.getByRole("form", { name: "Model prices" }).getByRole("button", { name: "Save prices" }).click();
    await expect(page.getByRole("form", { name: "Model prices" }).getByRole("status")).toHaveText(
      "Project default has no model prices now.",
    );
  }
});

test("Fit step zooms the graph to the selected step", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    // seq 3: the model request inside the inner step
    await rp.open(BASE, run, "?event=3");
    await rp.shows(3);
    const step = page.locator(".react-flow__node-step", { has: page.getByRole("button", { name: "Collapse step inner" }) });
    await page.getByRole("button", { name: "Fit step" }).click();
    const canvas = page.locator(".graph-canvas");
    await expect(async () => {
      const c = (await canvas.boundingBox())!;
      const s = (await step.boundingBox())!;
      // inside the canvas, and filling it in one direction (8% padding each side)
      expect(s.x).toBeGreaterThanOrEqual(c.x - 1);
      expect(s.y).toBeGreaterThanOrEqual(c.y - 1);
      expect(s.x + s.width).toBeLessThanOrEqual(c.x + c.width + 1);
      expect(s.y + s.height).toBeLessThanOrEqual(c.y + c.height + 1);
      expect(Math.max(s.width / c.width, s.height / c.height)).toBeGreaterThan(0.7);
    }).toPass({ timeout: 5000 });
    await page.screenshot({ path: path.join(OUT, `graph-fit-step-${size.width}x${size.height}.png`) });
  }
});

test("versions in force open over the panes without pushing them off screen", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await rp.open(BASE, run);
    const graphBefore = (await rp.graph.boundingBox())!;
    const inspectorBefore = (await rp.inspector.boundingBox())!;
    await page.getByText("versions in force").click();
    const versions = page.getByLabel("Versions in force");
    await expect(versions).toBeVisible();
    const v = (await versions.boundingBox())!;
    expect(v.y + v.height, "the popover ends inside the window").toBeLessThanOrEqual(size.height);
    expect(v.x + v.width).toBeLessThanOrEqual(size.width);
    // the panes did not move
    expect((await rp.graph.boundingBox())!.y).toBe(graphBefore.y);
    expect((await rp.inspector.boundingBox())!.height).toBe(inspectorBefore.height);
    await noHorizontalScroll(page);
    const scrolls = await page.evaluate(() => document.documentElement.scrollHeight > document.documentElement.clientHeight);
    expect(scrolls, "the page scrolls vertically").toBe(false);
    await page.screenshot({ path: path.join(OUT, `versions-in-force-${size.width}x${size.height}.png`) });
    // a popover shuts like one: Escape, or a click outside it
    await page.keyboard.press("Escape");
    await expect(versions).toBeHidden();
    await page.getByText("versions in force").click();
    await expect(versions).toBeVisible();
    await rp.inspector.click({ position: { x: 20, y: 300 } });
    await expect(versions).toBeHidden();
  }
});
