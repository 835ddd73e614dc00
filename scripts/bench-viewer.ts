/**
 * npm run bench:viewer — the run viewer against the production build, in Chromium, for
 * runs of 1,000, 10,000 and 100,000 events (scripts/bench-journal.ts, ingested through
 * POST /api/journals). For each it prints:
 *   first screen: navigation start → graph and timeline drawn (the page's data-ready);
 *     "cold" is the first load after ingest, the others are served the cached summary
 *   step (j): key press → the next event highlighted in the list
 *   payload: key press → the selected event's payload shown in the inspector
 *   far jump (End): key press → the last event's payload shown
 * Medians of the page loads (RUNS, default 4) after the cold one. Then, on the 10,000-event
 * run's replay page: opening it, 40 scrubber jumps (input → frame shown and painted: median,
 * p95, max), a mouse drag across the whole range and the long tasks during it. Then a frame's
 * time with a 4 MB string in the inspector. Before the browser, in node: indexing a
 * 100,000-event summary and building and laying out the windowed graph around a selection.
 * Writes every figure to docs/benchmarks.json (section "viewer"). Also saves
 * docs/screenshots/runs-empty.png (before any run is stored) and docs/screenshots/run-huge.png
 * (the 100,000-event run).
 * Needs a build (`next build`); builds one if missing. Server: 127.0.0.1:3452, SQLite.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import {
  buildRunIndex,
  buildStepGraph,
  decodeSummary,
  encodeSummary,
  graphWindow,
  layoutSequence,
  summaryRowsFromEvents,
} from "../lib/graph";
import type { JournalEvent } from "../lib/journal/types";
import { hostileJournal } from "../e2e/fixtures/journals";
import { generateJournal } from "./bench-journal";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const PORT = Number(process.env.BENCH_VIEWER_PORT ?? 3452);
const BASE = `http://127.0.0.1:${PORT}`;
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 4);
const SHOTS = path.resolve("docs/screenshots");

function dbUrl(): string {
  const dir = path.resolve(".bench");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "viewer.db");
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  return `file:${file}`;
}

async function startServer(url: string): Promise<ChildProcess> {
  const m = spawnSync(process.execPath, ["scripts/retrace.mjs", "migrate"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (m.status !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  const child = spawn(path.resolve("node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(PORT)], {
    env: { ...process.env, DATABASE_URL: url, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill();
  throw new Error("server did not start");
}

async function ingest(n: number, runId: string) {
  const body = generateJournal(n, runId);
  let res: Response;
  try {
    res = await fetch(`${BASE}/api/journals`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
  } catch (e) {
    // a busy machine can drop a 45 MB upload's connection; ingest is idempotent, so send it again
    console.error(`upload of ${n} events failed (${String(e)}); retrying`);
    res = await fetch(`${BASE}/api/journals`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
  }
  const answer = (await res.json()) as { runs: { accepted: number; duplicates: number }[] };
  const stored = (answer.runs[0]?.accepted ?? 0) + (answer.runs[0]?.duplicates ?? 0);
  if (res.status >= 300 || stored !== n) throw new Error(`ingest of ${n} failed: HTTP ${res.status}`);
}

/** ms from navigation start until the run page says it is ready. */
async function firstScreen(page: Page, runId: string): Promise<number> {
  await page.goto(`${BASE}/runs/${runId}`, { waitUntil: "commit" });
  const h = await page.waitForFunction(
    () => (document.querySelector('[data-testid="run-view"][data-ready="true"]') ? performance.now() : null),
    null,
    { polling: "raf", timeout: 60_000 },
  );
  return (await h.jsonValue()) as number;
}

/**
 * Presses a key in the page and times, in the page, until `selector` matches (checked
 * every frame). Written as source text: tsx would wrap a function's inner names in a
 * helper that does not exist in the page.
 */
async function timeKey(page: Page, key: string, selector: string): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const t0 = performance.now();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: ${JSON.stringify(key)}, bubbles: true }));
    const tick = () => {
      if (document.querySelector(${JSON.stringify(selector)})) resolve(performance.now() - t0);
      else if (performance.now() - t0 > 30000) reject(new Error("timeout waiting for " + ${JSON.stringify(selector)}));
      else requestAnimationFrame(tick);
    };
    tick();
  })`);
}

const shown = (seq: number) => `[data-testid="inspector"][data-seq="${seq}"][data-ready="true"]`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => `${Math.round(ms).toLocaleString("en-US")} ms`.padStart(9);
const figures: BenchFigure[] = [];
const ms = (label: string, value: number) => figures.push({ label, value, unit: "ms" });

/** The graph's pure work for a 100,000-event run, in node: what the page does before it draws. */
function graphInNode() {
  const n = 100_000;
  const events = generateJournal(n, "big")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalEvent);
  const dto = JSON.parse(JSON.stringify(encodeSummary("big", summaryRowsFromEvents(events))));
  const t0 = performance.now();
  const index = buildRunIndex(decodeSummary(dto));
  const t1 = performance.now();
  const sel = index.rowOfSeq(54_321);
  const g = buildStepGraph(index, {
    collapsed: (id) => id !== index.summary.step[sel],
    window: graphWindow(index.items.length, index.itemOfRow[sel]),
  });
  const t2 = performance.now();
  layoutSequence(g);
  const t3 = performance.now();
  console.log(
    `graph, 100,000 events (node): decode + index ${fmt(t1 - t0)}, windowed graph ${fmt(t2 - t1)} (${g.nodes.length} nodes), sequence layout ${fmt(t3 - t2)}`,
  );
  ms("graph, 100,000 events (node): decode + index the summary", t1 - t0);
  ms("graph, 100,000 events (node): windowed graph around a selection", t2 - t1);
  ms("graph, 100,000 events (node): sequence layout of that window", t3 - t2);
}

/**
 * The replay page of a 10,000-event run: open, scrubber jumps timed in the page until the
 * frame is committed (a MutationObserver) and painted, then a mouse drag over the range.
 */
async function replayScrubber(page: Page, runId: string) {
  const t0 = performance.now();
  await page.goto(`${BASE}/runs/${runId}/replay`);
  await page.locator('[data-testid="replay-view"][data-ready="true"]').waitFor({ timeout: 60_000 });
  const openMs = performance.now() - t0;
  const targets = Array.from({ length: 40 }, (_v, i) => (i * 2477 + 613) % 10_000);
  const times = (await page.evaluate(`(async (list) => {
    const input = document.querySelector('input[aria-label="Scrub through frames"]');
    const out = [];
    for (const t of list) {
      const start = performance.now();
      input.value = String(t);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((resolve) => {
        const shown = () => {
          const p = document.querySelector('[data-testid="frame-panel"]');
          return p && p.getAttribute("data-frame") === String(t) && p.getAttribute("data-ready") === "true";
        };
        const done = () => requestAnimationFrame(() => setTimeout(resolve, 0));
        if (shown()) return done();
        const mo = new MutationObserver(() => {
          if (!shown()) return;
          mo.disconnect();
          done();
        });
        mo.observe(document.body, { subtree: true, attributes: true, childList: true, attributeFilter: ["data-frame", "data-ready"] });
      });
      out.push(performance.now() - start);
    }
    return out;
  })(${JSON.stringify(targets)})`)) as number[];
  const sorted = [...times].sort((a, b) => a - b);
  await page.evaluate(`(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push(e.duration))).observe({ type: "longtask", buffered: false });
  })()`);
  const slider = page.getByLabel("Scrub through frames");
  const box = (await slider.boundingBox())!;
  const y = box.y + box.height / 2;
  const dragStart = performance.now();
  await page.mouse.move(box.x + 8, y);
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) await page.mouse.move(box.x + 8 + ((box.width - 16) * i) / 60, y);
  await page.mouse.up();
  const last = await slider.inputValue();
  await page.locator(`[data-testid="frame-panel"][data-frame="${last}"][data-ready="true"]`).waitFor();
  const dragMs = performance.now() - dragStart;
  const longTasks = (await page.evaluate("window.__longTasks")) as number[];
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
  console.log(
    `replay, 10,000 events: open ${fmt(openMs)}   scrub to frame median ${fmt(p(0.5))}, p95 ${fmt(p(0.95))}, max ${fmt(sorted[sorted.length - 1])}   drag ${fmt(dragMs)}, ${longTasks.length} long tasks`,
  );
  ms("replay, 10,000 events: open the replay page", openMs);
  ms("replay, 10,000 events: scrub to a frame, median of 40", p(0.5));
  ms("replay, 10,000 events: scrub to a frame, p95 of 40", p(0.95));
  ms("replay, 10,000 events: scrub to a frame, max of 40", sorted[sorted.length - 1]);
  ms("replay, 10,000 events: drag across the whole range (60 moves)", dragMs);
  figures.push({ label: "replay, 10,000 events: long tasks during the drag", value: longTasks.length, unit: "tasks" });
  ms("replay, 10,000 events: longest task during the drag", Math.max(0, ...longTasks));
}

/** One frame's time with a 4 MB string shown in the inspector (the hostile-payloads journal). */
async function frameWithBigString(page: Page) {
  const runId = "bench-viewer-hostile";
  const body = hostileJournal(runId, 4 * 1024 * 1024)
    .map((e) => `${JSON.stringify(e)}\n`)
    .join("");
  const res = await fetch(`${BASE}/api/journals`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
  if (res.status >= 300) throw new Error(`ingest of the hostile journal failed: HTTP ${res.status}`);
  await page.goto(`${BASE}/runs/${runId}?event=7`);
  await page.locator(shown(7)).waitFor({ timeout: 60_000 });
  const frames: number[] = [];
  for (let i = 0; i < 5; i++)
    frames.push(
      (await page.evaluate(
        "new Promise((r) => { const t = performance.now(); requestAnimationFrame(() => r(performance.now() - t)); })",
      )) as number,
    );
  console.log(`a frame with a 4 MB string in the inspector: median ${fmt(median(frames))} of 5`);
  ms("a frame with a 4 MB string in the inspector, median of 5", median(frames));
}

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) spawnSync(path.resolve("node_modules/.bin/next"), ["build"], { stdio: "inherit" });
  fs.mkdirSync(SHOTS, { recursive: true });
  graphInNode();
  const server = await startServer(dbUrl());
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  const rows: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(BASE);
    await page.getByRole("heading", { name: "No runs yet" }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, "runs-empty.png") });

    for (const n of SIZES) {
      const runId = `bench-viewer-${n}`;
      const t0 = performance.now();
      await ingest(n, runId);
      const ingestMs = performance.now() - t0;
      const first: number[] = [];
      const step: number[] = [];
      const payload: number[] = [];
      const far: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        first.push(await firstScreen(page, runId));
        // j: the highlight moves at once; the payload follows
        await page.locator(shown(0)).waitFor();
        step.push(await timeKey(page, "j", '#ev-1[aria-selected="true"]'));
        await page.locator(shown(1)).waitFor();
        payload.push(await timeKey(page, "j", shown(2)));
        far.push(await timeKey(page, "End", shown(n - 1)));
      }
      const warm = first.slice(1);
      rows.push(
        `${n.toLocaleString("en-US").padStart(8)} events  ingest ${fmt(ingestMs)}   first screen cold ${fmt(first[0])}, warm ${fmt(median(warm))}   step (j) ${fmt(median(step))}   payload ${fmt(median(payload))}   far jump (End) ${fmt(median(far))}`,
      );
      console.log(rows[rows.length - 1]);
      const of = `run page, ${n.toLocaleString("en-US")} events`;
      ms(`${of}: ingest (POST /api/journals)`, ingestMs);
      ms(`${of}: first screen, cold`, first[0]);
      ms(`${of}: first screen, warm (median)`, median(warm));
      ms(`${of}: step (j) to the next event highlighted`, median(step));
      ms(`${of}: step (j) to its payload shown`, median(payload));
      ms(`${of}: far jump (End) to the last payload shown`, median(far));
      if (n === 10_000) await replayScrubber(page, runId);
      if (n === Math.max(...SIZES)) {
        await page.goto(`${BASE}/runs/${runId}?event=${Math.floor(n / 2) + 4}`);
        await page.locator('[data-testid="run-view"][data-ready="true"]').waitFor();
        await page.locator('[data-testid="inspector"][data-ready="true"]').waitFor();
        await page.screenshot({ path: path.join(SHOTS, "run-huge.png") });
      }
    }
    await frameWithBigString(page);
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  console.log(
    `\nChromium headless, 1280×720, production build on SQLite; medians of ${RUNS} loads (first screen warm: of the ${RUNS - 1} after the cold one)`,
  );
  for (const r of rows) console.log(r);
  writeBenchSection("viewer", {
    title: "Run viewer and replay page (Chromium, production build, SQLite)",
    command: `${["BENCH_SIZES", "BENCH_RUNS"]
      .filter((k) => process.env[k])
      .map((k) => `${k}=${process.env[k]} `)
      .join("")}npm run bench:viewer`,
    figures,
    notes: [
      `Chromium headless, 1280×720. Medians of ${RUNS} page loads (first screen warm: of the ${RUNS - 1} after the cold one). Generated journals (scripts/bench-journal.ts).`,
    ],
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
