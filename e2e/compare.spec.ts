/**
 * The run-to-run diff against the production build: two runs of one workflow, before and
 * after a prompt change, aligned by step and call; the first divergence, the changed
 * arguments as text, the versions that differ, and picking run b among the workflow's runs.
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { example, rechain, uniqueId, type Ev } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";
import { SQLITE_PORT } from "./servers";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;

/** 00-refund-clean after a prompt change (system v3 → v4): the model refunds 2000 instead of 4599 from seq 15 on. */
function promptChanged(runId: string): Ev[] {
  const events = example("00-refund-clean.jsonl", runId).map((e) => JSON.parse(JSON.stringify(e)) as Ev);
  const start = events[0].data as { versions: { prompts: Record<string, string> }; workflow: { version: string } };
  start.versions.prompts.system = "v4";
  start.workflow.version = "2026.11.13";
  const response = events.find((e) => e.seq === 15)!.data as { output: { toolCalls: Array<{ args: Record<string, unknown> }> } };
  response.output.toolCalls[0].args.amountCents = 2000;
  (events.find((e) => e.seq === 18)!.data as { args: Record<string, unknown> }).args.amountCents = 2000;
  return rechain(events);
}

/**
 * A long step-less run of notes; `changed` makes every other one say what another note of
 * the run says elsewhere, so nearly every event still matches something in the other run.
 */
function longRun(runId: string, n: number, changed: boolean): Ev[] {
  const start = example("00-refund-clean.jsonl", runId)[0];
  const events: Ev[] = [{ ...start, seq: 0 }];
  for (let i = 1; i < n - 1; i++)
    events.push({
      run: runId,
      seq: i,
      ts: new Date(Date.parse(start.ts) + i).toISOString(),
      type: "note",
      data: { text: `note ${changed && i % 2 ? (i + 1) % 35 : i % 35}` },
    });
  events.push({
    run: runId,
    seq: n - 1,
    ts: new Date(Date.parse(start.ts) + n).toISOString(),
    type: "run.end",
    data: { status: "succeeded" },
  });
  return rechain(events);
}

/**
 * Holds what the page posts to the alignment worker (named "compare-align") until the test
 * calls window.__releaseAlignment(), so the page can be looked at while it aligns.
 */
function holdAlignment() {
  const held: Array<() => void> = [];
  let holding = true;
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      if (options?.name !== "compare-align") return;
      const post = this.postMessage.bind(this) as (...args: unknown[]) => void;
      this.postMessage = ((...args: unknown[]) => (holding ? held.push(() => post(...args)) : post(...args))) as Worker["postMessage"];
    }
  };
  (window as unknown as { __releaseAlignment: () => void }).__releaseAlignment = () => {
    holding = false;
    for (const send of held.splice(0)) send();
  };
}

async function ready(page: Page, a: string, b: string) {
  const view = page.getByTestId("compare-view");
  await expect(view).toHaveAttribute("data-a", a);
  await expect(view).toHaveAttribute("data-b", b);
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
}

test.describe("compare page", () => {
  test("two runs before and after a prompt change: first divergence at seq 15, changed args as text, the prompt version that differs", async ({
    page,
    request,
    guard,
  }) => {
    const a = uniqueId("e2e-cmp-before");
    const b = uniqueId("e2e-cmp-after");
    guard.allowNavigation("/compare?");
    await postJournal(request, BASE, example("00-refund-clean.jsonl", a));
    await postJournal(request, BASE, promptChanged(b));
    await page.goto(`${BASE}/compare?a=${a}&b=${b}`);
    await ready(page, a, b);

    const first = page.getByRole("region", { name: "First divergence" });
    await expect(first).toHaveAttribute("data-a-seq", "15");
    await expect(first).toHaveAttribute("data-b-seq", "15");
    await expect(first.getByRole("heading")).toContainText("First divergence: a #15 ≠ b #15");
    // what the runs did differently: the model asked for another amount (4599 came from the order, 2000 from nowhere)
    await expect(first.getByRole("heading")).toContainText(
      "in step “refund”: the model asked for issue_refund with argument amountCents 4599 → 2000",
    );
    await expect(first.getByLabel("Row counts")).toContainText("31 same");
    await expect(first.getByLabel("Row counts")).toContainText("2 changed");

    const versions = page.getByRole("table", { name: "Versions that differ" });
    await expect(versions.getByRole("row")).toHaveCount(3);
    await expect(versions.getByRole("row", { name: /prompts system v3 v4/ })).toBeVisible();
    await expect(versions.getByRole("row", { name: /workflow\s+support-refund@2026\.11\.12 support-refund@2026\.11\.13/ })).toBeVisible();

    // the first divergence is selected: what changed, as text
    const detail = page.getByRole("region", { name: "Selected pair" });
    await expect(detail).toHaveAttribute("data-a-seq", "15");
    await expect(detail.getByLabel("Diff of the compared fields")).toHaveText("~ /output/toolCalls/0/args/amountCents: 4599 → 2000");

    // the changed call, further down: its args
    const list = page.getByRole("listbox", { name: "Aligned events" });
    await list.getByRole("option", { name: "a #18 tool.call changed b #18 tool.call" }).click();
    await expect(detail).toHaveAttribute("data-a-seq", "18");
    await expect(detail.getByRole("heading", { level: 2 })).toContainText("tool.call: args changed");
    await expect(detail.getByLabel("Diff of the compared fields")).toHaveText("~ /args/amountCents: 4599 → 2000");
    await expect(list.getByRole("option", { name: "a #16 approval.request same b #16 approval.request" })).toBeVisible();
    if (process.env.RETRACE_SCREENSHOTS === "1") {
      await first.getByRole("button", { name: "Show it" }).click();
      await page.screenshot({ path: path.join("docs/screenshots", "compare-prompt-change.png") });
    }
  });

  test("run b is picked among the runs of run a's workflow", async ({ page, request, guard }) => {
    const a = uniqueId("e2e-cmp-pick-a");
    const b = uniqueId("e2e-cmp-pick-b");
    const other = uniqueId("e2e-cmp-other-wf");
    guard.allowNavigation("/compare?");
    await postJournal(request, BASE, example("00-refund-clean.jsonl", a));
    await postJournal(request, BASE, promptChanged(b));
    await postJournal(request, BASE, example("02-codefix-clean.jsonl", other));
    await page.goto(`${BASE}/compare?a=${a}`);
    const picker = page.getByRole("combobox", { name: "Run b: a run of support-refund" });
    await expect(picker.locator("option", { hasText: b })).toHaveCount(1);
    await expect(picker.locator("option", { hasText: other })).toHaveCount(0); // another workflow
    await expect(picker.locator("option", { hasText: a })).toHaveCount(0); // not itself
    await picker.selectOption({ label: (await picker.locator("option", { hasText: b }).textContent())! });
    await expect(page).toHaveURL(new RegExp(`/compare\\?a=${a}&b=${b}$`));
    await ready(page, a, b);
    await expect(page.getByRole("region", { name: "First divergence" })).toHaveAttribute("data-a-seq", "15");

    await page.getByRole("button", { name: "Swap a ↔ b" }).click();
    await ready(page, b, a);
    await expect(page.getByRole("region", { name: "Selected pair" }).getByLabel("Diff of the compared fields")).toHaveText(
      "~ /output/toolCalls/0/args/amountCents: 2000 → 4599",
    );
  });

  test("a run compared with an identical one has no divergence", async ({ page, request, guard }) => {
    const a = uniqueId("e2e-cmp-same-a");
    const b = uniqueId("e2e-cmp-same-b");
    guard.allowNavigation("/compare?");
    await postJournal(request, BASE, example("01-booking-clean.jsonl", a));
    await postJournal(request, BASE, example("01-booking-clean.jsonl", b));
    await page.goto(`${BASE}/compare?a=${a}&b=${b}`);
    await ready(page, a, b);
    await expect(page.getByRole("region", { name: "First divergence" }).getByRole("heading")).toHaveText(
      "No divergence: every event of both runs pairs with an equal one.",
    );
    await expect(page.getByRole("region", { name: "Versions" })).toContainText("Versions that differ: 0");
  });
  test("two long, very different runs: run cards at once, the page answers input while aligning, then the alignment", async ({
    page,
    request,
    guard,
  }) => {
    const n = 10_000;
    const a = uniqueId("e2e-cmp-long-a");
    const b = uniqueId("e2e-cmp-long-b");
    guard.allowNavigation("/compare?");
    await postJournal(request, BASE, longRun(a, n, false));
    await postJournal(request, BASE, longRun(b, n, true));
    await page.addInitScript(holdAlignment);
    await page.goto(`${BASE}/compare?a=${a}&b=${b}`);

    const view = page.getByTestId("compare-view");
    await expect(view).toHaveAttribute("data-alignment", "aligning", { timeout: 30_000 });
    await expect(page.getByTestId("aligning")).toHaveText("Aligning…");
    await expect(page.getByRole("region", { name: "Versions" })).toContainText("Versions that differ: 0");
    await expect(page.getByText(a).first()).toBeVisible();
    await expect(page.getByText(b).first()).toBeVisible();
    // input is handled while the alignment is pending: Tab moves the focus to the swap button
    const swap = page.getByRole("button", { name: "Swap a ↔ b" });
    await swap.focus();
    await page.keyboard.press("Shift+Tab");
    await expect(swap).not.toBeFocused();
    await page.keyboard.press("Tab");
    await expect(swap).toBeFocused();
    await expect(page.getByTestId("aligning")).toBeVisible();

    await page.evaluate(() => (window as unknown as { __releaseAlignment: () => void }).__releaseAlignment());
    await ready(page, a, b);
    await expect(page.getByTestId("aligning")).toHaveCount(0);
    const counts = page.getByRole("region", { name: "First divergence" }).getByLabel("Row counts");
    // a longest common subsequence: the even notes, run.start and run.end (which of several
    // equally long ones is the alignment's choice, so the changed/only rows are not pinned)
    await expect(counts).toContainText(`${(n / 2 + 1).toLocaleString("en-US")} same`);
    await expect(page.getByTestId("approximate-alignment")).toHaveCount(0);
  });

  test("two runs too long and too different to align exactly: the page says it aligned them approximately", async ({
    page,
    request,
    guard,
  }) => {
    test.setTimeout(180_000);
    // past the exact search's budget (lib/compare/lcs.ts: 70,000² table cells > 2³², and far more than 2,048 edits)
    const n = 70_000;
    const a = uniqueId("e2e-cmp-approx-a");
    const b = uniqueId("e2e-cmp-approx-b");
    guard.allowNavigation("/compare?");
    await postJournal(request, BASE, longRun(a, n, false));
    await postJournal(request, BASE, longRun(b, n, true));
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${BASE}/compare?a=${a}&b=${b}`);
    await expect(page.getByTestId("compare-view")).toHaveAttribute("data-ready", "true", { timeout: 150_000 });
    const note = page.getByRole("note").filter({ hasText: "Aligned approximately:" });
    await expect(note).toBeVisible();
    await expect(note).toContainText("within windows of 8,192 events");
    await expect(note).toContainText("a match across a longer shift may be missed");
    // the notice comes before the figures it qualifies
    const noteBox = (await note.boundingBox())!;
    const firstBox = (await page.getByRole("region", { name: "First divergence" }).boundingBox())!;
    expect(noteBox.y).toBeLessThan(firstBox.y);
    const out = path.resolve("test-results/screenshots");
    fs.mkdirSync(out, { recursive: true });
    await page.screenshot({ path: path.join(out, "compare-approximate-1440x900.png"), animations: "disabled" });
    await page.setViewportSize({ width: 1024, height: 768 });
    await expect(note).toBeVisible();
    await page.screenshot({ path: path.join(out, "compare-approximate-1024x768.png"), animations: "disabled" });
  });
});
