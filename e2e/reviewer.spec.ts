/**
 * The reviewer's path (issue 16) on the demo data (the demo agent's recorded runs and the
 * example journals, as `npm start` loads them): from `/`, the rule filter lists exactly
 * the runs with that finding, and opening the run shows the cause, in two user actions;
 * n / N and the shortcuts dialog; grouped findings; the layout at 1024×768.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { SQLITE_PORT } from "./servers";
import { ruleText } from "../lib/analyze";
import { ndjson, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const RETRY_RUN = "demo-refund-retry-no-idempotency";
const RULE = "effect.retry-after-unknown";

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  fs.mkdirSync(OUT, { recursive: true });
  // the demo agent records its runs for real (fixed clock: the same journals every time)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-e2e-demo-"));
  try {
    execFileSync("node_modules/.bin/tsx", ["scripts/demo-agent/main.ts", "--out", tmp, "--db", path.join(tmp, "bank")], {
      stdio: "ignore",
    });
    for (const f of fs.readdirSync(tmp).filter((f) => f.endsWith(".jsonl")))
      await postJournal(request, BASE, fs.readFileSync(path.join(tmp, f), "utf8"));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const f of fs.readdirSync("tests/fixtures/examples").filter((f) => f.endsWith(".jsonl")))
    await postJournal(request, BASE, fs.readFileSync(path.join("tests/fixtures/examples", f), "utf8"));
});

/** Every run with a finding of `rule`, read run by run from the API (not through the filter). */
async function runsWithFinding(request: APIRequestContext, rule: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = (await (await request.get(`${BASE}/api/runs?limit=500${cursor ? `&cursor=${cursor}` : ""}`)).json()) as {
      runs: Array<{ id: string; findingCount: number }>;
      nextCursor: string | null;
    };
    for (const r of page.runs) {
      if (r.findingCount === 0) continue;
      const detail = (await (await request.get(`${BASE}/api/runs/${encodeURIComponent(r.id)}`)).json()) as {
        findings: Array<{ rule: string }>;
      };
      if (detail.findings.some((f) => f.rule === rule)) ids.push(r.id);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return ids.sort();
}

async function noHorizontalScroll(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, "the page scrolls horizontally").toBeLessThanOrEqual(client);
}

test("from the runs list to the cause of the incident in two user actions", async ({ page, request, guard }) => {
  guard.allowNavigation(BASE);
  const expected = await runsWithFinding(request, RULE);
  expect(expected).toContain(RETRY_RUN);
  const rp = new RunPage(page);
  let actions = 0;

  await page.goto("/");
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");

  // action 1: filter by rule
  actions++;
  await page.getByLabel("Rule").selectOption(RULE);
  await expect(page).toHaveURL(new RegExp(`[?&]rule=${RULE.replace(/\./g, "\\.")}`));
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const links = table.locator("tbody td.run-id > a");
  await expect.poll(async () => (await links.allTextContents()).sort()).toEqual(expected);
  // its health is not a green "succeeded"
  const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: RETRY_RUN, exact: true }) });
  await expect(row.locator("[data-health]")).toHaveAttribute("data-health", "bad");
  // one verdict naming its top error finding (#29: approval.missing before effect.retry-after-unknown by rule id)
  await expect(row.locator("[data-health]")).toHaveText(`succeeded · ${ruleText("approval.missing").title} (+1)`);
  await expect(row.locator("[data-health]")).toHaveAttribute("title", /\(2 error findings, 3 warnings/);
  await expect(row.locator("[data-severity]")).toHaveAttribute("data-severity", "error");

  // action 2: open the run
  actions++;
  await page.getByRole("link", { name: RETRY_RUN, exact: true }).click();
  await rp.ready();
  // the retrying call (#29), with the URL saying so
  await rp.shows(29);
  await expect(page).toHaveURL(/[?&]event=29\b/);
  await expect(rp.inspector.getByRole("heading", { level: 2 })).toContainText("#29 tool.call");
  const card = rp.inspector.getByRole("note", { name: "Finding: A write (such as a refund) may have been issued twice" });
  await expect(card).toBeVisible();
  const evidence = card.getByRole("definition").filter({ hasText: "payment gateway timed out" });
  await expect(evidence).toHaveText('status timeout, error "payment gateway timed out (the payment was committed)" (ToolTimeoutError)');
  expect(actions).toBe(2);

  // the link to the earlier result works
  await card.getByRole("button", { name: "#27", exact: true }).click();
  await rp.shows(27);
  await expect(page).toHaveURL(/[?&]event=27\b/);
  await expect(rp.panel()).toContainText("payment gateway timed out");
  // the seq in the analyzer's exact message is a jump too
  await rp.option("#29 tool.call issue_refund").click();
  await rp.shows(29);
  await card.locator(".fexact").getByRole("button", { name: "26", exact: true }).click();
  await rp.shows(26);
});

test("a click anywhere on a runs-list row opens its run; a click on a control does not", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  await page.goto("/?q=" + RETRY_RUN);
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: RETRY_RUN, exact: true }) });
  // the row's checkbox (open mode may export) selects, it does not navigate
  const box = row.getByRole("checkbox");
  if ((await box.count()) > 0) {
    await box.check();
    await expect(page).not.toHaveURL(/\/runs\//);
  }
  await row.locator("[data-health]").click();
  await expect(page).toHaveURL(new RegExp(`/runs/${RETRY_RUN}`));
});

test("n / N step through the failures and findings, ? lists the keys, the Findings tab groups by rule", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  await rp.open(BASE, RETRY_RUN);
  await rp.shows(29);
  // the findings are at 17, 26 and 29 (retrace analyze on the demo journal); the gateway's
  // timeout result at 27 and the agent's error event at 28 are failed events, stepped through as well
  await page.keyboard.press("N");
  await rp.shows(28);
  await page.keyboard.press("N");
  await rp.shows(27);
  await page.keyboard.press("N");
  await rp.shows(26);
  await page.keyboard.press("N");
  await rp.shows(17);
  await page.keyboard.press("N");
  await rp.shows(17);
  await page.keyboard.press("n");
  await rp.shows(26);
  await expect(page).toHaveURL(/[?&]event=26\b/);

  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("row", { name: /^n next failure or finding$/ })).toBeVisible();
  await expect(dialog.getByRole("row", { name: /previous failure or finding/ })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.getByRole("tab", { name: /Findings \(5\)/ }).click();
  const list = page.getByRole("list", { name: "Findings" });
  // 5 findings of 4 rules; effect.no-idempotency twice (#26, #29)
  const groups = list.getByRole("listitem", { name: /: \d+ findings?$/ });
  await expect(groups).toHaveCount(4);
  await expect(list.getByRole("listitem", { name: "A write has no idempotency key: 2 findings" })).toBeVisible();
  await page.getByRole("radio", { name: "2 errors" }).check();
  await expect(groups).toHaveCount(2);

  await page.setViewportSize({ width: 1440, height: 900 });
  await rp.open(BASE, RETRY_RUN);
  await rp.shows(29);
  await page.screenshot({ path: path.join(OUT, "reviewer-run-1440.png") });
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.screenshot({ path: path.join(OUT, "reviewer-run-1024.png") });
});

test("the replay and compare pages read the same keymap", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  await page.goto(`/runs/${RETRY_RUN}/replay`);
  await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog.getByRole("row", { name: /next divergence or finding/ })).toBeVisible();
  await page.keyboard.press("Escape");

  await page.goto(`/compare?a=demo-refund-approval&b=${RETRY_RUN}`);
  await expect(page.getByTestId("compare-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" }).getByRole("row", { name: /next difference/ })).toBeVisible();
});

/** Every stored event of a run, from the API. */
async function eventsOf(
  request: APIRequestContext,
  run: string,
): Promise<Array<{ seq: number; type: string; data: Record<string, unknown> }>> {
  const out: Array<{ seq: number; type: string; data: Record<string, unknown> }> = [];
  let after: number | null = -1;
  while (after !== null) {
    const page = (await (await request.get(`${BASE}/api/runs/${encodeURIComponent(run)}/events?after=${after}&limit=1000`)).json()) as {
      events: Array<{ event: { seq: number; type: string; data: Record<string, unknown> } }>;
      nextAfter: number | null;
    };
    out.push(...page.events.map((e) => e.event));
    after = page.nextAfter;
  }
  return out;
}

test("compare on the two demo refund runs: the reconcile vs retry decision, the pair in the URL, health and findings per run", async ({
  page,
  request,
  guard,
}) => {
  guard.allowNavigation(BASE);
  const A = "demo-refund-approval";
  // what the scenarios do after the refund timed out: a asks find_payment, b calls issue_refund again
  const findPayment = (await eventsOf(request, A)).find((e) => e.type === "tool.call" && e.data.tool === "find_payment")!;
  const retry = (await eventsOf(request, RETRY_RUN)).filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund")[1];
  await page.goto(`/compare?a=${A}&b=${RETRY_RUN}`);
  const view = page.getByTestId("compare-view");
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  const first = page.getByRole("region", { name: "First divergence" });
  await expect(first).toHaveAttribute("data-a-seq", String(findPayment.seq));
  await expect(first).toHaveAttribute("data-b-seq", String(retry.seq));
  await expect(first).toHaveAttribute("data-kind", "decision");
  await expect(first.getByRole("heading")).toContainText("after issue_refund timed out");
  await expect(first.getByRole("heading")).toContainText("run a reconciled it (find_payment");
  await expect(first.getByRole("heading")).toContainText(`run b retried issue_refund (#${retry.seq})`);
  // the input, which every two runs differ in, is named only as the first difference of any kind
  await expect(first.getByTestId("first-any")).toContainText("run.start: input changed");
  const detail = page.getByRole("region", { name: "Selected pair" });
  await expect(detail).toHaveAttribute("data-a-seq", String(findPayment.seq));

  // each run card: its health and its findings by plain title
  const cardA = page.getByRole("region", { name: "Run a" });
  const cardB = page.getByRole("region", { name: "Run b" });
  await expect(cardB.locator("[data-health]")).toHaveAttribute("data-health", "bad");
  await expect(cardB.locator("[data-health]")).toHaveText(`succeeded · ${ruleText("approval.missing").title} (+1)`);
  const findingsB = cardB.getByRole("list", { name: "Findings of run b" });
  await expect(findingsB.getByRole("link", { name: "A write (such as a refund) may have been issued twice" })).toHaveAttribute(
    "href",
    `/runs/${RETRY_RUN}?event=29`,
  );
  await expect(cardA.locator("[data-health]")).toBeVisible();

  // the selected pair is in the URL, and a reload opens at it
  const list = page.getByRole("listbox", { name: "Aligned events" });
  await list.getByRole("option", { name: /^a #28 tool\.call .* b #26 tool\.call/ }).click();
  await expect(page).toHaveURL(/[?&]ea=28&eb=26\b/);
  await page.reload();
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await expect(detail).toHaveAttribute("data-a-seq", "28");
  await expect(detail).toHaveAttribute("data-b-seq", "26");

  // the run picker searches across workflows
  await cardB.getByText("Compare another run as run b").click();
  await cardB.getByRole("searchbox", { name: "Search runs of any workflow for run b" }).fill("transfer-watch");
  await cardB.getByRole("button", { name: "Use demo-transfer-watch as run b" }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?a=${A}&b=demo-transfer-watch$`));
  await expect(view).toHaveAttribute("data-b", "demo-transfer-watch");
});

test("the retried call and its retry link to each other, and the graph draws the retry, explained in the legend", async ({
  page,
  guard,
}) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  // #26 is the first issue_refund, #29 its blind retry (the demo journal; the finding at #29 names 26)
  await rp.open(BASE, RETRY_RUN, "?event=26");
  await rp.shows(26);
  await expect(rp.tab("Tool call")).toHaveAttribute("aria-selected", "true");
  await rp.panel().getByRole("button", { name: "retried by #29" }).click();
  await rp.shows(29);
  await expect(page).toHaveURL(/[?&]event=29\b/);
  await rp.panel().getByRole("button", { name: "retries #26" }).click();
  await rp.shows(26);

  // the edge between the two calls, and what it means
  await expect(page.locator(".react-flow__edge.edge-retry")).toHaveCount(1);
  const legend = page.getByRole("list", { name: "Edges" });
  await expect(legend.getByRole("listitem").filter({ hasText: "retried by" })).toHaveAttribute(
    "title",
    "a write call retried by a later one after an unknown outcome",
  );
  // no overlay over the canvas: toolbar above it, legend, controls and minimap below it
  const canvas = (await page.locator(".graph-canvas").boundingBox())!;
  for (const sel of [".graph-status", ".graph-legend", ".react-flow__minimap", ".react-flow__controls"]) {
    const box = (await page.locator(sel).boundingBox())!;
    const overlaps =
      box.x < canvas.x + canvas.width && box.x + box.width > canvas.x && box.y < canvas.y + canvas.height && box.y + box.height > canvas.y;
    expect(overlaps, `${sel} lies over the graph canvas`).toBe(false);
  }
});

test("the inspector reads errors as fields, retrievals with each document's age, durations and policies in units", async ({
  page,
  guard,
}) => {
  guard.allowNavigation(BASE);
  await page.setViewportSize({ width: 1440, height: 900 });
  const rp = new RunPage(page);
  // #27: issue_refund's result, timed out with {message, name} (the demo journal)
  await rp.open(BASE, RETRY_RUN, "?event=27");
  await rp.shows(27);
  const error = rp.panel().getByRole("group", { name: "error" });
  await expect(error.getByRole("definition").first()).toHaveText("payment gateway timed out (the payment was committed)");
  await expect(error.getByRole("term")).toHaveText(["message", "name"]);
  await expect(error.getByRole("definition").nth(1)).toHaveText("ToolTimeoutError");
  await expect(rp.panel()).toContainText("500 ms");
  // #28: the agent's own error event, code and retryable as fields
  await rp.option("#28 error timeout").click();
  await rp.shows(28);
  await expect(rp.panel().getByRole("group", { name: "error" }).getByRole("term")).toHaveText(["message", "code", "retryable"]);

  // #17: the retrieval of a policy document indexed 400 days before (the scenario seeds it so), 30 allowed
  await rp.open(BASE, RETRY_RUN, "?event=17");
  await rp.shows(17);
  await expect(rp.tab("Retrieval")).toHaveAttribute("aria-selected", "true");
  await expect(rp.panel()).toContainText("30 days (2,592,000 s)");
  const doc = rp.panel().getByRole("listitem", { name: "Document kb-refunds" });
  await expect(doc).toContainText("400 days old when retrieved, older than the allowed 30 days");
  await expect(doc).toContainText("indexed at");
  await page.screenshot({ path: path.join(OUT, "reviewer-retrieval-1440.png") });
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.screenshot({ path: path.join(OUT, "reviewer-retrieval-1024.png") });

  // the run's policy in units
  await page.getByText("versions in force and policy").click();
  await expect(page.getByLabel("Versions in force")).toContainText("retrievalMaxAgeSeconds 30 days (2,592,000 s)");
  await expect(page.getByLabel("Versions in force")).toContainText("maxSteps 8 steps");
});

test("the upload report says what happened: nothing new for a stored file, warnings listed, uploaded runs first", async ({
  page,
  guard,
}) => {
  guard.allowNavigation(BASE);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
  const report = page.getByRole("region", { name: "Upload report" });
  const send = async (name: string, body: string) => {
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Upload runs" }).click();
    await (await chooser).setFiles({ name, mimeType: "application/x-ndjson", buffer: Buffer.from(body) });
  };

  // a run that started in 2020 (last in the list by start) with a gap in its seqs: stored, with a warning
  const old = uniqueId("e2e-old");
  const ev = (seq: number, type: string, data: Record<string, unknown>) => ({
    run: old,
    seq,
    ts: new Date(Date.parse("2020-01-02T03:04:05Z") + seq * 1000).toISOString(),
    type,
    data,
  });
  await send(
    "gap.jsonl",
    ndjson([
      ev(0, "run.start", { workflow: { name: "old-wf", version: "1" } }),
      ev(1, "note", { text: "a" }),
      ev(3, "note", { text: "b" }),
    ]),
  );
  await expect(report.getByRole("status").filter({ hasText: "Stored." })).toHaveAttribute("title", "HTTP 201");
  const warnings = report.getByRole("table", { name: "Warnings in gap.jsonl" });
  await expect(warnings.getByRole("row").nth(1)).toContainText("seq jumps from 1 to 3");
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const firstRow = table.locator("tbody tr").first();
  await expect(firstRow.locator("td.run-id > a")).toHaveText(old);
  await expect(firstRow.locator(".badge.uploaded")).toHaveText("uploaded");
  // relative and absolute times
  await expect(firstRow).toContainText("2020-01-02 03:04:05");
  await expect(firstRow.getByTestId("relative-time")).toHaveText(/^\d+ years? ago$/);

  // the same file again: every event was stored already
  await send(
    "gap-again.jsonl",
    ndjson([
      ev(0, "run.start", { workflow: { name: "old-wf", version: "1" } }),
      ev(1, "note", { text: "a" }),
      ev(3, "note", { text: "b" }),
    ]),
  );
  await expect(report.getByRole("status").filter({ hasText: "nothing new" })).toHaveText("Already stored: nothing new.");
  await expect(
    report.getByRole("table", { name: "Runs in gap-again.jsonl" }).getByRole("cell", { name: "already stored, nothing new" }),
  ).toBeVisible();
  await expect(report).not.toContainText("Imported as");
  await page.screenshot({ path: path.join(OUT, "reviewer-upload-1440.png") });
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.screenshot({ path: path.join(OUT, "reviewer-upload-1024.png") });
  await noHorizontalScroll(page);
});

test("a branded 404 names the missing run and offers the search; a finished run opens no live stream", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  guard.allowConsoleError(/status of 404/);
  await page.setViewportSize({ width: 1440, height: 900 });
  const missing = "no-such-run-e2e";
  const answer = await page.goto(`/runs/${missing}`);
  expect(answer?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`No such run: ${missing}`);
  await expect(page.getByText("404 · Not found")).toBeVisible();
  await page.screenshot({ path: path.join(OUT, "reviewer-404-1440.png") });
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.screenshot({ path: path.join(OUT, "reviewer-404-1024.png") });
  const search = page.getByRole("searchbox", { name: "Search runs" });
  await expect(search).toHaveValue(missing);
  await search.fill("refund-retry");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/\/\?q=refund-retry$/);
  await expect(page.getByRole("table", { name: "Runs", exact: true }).getByRole("link", { name: RETRY_RUN })).toBeVisible();

  expect((await page.goto("/no/such/page"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No page at /no/such/page");

  // the demo run has ended: its page asks for no stream
  const streams: string[] = [];
  page.on("request", (r) => void (r.url().includes("/stream") && streams.push(r.url())));
  const rp = new RunPage(page);
  await rp.open(BASE, RETRY_RUN);
  await expect(rp.view).toHaveAttribute("data-live", "off");
  expect(streams).toEqual([]);
});

test("panes resize and collapse and are remembered; graph nodes are one Tab stop; the findings lane counts", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  await page.setViewportSize({ width: 1440, height: 900 });
  const rp = new RunPage(page);
  await rp.open(BASE, RETRY_RUN);
  await rp.shows(29);
  const width = async (sel: string) => (await page.locator(sel).boundingBox())!.width;
  const inspector0 = await width("aside.inspector");

  // the inspector's splitter, by keyboard: two presses of ← widen it by 2 × 16 px
  const splitter = page.getByRole("separator", { name: "Resize the inspector" });
  await splitter.focus();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect.poll(() => width("aside.inspector")).toBeCloseTo(inspector0 + 32, 0);
  await rp.shows(29); // the arrows resized, they did not step through events
  // and by dragging the events panel's splitter 60 px to the right
  const side0 = await width("aside.side");
  const handle = (await page.getByRole("separator", { name: "Resize the events panel" }).boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + 100);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2 + 60, handle.y + 100, { steps: 4 });
  await page.mouse.up();
  await expect.poll(() => width("aside.side")).toBeCloseTo(side0 + 60, 0);

  // collapse the timeline and the events panel: the graph takes the room
  const graph0 = (await page.locator(".graph-pane").boundingBox())!;
  await page.getByRole("button", { name: "Hide the events panel" }).click();
  await page.getByRole("button", { name: "Hide the timeline panel" }).click();
  const graph1 = (await page.locator(".graph-pane").boundingBox())!;
  expect(graph1.width).toBeGreaterThan(graph0.width + 200);
  expect(graph1.height).toBeGreaterThan(graph0.height + 100);
  await page.screenshot({ path: path.join(OUT, "reviewer-panes-collapsed-1440.png") });

  // remembered across a reload
  await page.reload();
  await rp.ready();
  await expect(page.getByRole("button", { name: "Show the events panel" })).toBeVisible();
  await expect.poll(() => width("aside.inspector")).toBeCloseTo(inspector0 + 32, 0);
  await page.getByRole("button", { name: "Show the events panel" }).click();
  await page.getByRole("button", { name: "Show the timeline panel" }).click();
  await expect.poll(() => width("aside.side")).toBeCloseTo(side0 + 60, 0);
  await expect(page.locator("canvas[data-finding-count]")).toHaveAttribute("data-finding-count", "5"); // 5 findings, at 17, 26, 29
  // Home on a splitter gives the pane back its default size
  await splitter.focus();
  await page.keyboard.press("Home");
  await expect.poll(() => width("aside.inspector")).toBeCloseTo(inspector0, 0);
  await page.getByRole("separator", { name: "Resize the events panel" }).focus();
  await page.keyboard.press("Home");

  // roving focus: one graph node is a Tab stop (the selected one); j moves the focus with the selection
  const stops = page.locator('.react-flow__node[tabindex="0"]');
  await expect(stops).toHaveCount(1);
  await expect(stops).toHaveAttribute("aria-label", /^#29 tool\.call/);
  await stops.focus();
  await page.keyboard.press("j");
  await rp.shows(30);
  await expect(page.locator(".react-flow__node:focus")).toHaveAttribute("aria-label", /^#30 tool\.result/);
  await expect(stops).toHaveCount(1);
});

test("at 1024×768 no page scrolls sideways and the graph keeps 400 px beside the inspector", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  for (const [w, h] of [
    [1440, 900],
    [1024, 768],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto("/?q=demo-");
    await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
    await expect(page.getByRole("table", { name: "Runs", exact: true })).toBeVisible();
    await page.screenshot({ path: path.join(OUT, `reviewer-runs-${w}.png`) });
    await noHorizontalScroll(page);

    const rp = new RunPage(page);
    await rp.open(BASE, RETRY_RUN);
    await rp.shows(29);
    await page.screenshot({ path: path.join(OUT, `reviewer-run-page-${w}.png`) });
    await noHorizontalScroll(page);
    const graph = await page.locator(".graph-pane").boundingBox();
    expect(graph?.width ?? 0).toBeGreaterThanOrEqual(400);
    await expect(rp.inspector).toBeVisible();

    await page.goto(`/runs/${RETRY_RUN}/replay`);
    await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
    await page.screenshot({ path: path.join(OUT, `reviewer-replay-${w}.png`) });
    await noHorizontalScroll(page);

    await page.goto(`/compare?a=demo-refund-approval&b=${RETRY_RUN}`);
    await expect(page.getByTestId("compare-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
    await page.screenshot({ path: path.join(OUT, `reviewer-compare-${w}.png`) });
    await noHorizontalScroll(page);
  }
});

test("a malformed fork link is an error on the page, with no console errors; the fork form prefills from the seq typed", async ({
  page,
  guard,
}) => {
  guard.allowNavigation(BASE);
  const view = page.getByTestId("replay-view");
  // the guard fails the test on any console error: a hydration mismatch would be one
  await page.goto(`/runs/${RETRY_RUN}/replay?fork=3&override=${encodeURIComponent("{nope")}`);
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await expect(page.getByRole("region", { name: "Replay mode" }).getByRole("alert")).toContainText("override is not valid JSON");

  // the playhead at #5 (a model.response); the seq typed is #27, the timed-out refund
  await page.goto(`/runs/${RETRY_RUN}/replay?event=5`);
  await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await page.getByRole("complementary", { name: "Replay details" }).getByRole("tab", { name: "Fork" }).click();
  const form = page.getByRole("form", { name: "What-if fork" });
  await form.getByLabel("Fork at seq").fill("27");
  await expect(form.getByText("seq 27: tool.result")).toBeVisible();
  await form.getByLabel("Edit the tool result").check();
  const editor = form.getByLabel(/Tool result fields/);
  await expect(editor).toHaveValue(/"status": "timeout"/);
  await expect(editor).toHaveValue(/payment gateway timed out \(the payment was committed\)/);
  await page.screenshot({ path: path.join(OUT, "reviewer-fork-prefill.png") });
});
