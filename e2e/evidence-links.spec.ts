/**
 * Deep links, note marks, selection export and retention in the browser: a note on an
 * event marks it on the graph and the timeline; "Copy link" on an event and on a finding
 * copies an address that opens the same place in a fresh browser; two runs ticked in the
 * runs list export as one bundle holding both; an admin sets a project's retention.
 * Screenshots at 1440x900 and 1024x768.
 */
import fs from "node:fs";
import path from "node:path";
import { unpackTarGz } from "../lib/evidence/archive";
import { SQLITE_PORT } from "./servers";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

test("note marks on graph and timeline; copy link on an event and a finding opens the same place", async ({
  page,
  request,
  guard,
  browser,
  context,
}) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE });
  const run = uniqueId("links");
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", run));
  const detail = (await (await request.get(`${BASE}/api/runs/${run}`)).json()) as { findings: { rule: string; seq: number }[] };
  const finding = detail.findings.find((f) => f.rule === "tool.partial")!;
  expect(finding).toBeDefined();
  const seq = finding.seq;

  await page.setViewportSize(SIZES[0]);
  const rp = new RunPage(page);
  await rp.open(BASE, run, `?event=${seq}`);
  // no note yet: neither graph node nor timeline says so
  await expect(rp.node(new RegExp(`^#${seq} .*\\(1 note\\)`))).toHaveCount(0);
  await page.getByRole("tab", { name: /^Notes/ }).click();
  const form = page.getByRole("form", { name: "Add a note" });
  await form.getByLabel("Note on").selectOption("event");
  await form.getByLabel("Label").selectOption("confirmed");
  await form.getByLabel("Note", { exact: true }).fill("The second page was never fetched.");
  await form.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByRole("tab", { name: "Notes (1)" })).toBeVisible();
  await expect(rp.node(new RegExp(`^#${seq} .*\\(1 note\\)`))).toBeVisible();
  await expect(page.getByRole("img", { name: /^Timeline of .*, 1 with reviewers' notes:/ })).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `run-note-marks-${size.width}.png`), animations: "disabled" });
  }
  await page.setViewportSize(SIZES[0]);

  // copy link on the selected event: the clipboard holds ?event=SEQ of this run
  await rp.shows(seq);
  await rp.inspector.getByRole("button", { name: `Copy link to event #${seq}` }).click();
  await expect(rp.inspector.getByRole("button", { name: `Copy link to event #${seq}` })).toHaveText("Copied");
  const eventLink = await page.evaluate(() => navigator.clipboard.readText());
  expect(eventLink).toBe(`${BASE}/runs/${run}?event=${seq}`);

  // copy link on the finding in the findings list
  await page.getByRole("tab", { name: /^Findings/ }).click();
  const item = page.getByRole("list", { name: "Findings" }).getByRole("listitem").filter({ hasText: "tool.partial" });
  await item.getByRole("button", { name: `Copy link to finding #${seq}: A tool returned incomplete data` }).click();
  const findingLink = await page.evaluate(() => navigator.clipboard.readText());
  expect(findingLink).toBe(`${BASE}/runs/${run}?event=${seq}&tab=findings`);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `run-findings-copy-link-${size.width}.png`), animations: "disabled" });
  }

  // both open the same place in a browser that has never seen the run
  const other = await browser.newContext();
  const fresh = await other.newPage();
  const frp = new RunPage(fresh);
  await fresh.goto(eventLink);
  await frp.ready();
  await frp.shows(seq);
  await expect(fresh.getByRole("tab", { name: /^Events/ })).toHaveAttribute("aria-selected", "true");
  await fresh.goto(findingLink);
  await frp.ready();
  await frp.shows(seq);
  await expect(fresh.getByRole("tab", { name: /^Findings/ })).toHaveAttribute("aria-selected", "true");
  // the finding's own row (its button reads "#SEQ message") is the current one
  await expect(fresh.getByRole("list", { name: "Findings" }).getByRole("button", { name: new RegExp(`^#${seq} `) })).toHaveAttribute(
    "aria-current",
    "true",
  );
  await other.close();
});

test("two runs ticked in the runs list export as one bundle holding both", async ({ page, request, guard }) => {
  test.setTimeout(90_000);
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  const a = uniqueId("sel-a");
  const b = uniqueId("sel-b");
  const events = example("08-refund-tool.partial.jsonl", a).length;
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", a));
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", b));

  await page.setViewportSize(SIZES[0]);
  await page.goto(`${BASE}/?q=sel-`);
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
  const table = page.getByRole("table", { name: "Runs" });
  await table.getByRole("checkbox", { name: `Select run ${a}` }).check();
  await table.getByRole("checkbox", { name: `Select run ${b}` }).check();
  const bar = page.getByRole("region", { name: "Selected runs" });
  await expect(bar).toContainText("2 runs selected");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `runs-selection-${size.width}.png`), animations: "disabled" });
  }

  const download = page.waitForEvent("download");
  await bar.getByRole("button", { name: "Export selected" }).click();
  const file = path.join(OUT, "..", `selection-${a}.tar.gz`);
  await (await download).saveAs(file);
  const members = await unpackTarGz(fs.readFileSync(file));
  const manifest = JSON.parse(Buffer.from(members.find((m) => m.path === "manifest.json")!.bytes).toString()) as {
    runs: { id: string; events: number }[];
  };
  expect(manifest.runs.map((r) => r.id).sort()).toEqual([a, b].sort());
  expect(manifest.runs.map((r) => r.events)).toEqual([events, events]);
  expect(members.filter((m) => m.path.endsWith("journal.jsonl"))).toHaveLength(2);

  await bar.getByRole("button", { name: "Clear selection" }).click();
  await expect(bar).toHaveCount(0);
});

test("an admin sets a project's retention on the projects page", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  await page.setViewportSize(SIZES[0]);
  // the shared server is open (no accounts): its user administers every project
  await page.goto(`${BASE}/admin/projects`);
  const days = page.getByLabel("Retention days of default");
  await days.fill("30");
  const save = page.getByRole("form", { name: "Retention of default" }).getByRole("button", { name: "Save" });
  await save.click();
  // saved: the page's data now holds 30, so there is nothing left to save
  await expect(save).toBeDisabled();
  await page.reload();
  await expect(page.getByLabel("Retention days of default")).toHaveValue("30");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `admin-retention-${size.width}.png`), animations: "disabled" });
  }
  // a refused value shows the rule, and nothing changes
  await page.getByLabel("Retention days of default").fill("0");
  await page.getByRole("form", { name: "Retention of default" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("form", { name: "Retention of default" }).getByRole("alert")).toContainText("at least 1 day");
  // back to forever, so no other test's runs are ever due
  await page.getByLabel("Retention days of default").fill("");
  await save.click();
  await expect(save).toBeDisabled();
  await page.reload();
  await expect(page.getByLabel("Retention days of default")).toHaveValue("");
});

test("an admin places a legal hold on a run and lifts it; the header says so", async ({ page, request, guard }) => {
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  const run = uniqueId("hold");
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", run));
  await page.setViewportSize(SIZES[0]);
  const rp = new RunPage(page);
  await rp.open(BASE, run);
  await expect(page.getByText("legal hold", { exact: true })).toHaveCount(0);
  await page.getByRole("button", { name: "Place legal hold" }).click();
  await expect(page.getByRole("button", { name: "Lift legal hold" })).toBeVisible();
  // stored, not local state: a reload still shows it
  await rp.open(BASE, run);
  await expect(page.getByText("legal hold", { exact: true })).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `run-legal-hold-${size.width}.png`), animations: "disabled" });
  }
  await page.getByRole("button", { name: "Lift legal hold" }).click();
  await expect(page.getByRole("button", { name: "Place legal hold" })).toBeVisible();
  await rp.open(BASE, run);
  await expect(page.getByText("legal hold", { exact: true })).toHaveCount(0);
});
