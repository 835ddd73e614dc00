/**
 * A run that went wrong never looks healthy: the failed demo run (the demo agent's
 * refund-gateway-outage, no findings) and a run that "succeeded" with failed tool results
 * and no findings are red in the runs list and the run header, say how many events failed,
 * and open at their first failure; `?event=` still wins.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { ruleText } from "../lib/analyze";
import { errorEvents, plural } from "../lib/semantics";
import type { JournalEvent } from "../lib/journal/types";
import { SQLITE_PORT } from "./servers";
import { example, ndjson, rechain, uniqueId, type Ev } from "./fixtures/journals";
import { expect, postJournal, resizeTo, RunPage, test } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve("test-results/screenshots");
const FAILED_RUN = "demo-refund-gateway-outage";
const TOOL_ERRORS_RUN = uniqueId("health-tool-errors");
const RETRY_RUN = uniqueId("health-retry");

let failedJournal: Ev[] = [];
let toolErrorsJournal: Ev[] = [];

/** The clean refund example, with its order lookup and its email failing, still ending "succeeded". */
function toolErrors(runId: string): Ev[] {
  // re-chained after the edit, so the recorder chain still verifies
  return rechain(
    example("00-refund-clean.jsonl", runId).map((e) => {
      if (e.type !== "tool.result" || (e.seq !== 9 && e.seq !== 28)) return e;
      const { result: _result, ...data } = e.data;
      void _result;
      return { ...e, data: { ...data, status: "error", error: { message: "upstream 503" } } };
    }),
  );
}

/** Failed events as the format counts them (lib/semantics), computed from the journal, not read from the server. */
function failuresOf(events: Ev[]): { count: number; first: number } {
  const failed = errorEvents(events as unknown as JournalEvent[]);
  const first = failed.indexOf(true);
  return { count: failed.filter(Boolean).length, first: events[first].seq };
}

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  fs.mkdirSync(OUT, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-e2e-health-"));
  try {
    execFileSync(
      "node_modules/.bin/tsx",
      ["scripts/demo-agent/main.ts", "--out", tmp, "--db", path.join(tmp, "bank"), "--scenario", "refund-gateway-outage"],
      { stdio: "ignore" },
    );
    const text = fs.readFileSync(path.join(tmp, "refund-gateway-outage.jsonl"), "utf8");
    failedJournal = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Ev);
    await postJournal(request, BASE, text);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  toolErrorsJournal = toolErrors(TOOL_ERRORS_RUN);
  await postJournal(request, BASE, ndjson(toolErrorsJournal));
  // a timed-out booking retried: one error finding and one failed event
  await postJournal(request, BASE, ndjson(example("14-booking-effect.retry-after-unknown.jsonl", RETRY_RUN)));
});

async function healthInList(page: Page, runId: string) {
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: runId, exact: true }) });
  await expect(row).toHaveCount(1);
  return row;
}

test("a failed run and a run with failed tool results are never shown healthy, and open at their first failure", async ({
  page,
  request,
  guard,
}) => {
  guard.allowNavigation(BASE);
  const cases = [
    { run: FAILED_RUN, status: "failed", ...failuresOf(failedJournal) },
    { run: TOOL_ERRORS_RUN, status: "succeeded", ...failuresOf(toolErrorsJournal) },
  ];
  for (const c of cases) {
    // the precondition that makes this the bug: no finding says anything is wrong
    const detail = (await (await request.get(`${BASE}/api/runs/${encodeURIComponent(c.run)}`)).json()) as {
      findingCount: number;
      status: string;
    };
    expect(detail).toMatchObject({ findingCount: 0, status: c.status });
    expect(c.count).toBeGreaterThan(0);
  }

  await resizeTo(page, 1440, 900);
  await page.goto("/");
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
  for (const c of cases) {
    const row = await healthInList(page, c.run);
    const chip = row.locator("[data-health]");
    await expect(chip).toHaveAttribute("data-health", "bad");
    await expect(chip).toHaveText(`${c.status} · ${plural(c.count, "failed event")}`);
    // the Events column says the same thing in the same words
    await expect(row.getByText(plural(c.count, "failed event"), { exact: true })).toBeVisible();
    // nothing green but the chain (whose "verified" is about the record, not the run)
    await expect(row.locator("td:not(.col-chain) .badge.good")).toHaveCount(0);
  }
  // with an error finding the chip names it by the run page's title, and its tooltip counts both kinds
  const retry = (await healthInList(page, RETRY_RUN)).locator("[data-health]");
  await expect(retry).toHaveText(`succeeded · ${ruleText("effect.retry-after-unknown").title}`);
  await expect(retry).toHaveAttribute("title", /\(1 error finding, 1 failed event\)$/);
  await page.screenshot({ path: path.join(OUT, "health-runs-1440.png") });
  await resizeTo(page, 1024, 768);
  await page.screenshot({ path: path.join(OUT, "health-runs-1024.png") });

  const rp = new RunPage(page);
  for (const c of cases) {
    await resizeTo(page, 1440, 900);
    await rp.open(BASE, c.run);
    // opens at the first failure, and the URL says so
    await rp.shows(c.first);
    await expect(page).toHaveURL(new RegExp(`[?&]event=${c.first}\\b`));
    const header = page.locator("header.run-header");
    await expect(header.locator("[data-health]")).toHaveAttribute("data-health", "bad");
    await expect(header.getByText("no findings", { exact: true })).not.toHaveClass(/\bgood\b/);
    await expect(header.getByText(/^failed events/)).toContainText(String(c.count));
    const name = c.run === FAILED_RUN ? "failed" : "tool-errors";
    await header.screenshot({ path: path.join(OUT, `health-header-${name}-1440.png`) });
    await resizeTo(page, 1024, 768);
    await header.screenshot({ path: path.join(OUT, `health-header-${name}-1024.png`) });
  }

  // a link to an event still opens at that event
  await rp.open(BASE, FAILED_RUN, "?event=0");
  await rp.shows(0);
});

test("a clean run stays green and opens at its first event", async ({ page, request, guard }) => {
  guard.allowNavigation(BASE);
  const clean = uniqueId("health-clean");
  await postJournal(request, BASE, ndjson(example("00-refund-clean.jsonl", clean)));
  const rp = new RunPage(page);
  await rp.open(BASE, clean);
  await rp.shows(0);
  const header = page.locator("header.run-header");
  await expect(header.locator("[data-health]")).toHaveAttribute("data-health", "good");
  await expect(header.locator("[data-health]")).toHaveText("succeeded");
  await expect(header.getByText("no findings", { exact: true })).toHaveClass(/\bgood\b/);
});
