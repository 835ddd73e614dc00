/**
 * npm run bench:viewer — the run viewer against the production build, in Chromium, for
 * runs of 1,000, 10,000 and 100,000 events (scripts/bench-journal.ts, ingested through
 * POST /api/journals). For each it prints:
 *   first screen: navigation start → graph and timeline drawn (the page's data-ready);
 *     "cold" is the first load after ingest, the others are served the cached summary
 *   step (j): key press → the next event highlighted in the list
 *   payload: key press → the selected event's payload shown in the inspector
 *   far jump (End): key press → the last event's payload shown
 * Medians of the page loads (RUNS, default 4) after the cold one. Also saves docs/screenshots/runs-empty.png (before any run
 * is stored) and docs/screenshots/run-huge.png (the 100,000-event run).
 * Needs a build (`next build`); builds one if missing. Server: 127.0.0.1:3452, SQLite.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { generateJournal } from "./bench-journal";

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

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) spawnSync(path.resolve("node_modules/.bin/next"), ["build"], { stdio: "inherit" });
  fs.mkdirSync(SHOTS, { recursive: true });
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
      if (n === Math.max(...SIZES)) {
        await page.goto(`${BASE}/runs/${runId}?event=${Math.floor(n / 2) + 4}`);
        await page.locator('[data-testid="run-view"][data-ready="true"]').waitFor();
        await page.locator('[data-testid="inspector"][data-ready="true"]').waitFor();
        await page.screenshot({ path: path.join(SHOTS, "run-huge.png") });
      }
    }
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  console.log(
    `\nChromium headless, 1280×720, production build on SQLite; medians of ${RUNS} loads (first screen warm: of the ${RUNS - 1} after the cold one)`,
  );
  for (const r of rows) console.log(r);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
