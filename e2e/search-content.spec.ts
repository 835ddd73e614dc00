/**
 * Search across runs by content (issue 32) on the demo data: a reviewer who knows only a
 * refund id (`rf_0002`) or the customer's words ("charged twice") types it in the runs
 * list and reaches the event that holds it in two actions (type, click). Which runs and
 * events hold the text is read from the journals the demo agent wrote, not from the
 * search. The API answers the same on both databases. Screenshots of the list with a
 * result at 1440×900 and 1024×768 go to $RETRACE_SEARCH_SHOTS (default test-results).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { SERVERS } from "./servers";
import { expect, postJournal, resizeTo, test, RunPage } from "./fixtures/viewer";

const SHOTS = path.resolve(process.env.RETRACE_SEARCH_SHOTS ?? "test-results/screenshots-search");

/** Every demo and example journal's lines, by run id (one run a file). */
const journals = new Map<string, string[]>();

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-e2e-search-"));
  try {
    // the demo agent records its runs for real (fixed clock: the same journals every time)
    execFileSync("node_modules/.bin/tsx", ["scripts/demo-agent/main.ts", "--out", tmp, "--db", path.join(tmp, "bank")], {
      stdio: "ignore",
    });
    for (const f of fs.readdirSync(tmp).filter((f) => f.endsWith(".jsonl"))) {
      const text = fs.readFileSync(path.join(tmp, f), "utf8");
      const lines = text.split("\n").filter((l) => l.trim() !== "");
      const run = (JSON.parse(lines[0]) as { run: string }).run;
      journals.set(run, lines);
      for (const s of SERVERS) await postJournal(request, s.base, text);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // the example journals `npm start` loads too (some hold a refund id or the same words)
  for (const f of fs.readdirSync("tests/fixtures/examples").filter((f) => f.endsWith(".jsonl"))) {
    const text = fs.readFileSync(path.join("tests/fixtures/examples", f), "utf8");
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    journals.set((JSON.parse(lines[0]) as { run: string }).run, lines);
    for (const s of SERVERS) await postJournal(request, s.base, text);
  }
});

/** The runs whose journal holds `text` (case-insensitively, as a JSON string holds it), each with its first such seq. */
function holders(text: string): Map<string, number> {
  const needle = JSON.stringify(text).slice(1, -1).toLowerCase();
  const out = new Map<string, number>();
  for (const [run, lines] of journals) {
    const hit = lines.find((l) => l.toLowerCase().includes(needle));
    if (hit) out.set(run, (JSON.parse(hit) as { seq: number }).seq);
  }
  return out;
}

async function reachByTyping(page: Page, text: string, screenshot?: string) {
  const expected = holders(text);
  expect(expected.size, `the demo runs hold "${text}"`).toBeGreaterThan(0);
  const rp = new RunPage(page);
  await page.goto("/");
  await expect(page.locator(".runs-page")).toHaveAttribute("data-ready", "true");
  let actions = 0;

  // action 1: type what the reviewer knows
  actions++;
  await page.getByRole("searchbox", { name: "Search" }).fill(text);
  await expect(page).toHaveURL(new RegExp(`[?&]q=${encodeURIComponent(text).replace(/%20/g, "(\\+|%20)")}`));
  const table = page.getByRole("table", { name: "Runs", exact: true });
  const matches = table.getByTestId("run-match");
  // every run that holds it is listed with the event that holds it
  for (const [run, seq] of expected) {
    const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: run, exact: true }) });
    await expect(row.getByTestId("run-match").getByRole("link")).toHaveAttribute("href", `/runs/${encodeURIComponent(run)}?event=${seq}`);
    await expect(row.getByTestId("run-match")).toContainText(new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"));
  }
  // other runs may hold it too (the e2e suite uploads the example journals again under other ids)
  expect(await matches.count()).toBeGreaterThanOrEqual(expected.size);
  if (screenshot) {
    for (const [w, h] of [
      [1440, 900],
      [1024, 768],
    ] as const) {
      await resizeTo(page, w, h);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `${screenshot}-${w}x${h}.png`) });
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll, "the page scrolls horizontally").toBeLessThanOrEqual(client);
    }
  }

  // action 2: open the first listed run whose journal we read (other specs upload runs too,
  // and a newer one of theirs may be listed first)
  actions++;
  const hrefs = await matches.getByRole("link").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  const index = hrefs.findIndex((h) => expected.has(decodeURIComponent(/^\/runs\/([^?]+)\?/.exec(h)?.[1] ?? "")));
  expect(index, "a demo run is listed").toBeGreaterThanOrEqual(0);
  const first = matches.nth(index).getByRole("link");
  const href = (await first.getAttribute("href"))!;
  const [, run, seq] = /^\/runs\/([^?]+)\?event=(\d+)$/.exec(href)!;
  expect(expected.get(decodeURIComponent(run))).toBe(Number(seq));
  await first.click();
  await rp.ready();
  await rp.shows(Number(seq));
  await expect(page).toHaveURL(new RegExp(`/runs/${run}\\?event=${seq}\\b`));
  await expect(rp.panel()).toContainText(new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"));
  expect(actions).toBe(2);
}

test("a refund id typed in the runs list reaches the event that holds it in two actions", async ({ page, guard }) => {
  guard.allowNavigation("127.0.0.1");
  await reachByTyping(page, "rf_0002", "runs-search-rf_0002");
});

test("the customer's words typed in the runs list reach the event that holds them in two actions", async ({ page, guard }) => {
  guard.allowNavigation("127.0.0.1");
  await reachByTyping(page, "charged twice", "runs-search-charged-twice");
});

test("GET /api/runs?q= finds the same runs and events on SQLite and PostgreSQL, and takes hostile text literally", async ({ request }) => {
  for (const s of SERVERS) {
    for (const text of ["rf_0002", "charged twice", "A-2002"]) {
      const expected = holders(text);
      const res = await request.get(`${s.base}/api/runs?q=${encodeURIComponent(text)}&limit=500`);
      expect(res.status(), s.name).toBe(200);
      const body = (await res.json()) as { runs: Array<{ id: string; match?: { seq: number; snippet: string } }> };
      const found = new Map(body.runs.filter((r) => r.match).map((r) => [r.id, r.match!.seq]));
      // every demo run that holds it, at the event that holds it (other runs the suite uploaded may hold it too)
      for (const [run, seq] of expected) expect(found.get(run), `${s.name} ${text} ${run}`).toBe(seq);
    }
    for (const text of ["%", "_", '"', "*", "NEAR", "'", `"rf_0002" OR "x"`, "rf_000_", "rf*", "%rf%".repeat(40)]) {
      const res = await request.get(`${s.base}/api/runs?q=${encodeURIComponent(text)}`);
      expect(res.status(), `${s.name} ${text}`).toBe(200);
      const body = (await res.json()) as { runs: Array<{ match?: unknown }> };
      // none of these is in any demo event's text: nothing is found by content
      expect(
        body.runs.filter((r) => r.match),
        `${s.name} ${text}`,
      ).toEqual([]);
    }
    const long = await request.get(`${s.base}/api/runs?q=${"x".repeat(201)}`);
    expect(long.status(), s.name).toBe(400);
  }
});
