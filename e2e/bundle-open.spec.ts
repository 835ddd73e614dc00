/**
 * A verified audit bundle opened as a read-only run: a demo run with a note is exported,
 * /verify checks the bundle, "Open as read-only run" makes the run, whose page (and
 * replay) carries the "From bundle" banner with the key, the exporter and the profile,
 * shows the bundle's findings, timeline and notes, and offers no note form and no export;
 * the server refuses a note and an append on it. A changed bundle is refused, named.
 * Screenshots at 1440x900 and 1024x768.
 */
import fs from "node:fs";
import path from "node:path";
import { repack, unpackTarGz } from "../lib/evidence/archive";
import { SQLITE_PORT } from "./servers";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test, RunPage } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const OUT = process.env.SHOTS_DIR ?? path.resolve("test-results/screenshots");
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

test("a verified bundle opens as a read-only run marked from bundle", async ({ page, request, guard }) => {
  test.setTimeout(120_000);
  guard.allowNavigation(BASE);
  fs.mkdirSync(OUT, { recursive: true });
  const run = uniqueId("from-bundle");
  await postJournal(request, BASE, example("08-refund-tool.partial.jsonl", run));
  const live = (await (await request.get(`${BASE}/api/runs/${run}`)).json()) as { eventCount: number; findings: { rule: string }[] };

  // a note on the run, so the bundle carries one
  await page.setViewportSize(SIZES[0]);
  const rp = new RunPage(page);
  await rp.open(BASE, run);
  await page.getByRole("tab", { name: /^Notes/ }).click();
  const form = page.getByRole("form", { name: "Add a note" });
  await form.getByLabel("Note on").selectOption("run");
  await form.getByLabel("Label").selectOption("needs fix");
  await form.getByLabel("Note", { exact: true }).fill("Retry policy should stop after one timeout.");
  await form.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByRole("tab", { name: "Notes (1)" })).toBeVisible();

  const res = await request.post(`${BASE}/api/runs/${run}/bundle?profile=reviewer`);
  expect(res.status()).toBe(200);
  const bytes = Buffer.from(await res.body());
  const file = path.join(OUT, `${run}.tar.gz`);
  fs.writeFileSync(file, bytes);

  // a changed bundle verifies as failed and is refused by the open route, named
  const members = await unpackTarGz(bytes);
  const journal = members.find((m) => m.path.endsWith("journal.jsonl"))!;
  const lines = Buffer.from(journal.bytes).toString().split("\n");
  lines[2] = lines[2].replace('"seq":2', '"seq":2,"x":1');
  const bad = await repack(members.map((m) => (m === journal ? { path: m.path, bytes: Buffer.from(lines.join("\n")) } : m)));
  const refused = await request.post(`${BASE}/api/bundles/open`, {
    data: Buffer.from(bad),
    headers: { "content-type": "application/gzip" },
  });
  expect(refused.status()).toBe(422);
  expect(((await refused.json()) as { error: string }).error).toContain(`${journal.path} (seq 2)`);

  // /verify, then open
  await page.goto(`${BASE}/verify`);
  await page.getByLabel("Bundle file").setInputFiles(file);
  const result = page.getByRole("region", { name: "Result" });
  await expect(result).toHaveAttribute("data-ok", "true");
  await page.getByRole("button", { name: "Open as read-only run in project default" }).click();
  const link = page.getByRole("link", { name: `Open run ${run}` });
  await expect(link).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `verify-opened-${size.width}.png`), animations: "disabled" });
  }
  await page.setViewportSize(SIZES[0]);
  const href = (await link.getAttribute("href"))!;
  const bundleRun = decodeURIComponent(href.slice("/runs/".length));
  expect(bundleRun).toMatch(new RegExp(`^bundle:[0-9a-f]{12}:${run}$`));
  await link.click();
  await rp.ready();

  const banner = page.getByTestId("bundle-banner");
  await expect(banner).toContainText("From bundle");
  await expect(banner).toContainText("verified, signed by key");
  await expect(banner).toContainText("(this deployment's)");
  await expect(banner).toContainText("profile reviewer");
  // one verdict: the banner and the header's chain chip say the same (the copy has no recorder hashes)
  await expect(banner.getByTestId("bundle-chain")).toContainText("chain verified in the bundle (last hash");
  const chip = page.locator(".run-header [data-chain]");
  await expect(chip).toHaveText("chain verified in the bundle");
  await expect(chip).toHaveAttribute("data-chain", "verified");
  await expect(banner).toContainText(`run ${run} of project default`);
  // no export, no note form: the notes are the bundle's
  await expect(page.getByRole("button", { name: "Export bundle" })).toHaveCount(0);
  await expect(page.getByRole("tab", { name: `Events (${live.eventCount})` })).toBeVisible();
  await expect(page.getByRole("img", { name: new RegExp(`^Timeline of ${live.eventCount} events`) })).toBeVisible();
  await page.getByRole("tab", { name: /^Findings/ }).click();
  await expect(page.getByRole("tab", { name: `Findings (${live.findings.length})` })).toBeVisible();
  await expect(page.getByRole("list", { name: "Findings" })).toContainText("tool.partial");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await expect(banner).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(OUT, `bundle-run-findings-${size.width}.png`), animations: "disabled" });
  }
  await page.setViewportSize(SIZES[0]);
  await page.getByRole("tab", { name: /^Notes/ }).click();
  await expect(page.getByRole("list", { name: "Notes" })).toContainText("Retry policy should stop after one timeout.");
  await expect(page.getByRole("form", { name: "Add a note" })).toHaveCount(0);
  await expect(page.getByText("Read-only: these notes came with the bundle.")).toBeVisible();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `bundle-run-notes-${size.width}.png`), animations: "disabled" });
  }

  // the replay carries the banner too
  await page.setViewportSize(SIZES[0]);
  await page.goto(`${BASE}/runs/${encodeURIComponent(bundleRun)}/replay`);
  await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await expect(page.getByTestId("bundle-banner")).toContainText("From bundle");
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(OUT, `bundle-replay-${size.width}.png`), animations: "disabled" });
  }

  // server-side: an append to the bundle run and an export of it are refused; the live run is untouched
  const append = await request.post(`${BASE}/api/runs/${encodeURIComponent(bundleRun)}/events`, {
    data: JSON.stringify({ run: bundleRun, seq: 999, ts: "2026-12-01T10:00:00.000Z", type: "note", data: { text: "x" } }) + "\n",
    headers: { "content-type": "application/x-ndjson" },
  });
  expect(append.status()).toBe(409);
  expect(JSON.stringify(await append.json())).toContain("read-only");
  const exp = await request.post(`${BASE}/api/runs/${encodeURIComponent(bundleRun)}/bundle`);
  expect(exp.status()).toBe(403);
  const after = (await (await request.get(`${BASE}/api/runs/${run}`)).json()) as { eventCount: number };
  expect(after.eventCount).toBe(live.eventCount);
});
