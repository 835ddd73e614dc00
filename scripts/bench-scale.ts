/**
 * npm run bench:scale — one run of 10,000, 100,000 and 1,000,000 events (the generator in
 * scripts/bench-journal.ts; BENCH_SCALE_SIZES to change), each:
 *   imported by the CLI into SQLite and into PostgreSQL: events/s and the import process's
 *     peak RSS (/usr/bin/time);
 *   in Chromium against the production build (SQLite): the run page's first screen, a step
 *     (j) to the next payload, a jump to the end (End) to the last payload; the replay
 *     page's first frame (navigation → the first frame's payload shown) and its fully
 *     folded time (→ the page's ready signal); the same replay with a what-if fork at the
 *     middle of the run, fully folded; the renderer's peak memory of each page, in a tab
 *     of its own (VmHWM of the tab's renderer process, found through CDP
 *     SystemInfo.getProcessInfo); the analyzer's state after the import (its stored snapshot).
 * Every figure is printed, and as a ratio to the 10,000-event run measured in the same run;
 * the issue's floors are printed beside the ratios they bound. A page that crashes or does
 * not get there in 10 minutes is recorded as such, not skipped. Writes docs/benchmarks.json
 * (section "scale"). Needs a build (`next build`; made if missing) and PostgreSQL on
 * 127.0.0.1:5432 (TEST_PG_BASE).
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import pg from "pg";
import { generateJournal } from "./bench-journal";
import { writeBenchSection, writeReadmeTable, type BenchFigure } from "./bench-report";
import { peakRssMB, postFile, startServer } from "./bench-server";

const PORT = Number(process.env.BENCH_SCALE_PORT ?? 3462);
const BASE = `http://127.0.0.1:${PORT}`;
const SIZES = (process.env.BENCH_SCALE_SIZES ?? "10000,100000,1000000").split(",").map(Number);
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";
const PG_DB = "retrace_bench_scale";
const DIR = path.resolve(".bench");
const SQLITE = `file:${path.join(DIR, "scale.db")}`;
const HTTP_SQLITE = `file:${path.join(DIR, "scale-http.db")}`;
const PG_HTTP_DB = "retrace_bench_scale_http";
const PAGE_TIMEOUT = 600_000;

const figures: BenchFigure[] = [];
const fmt = (v: number, unit: string) => `${Math.round(v).toLocaleString("en-US")} ${unit}`;

function freshSqlite(url = SQLITE) {
  const file = url.slice("file:".length);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

async function freshPostgres(name = PG_DB): Promise<string> {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return `${PG_BASE}/${name}`;
}

/**
 * The journal POSTed whole to a server started on a fresh database of its own (migrated,
 * empty): events/s, and the server processes' peak RSS over the upload.
 */
async function httpImport(url: string, file: string, n: number): Promise<{ ms: number; rssMB: number }> {
  if (url.startsWith("file:")) freshSqlite(url);
  migrate(url);
  const server = await startServer(url, PORT + 1);
  try {
    const t0 = performance.now();
    const { status, body } = await postFile<{ runs?: Array<{ accepted: number }> }>(PORT + 1, "/api/journals", file);
    const ms = performance.now() - t0;
    const accepted = body.runs?.reduce((a, r) => a + r.accepted, 0) ?? 0;
    if (status !== 200 && status !== 201) throw new Error(`POST /api/journals answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
    if (accepted !== n) throw new Error(`POST /api/journals accepted ${accepted} of ${n} events`);
    return { ms, rssMB: peakRssMB(server.pid!) };
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
}

function migrate(url: string) {
  const m = spawnSync(process.execPath, ["scripts/retrace.mjs", "migrate"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (m.status !== 0) throw new Error(`migrate failed: ${m.stderr}`);
}

/** The CLI import of one file: wall time and the process's peak RSS (KiB from GNU time). */
function cliImport(url: string, file: string): { ms: number; rssMB: number } {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "maxrss_kb=%M", process.execPath, "scripts/retrace.mjs", "import", "--json", file], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const kb = /maxrss_kb=(\d+)/.exec(r.stderr)?.[1];
  if (r.status !== 0 || kb === undefined) throw new Error(`import of ${file} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { ms, rssMB: Number(kb) / 1024 };
}

/** Peak resident memory (MB) of the browser's renderer processes, read from /proc. */
async function rendererPeakMB(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  const info = (await cdp.send("SystemInfo.getProcessInfo")) as { processInfo: Array<{ type: string; id: number }> };
  await cdp.detach();
  let peak = 0;
  for (const p of info.processInfo) {
    if (p.type !== "renderer") continue;
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p.id}/status`, "utf8"))?.[1];
      if (kb) peak = Math.max(peak, Number(kb) / 1024);
    } catch {
      /* the process ended */
    }
  }
  return peak;
}

/** ms from navigation start until `selector` matches, or null when the tab crashed or timed out. */
async function timeTo(page: Page, url: string, selector: string, first?: string): Promise<{ first: number | null; done: number | null }> {
  let crashed = false;
  page.once("crash", () => (crashed = true));
  try {
    await page.goto(url, { waitUntil: "commit" });
    const when = async (sel: string) =>
      (await (
        await page.waitForFunction((q) => (document.querySelector(q) ? performance.now() : null), sel, {
          polling: "raf",
          timeout: PAGE_TIMEOUT,
        })
      ).jsonValue()) as number;
    const a = first ? await when(first) : null;
    return { first: a, done: await when(selector) };
  } catch (e) {
    console.error(`${url}: ${crashed ? "the tab crashed" : String(e).split("\n")[0]}`);
    return { first: null, done: null };
  }
}

/** Presses a key and times, in the page, until `selector` matches. */
async function timeKey(page: Page, key: string, selector: string): Promise<number | null> {
  try {
    return (await page.evaluate(`new Promise((resolve, reject) => {
      const t0 = performance.now();
      window.dispatchEvent(new KeyboardEvent("keydown", { key: ${JSON.stringify(key)}, bubbles: true }));
      const tick = () => {
        if (document.querySelector(${JSON.stringify(selector)})) resolve(performance.now() - t0);
        else if (performance.now() - t0 > 120000) reject(new Error("timeout"));
        else requestAnimationFrame(tick);
      };
      tick();
    })`)) as number;
  } catch {
    return null;
  }
}

const shown = (seq: number) => `[data-testid="inspector"][data-seq="${seq}"][data-ready="true"]`;

interface SizeFigures {
  [label: string]: { value: number | null; unit: string };
}

async function measureBrowser(n: number, runId: string): Promise<SizeFigures> {
  const out: SizeFigures = {};
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    // at seq 0, not the worst finding a run opens at, so the step and the jump are the same everywhere
    const run = await timeTo(page, `${BASE}/runs/${runId}?event=0`, '[data-testid="run-view"][data-ready="true"]');
    out["run page: first screen"] = { value: run.done, unit: "ms" };
    const atStart =
      run.done !== null &&
      (await page
        .locator(shown(0))
        .waitFor({ timeout: PAGE_TIMEOUT })
        .then(
          () => true,
          () => false,
        ));
    if (atStart) {
      out["run page: step (j) to the next payload"] = { value: await timeKey(page, "j", shown(1)), unit: "ms" };
      out["run page: jump (End) to the last payload"] = { value: await timeKey(page, "End", shown(n - 1)), unit: "ms" };
    }
    out["run page: renderer peak memory"] = { value: await rendererPeakMB(browser), unit: "MB" };
    await page.close();
    // a new tab (a new renderer) for the replay page, so its peak is its own
    const replayTab = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const rp = await timeTo(
      replayTab,
      `${BASE}/runs/${runId}/replay`,
      '[data-testid="replay-view"][data-ready="true"]',
      '[data-testid="frame-panel"][data-ready="true"]',
    );
    out["replay page: first frame"] = { value: rp.first, unit: "ms" };
    out["replay page: fully folded"] = { value: rp.done, unit: "ms" };
    out["replay page: renderer peak memory"] = { value: await rendererPeakMB(browser), unit: "MB" };
    await replayTab.close();
    // a what-if at the middle of the run (a tool result turned into an error): the reconstruct
    // streams, then the fork's plan and its whole fold, in a tab of its own
    const forkTab = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const forkSeq = Math.floor(n / 16) * 8 + 5; // a tool.result (scripts/bench-journal.ts: seq % 8 == 5)
    const override = encodeURIComponent(JSON.stringify({ toolResult: { status: "error" } }));
    const fk = await timeTo(
      forkTab,
      `${BASE}/runs/${runId}/replay?fork=${forkSeq}&override=${override}`,
      '[data-testid="replay-view"][data-ready="true"][data-mode="fork"]',
    );
    out["replay page, fork at the middle: fully folded"] = { value: fk.done, unit: "ms" };
    out["replay page, fork at the middle: renderer peak memory"] = { value: await rendererPeakMB(browser), unit: "MB" };
  } finally {
    await browser.close();
  }
  return out;
}

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) spawnSync(path.resolve("node_modules/.bin/next"), ["build"], { stdio: "inherit" });
  fs.mkdirSync(DIR, { recursive: true });
  freshSqlite();
  migrate(SQLITE);
  const pgUrl = await freshPostgres();
  migrate(pgUrl);
  const bySize = new Map<number, SizeFigures>();
  for (const n of SIZES) {
    const runId = `bench-scale-${n}`;
    const file = path.join(DIR, `scale-${n}.jsonl`);
    fs.writeFileSync(file, generateJournal(n, runId));
    const f: SizeFigures = {};
    for (const [db, url] of [
      ["SQLite", SQLITE],
      ["PostgreSQL", pgUrl],
    ] as const) {
      const r = cliImport(url, file);
      f[`CLI import into ${db}: events/s`] = { value: n / (r.ms / 1000), unit: "events/s" };
      f[`CLI import into ${db}: peak RSS`] = { value: r.rssMB, unit: "MB" };
      console.log(
        `${n.toLocaleString("en-US")} events, CLI import into ${db}: ${fmt(n / (r.ms / 1000), "events/s")}, peak RSS ${fmt(r.rssMB, "MB")}`,
      );
    }
    for (const [db, url] of [
      ["SQLite", HTTP_SQLITE],
      ["PostgreSQL", await freshPostgres(PG_HTTP_DB)],
    ] as const) {
      const r = await httpImport(url, file, n);
      f[`HTTP import (POST /api/journals) into ${db}: events/s`] = { value: n / (r.ms / 1000), unit: "events/s" };
      f[`HTTP import (POST /api/journals) into ${db}: server peak RSS`] = { value: r.rssMB, unit: "MB" };
      console.log(
        `${n.toLocaleString("en-US")} events, HTTP import into ${db}: ${fmt(n / (r.ms / 1000), "events/s")}, server peak RSS ${fmt(r.rssMB, "MB")}`,
      );
    }
    fs.rmSync(file, { force: true });
    // what the analyzer carries from event to event (and from request to request): its
    // state, as the snapshot stored with the run once the import ends
    const db = new Database(SQLITE.slice("file:".length), { readonly: true });
    const snap = db.prepare("SELECT length(analysis) AS n FROM Run WHERE id = ?").get(runId) as { n: number | null } | undefined;
    db.close();
    f["analyzer state after the import (stored snapshot)"] = { value: (snap?.n ?? 0) / 1024, unit: "KB" };
    console.log(`${n.toLocaleString("en-US")} events, analyzer state: ${fmt((snap?.n ?? 0) / 1024, "KB")}`);
    bySize.set(n, f);
  }
  const server = await startServer(SQLITE, PORT);
  try {
    for (const n of SIZES) {
      const f = await measureBrowser(n, `bench-scale-${n}`);
      Object.assign(bySize.get(n)!, f);
      for (const [label, v] of Object.entries(f))
        console.log(`${n.toLocaleString("en-US")} events, ${label}: ${v.value === null ? "did not get there" : fmt(v.value, v.unit)}`);
    }
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }

  // every figure, and its ratio to the smallest run's (10,000 events by default)
  const smallest = Math.min(...SIZES);
  const base = bySize.get(smallest)!;
  for (const n of SIZES) {
    for (const [label, v] of Object.entries(bySize.get(n)!)) {
      const b = base[label]?.value;
      figures.push({
        label: `${n.toLocaleString("en-US")} events: ${label}${v.value === null ? " (crashed or timed out: recorded as -1)" : ""}`,
        value: v.value === null ? -1 : Math.round(v.value * 10) / 10,
        unit: v.unit,
        ...(n !== smallest && b != null && v.value !== null
          ? { baseline: { label: `${smallest.toLocaleString("en-US")} events`, value: b } }
          : {}),
      });
    }
  }
  // the issue's floors, beside the figure each bounds
  const get = (n: number, label: string) => bySize.get(n)?.[label]?.value ?? null;
  const floors: Array<[string, number | null, number, string]> = [
    [
      "1,000,000-event run page first screen / 10,000-event",
      ratio(get(1_000_000, "run page: first screen"), get(10_000, "run page: first screen")),
      3,
      "x",
    ],
    [
      "100,000-event replay first frame / 10,000-event",
      ratio(get(100_000, "replay page: first frame"), get(10_000, "replay page: first frame")),
      2,
      "x",
    ],
    ["100,000-event replay renderer peak", get(100_000, "replay page: renderer peak memory"), 500, "MB"],
    [
      "1,000,000-event replay with a fork, renderer peak (folded completely)",
      get(1_000_000, "replay page, fork at the middle: fully folded") === null
        ? null
        : get(1_000_000, "replay page, fork at the middle: renderer peak memory"),
      1024,
      "MB",
    ],
    [
      "1,000,000-event replay renderer peak (folded completely)",
      get(1_000_000, "replay page: fully folded") === null ? null : get(1_000_000, "replay page: renderer peak memory"),
      1024,
      "MB",
    ],
    ["1,000,000-event CLI import peak RSS, SQLite", get(1_000_000, "CLI import into SQLite: peak RSS"), 1024, "MB"],
    ["1,000,000-event CLI import peak RSS, PostgreSQL", get(1_000_000, "CLI import into PostgreSQL: peak RSS"), 1024, "MB"],
    [
      "1,000,000-event HTTP import, server peak RSS, SQLite",
      get(1_000_000, "HTTP import (POST /api/journals) into SQLite: server peak RSS"),
      1024,
      "MB",
    ],
    [
      "1,000,000-event HTTP import, server peak RSS, PostgreSQL",
      get(1_000_000, "HTTP import (POST /api/journals) into PostgreSQL: server peak RSS"),
      1024,
      "MB",
    ],
  ];
  const notes: string[] = [];
  for (const [label, value, floor, unit] of floors) {
    const line = `${label}: ${value === null ? "not measured (crashed, timed out or size not run)" : `${Math.round(value * 100) / 100} ${unit}`} (floor: at most ${floor} ${unit}${value === null ? "" : value <= floor ? ", met" : ", NOT met"})`;
    console.log(line);
    notes.push(line);
  }
  writeReadmeTable("bench:scale", readmeTable(bySize, floors));
  writeBenchSection("scale", {
    title: "Scale: runs of 10,000 to 1,000,000 events (CLI import, run page, replay page)",
    command: `${process.env.BENCH_SCALE_SIZES ? `BENCH_SCALE_SIZES=${process.env.BENCH_SCALE_SIZES} ` : ""}npm run bench:scale`,
    figures,
    notes: [
      "Chromium headless at 1440×900 against the production build on SQLite; one load of each page. Ratios are to the smallest run, measured in the same run.",
      ...notes,
    ],
  });
}

/** The README's scale table: each figure per size with its ratio to the smallest, then the floors. */
function readmeTable(bySize: Map<number, SizeFigures>, floors: Array<[string, number | null, number, string]>): string {
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  const smallest = sizes[0];
  const labels = [...new Set(sizes.flatMap((n) => Object.keys(bySize.get(n)!)))];
  const cell = (n: number, label: string) => {
    const v = bySize.get(n)?.[label];
    if (!v) return "";
    if (v.value === null) return "did not get there";
    const b = bySize.get(smallest)?.[label]?.value;
    const r = n !== smallest && b ? ` (${(v.value / b).toFixed(2)}×)` : "";
    return `${Math.round(v.value).toLocaleString("en-US")} ${v.unit}${r}`;
  };
  const lines = [
    `\`npm run bench:scale\`, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; ratios to the ${smallest.toLocaleString("en-US")}-event run of the same run (all figures: [docs/benchmarks.md](docs/benchmarks.md#scale-runs-of-10000-to-1000000-events-cli-import-run-page-replay-page)).`,
    "",
    `| figure | ${sizes.map((n) => `${n.toLocaleString("en-US")} events`).join(" | ")} |`,
    `|---|${sizes.map(() => "---:").join("|")}|`,
    ...labels.map((l) => `| ${l} | ${sizes.map((n) => cell(n, l)).join(" | ")} |`),
    "",
    "| bound (issue 19: its floors; the same bounds for the HTTP import and a fork) | measured | limit | |",
    "|---|---:|---:|---|",
    ...floors.map(
      ([label, value, floor, unit]) =>
        `| ${label} | ${value === null ? "not measured" : `${Math.round(value * 100) / 100} ${unit}`} | ${floor} ${unit} | ${value === null ? "" : value <= floor ? "met" : "**not met**"} |`,
    ),
  ];
  return lines.join("\n");
}

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
