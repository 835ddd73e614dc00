/**
 * The run-to-run diff against the production build: two runs of one workflow, before and
 * after a prompt change, aligned by step and call; the first divergence, the changed
 * arguments as text, the versions that differ, and picking run b among the workflow's runs.
 */
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
    await expect(first.getByRole("heading")).toContainText("in step “refund”: model.response: output changed");
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
});
