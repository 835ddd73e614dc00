/**
 * Notes and audit bundles in the browser: a note marks a finding false positive (it stays
 * listed, struck through); the run is exported; the bundle's report.html opens from
 * file:// with every network request refused (and counted: none is made) and shows the
 * timeline, the findings and the notes; /verify passes the bundle and names the member of
 * a changed one. Screenshots at 1440x900 and 1024x768.
 */
import fs from "node:fs";
import path from "node:path";
import { repack, unpackTarGz } from "../lib/evidence/archive";
import { SQLITE_PORT } from "./servers";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = path.resolve(process.env.RETRACE_SCREENSHOTS ? "docs/screenshots" : "test-results/screenshots");
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

test("notes, export, the offline report and verify", async ({ page, request, guard, browser }) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  const run = uniqueId("evidence");
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", run));
  const detail = (await (await request.get(`${BASE}/api/runs/${run}`)).json()) as { findings: { rule: string; seq: number }[] };
  const finding = detail.findings.find((f) => f.rule === "tool.partial")!;
  expect(finding).toBeDefined();

  // a note on the finding, marking it false positive, from the Notes tab with its event selected
  await page.setViewportSize(SIZES[0]);
  const rp = new RunPage(page);
  await rp.open(BASE, run, `?event=${finding.seq}`);
  await page.getByRole("tab", { name: /^Notes/ }).click();
  const form = page.getByRole("form", { name: "Add a note" });
  await form.getByLabel("Note on").selectOption(`finding:tool.partial`);
  await form.getByLabel("Label").selectOption("false positive");
  await form.getByLabel("Note", { exact: true }).fill("Partial page is expected here: the API pages at 50.");
  await form.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByRole("list", { name: "Notes" })).toContainText("Partial page is expected here");
  // and one on the run itself
  await form.getByLabel("Note on").selectOption("run");
  await form.getByLabel("Label").selectOption("needs fix");
  await form.getByLabel("Note", { exact: true }).fill("Retry policy should stop after one timeout.");
  await form.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByRole("tab", { name: "Notes (2)" })).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `run-notes-${size.width}.png`), animations: "disabled" });
  }

  // after a reload (stored, not local state) the finding shows as a false positive, still listed
  await page.setViewportSize(SIZES[0]);
  await rp.open(BASE, run, `?event=${finding.seq}`);
  await page.getByRole("tab", { name: /^Findings/ }).click();
  // findings are grouped by rule: the group of tool.partial, then its one finding
  const group = page.getByRole("list", { name: "Findings" }).locator("section.finding-group").filter({ hasText: "tool.partial" });
  const item = group.locator("li").first();
  await expect(item).toHaveAttribute("data-label", "false positive");
  await expect(item).toHaveClass(/false-positive/);
  await expect(item).toContainText("Partial page is expected here");
  await page.screenshot({ path: path.join(OUT, "run-findings-false-positive-1440.png"), animations: "disabled" });
  // the event list marks the event that carries a note
  await page.getByRole("tab", { name: /^Events/ }).click();
  await expect(rp.events.locator(`#ev-${finding.seq} .note-mark`)).toBeVisible();

  // export from the run page's button
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export bundle" }).click();
  const file = path.join(OUT, "..", `${run}.tar.gz`);
  await (await download).saveAs(file);
  const bytes = fs.readFileSync(file);
  const members = await unpackTarGz(bytes);
  const report = members.find((m) => m.path === "report.html")!;
  const reportFile = path.join(OUT, "..", `${run}.report.html`);
  fs.writeFileSync(reportFile, report.bytes);

  // report.html from disk, every request refused and counted
  const ctx = await browser.newContext();
  const offline = await ctx.newPage();
  let attempts = 0;
  const url = `file://${reportFile}`;
  await ctx.route("**/*", (route) => {
    if (route.request().url() === url) return route.continue();
    attempts++;
    return route.abort();
  });
  offline.on("request", (r) => {
    if (r.url() !== url) attempts++;
  });
  for (const size of SIZES) {
    await offline.setViewportSize(size);
    await offline.goto(url);
    await expect(offline.getByRole("heading", { name: "Retrace audit bundle" })).toBeVisible();
    await expect(offline.getByRole("heading", { name: /^Timeline/ })).toBeVisible();
    await expect(offline.locator("table.timeline tbody tr")).toHaveCount(33);
    await expect(offline.locator("table.findings")).toContainText("tool.partial");
    await expect(offline.locator("table.findings .fp-label")).toHaveText("false positive");
    await expect(offline.locator("table.notes")).toContainText("Retry policy should stop after one timeout.");
    await offline.screenshot({ path: path.join(OUT, `bundle-report-${size.width}.png`), animations: "disabled" });
  }
  expect(attempts).toBe(0);
  await ctx.close();

  // /verify: the bundle passes; one with a changed journal fails naming the member and seq
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`${BASE}/verify`);
    await page.getByLabel("Bundle file").setInputFiles(file);
    await expect(page.getByRole("region", { name: "Result" })).toHaveAttribute("data-ok", "true");
    await expect(page.getByRole("region", { name: "Result" })).toContainText("Signed by this deployment's key");
    await page.screenshot({ path: path.join(OUT, `verify-ok-${size.width}.png`), animations: "disabled" });
  }
  const journal = members.find((m) => m.path.endsWith("journal.jsonl"))!;
  const lines = Buffer.from(journal.bytes).toString().split("\n");
  lines[3] = lines[3].replace('"seq":3', '"seq":3,"x":1');
  const bad = await repack(members.map((m) => (m === journal ? { path: m.path, bytes: Buffer.from(lines.join("\n")) } : m)));
  await page.getByLabel("Bundle file").setInputFiles({ name: "changed.tar.gz", mimeType: "application/gzip", buffer: Buffer.from(bad) });
  const result = page.getByRole("region", { name: "Result" });
  await expect(result).toHaveAttribute("data-ok", "false");
  await expect(result).toContainText(`${journal.path} (seq 3)`);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `verify-failed-${size.width}.png`), animations: "disabled" });
  }
});
