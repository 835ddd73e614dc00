/**
 * `npm run bench:load`: concurrent clients against a production server (`next start` of
 * this checkout's build), on SQLite and on PostgreSQL. Each client loops for the duration,
 * mixing runs-list reads, run reads (detail + summary) and live appends to its own run;
 * prints requests/s, p50/p99 per kind, errors, and events lost (appended and acknowledged
 * but not stored, or stored twice), then records the figures in docs/benchmarks.
 *
 * BENCH_LOAD_CLIENTS (20), BENCH_LOAD_SECONDS (30), BENCH_LOAD_BATCH (events per append, 5).
 *
 * Then the gap-filling client: a run of BENCH_LOAD_GAP_EVENTS (200,000) events uploaded with
 * BENCH_LOAD_GAP_FILLS (20) seqs missing near its start; one-event appends alternate between
 * the end of the run (in order) and a missing seq (a gap filled late), and the ratio of their
 * medians is printed (floor: 3×), with the first read after them (which settles the run).
 * Then BENCH_LOAD_SHUFFLED_EVENTS (20,000) events of a new run are appended one a request
 * by the 20 clients in a shuffled order: events/s until the run is complete. On SQLite the
 * WAL's size is sampled throughout: its peak is printed beside the database's size.
 * BENCH_LOAD_SECTION (load) names the section written (a measurement of older code).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { generateJournal } from "./bench-journal";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const CLIENTS = Number(process.env.BENCH_LOAD_CLIENTS ?? 20);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const BATCH = Number(process.env.BENCH_LOAD_BATCH ?? 5);
const PORT = Number(process.env.BENCH_LOAD_PORT ?? 3190);
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";
const CLI = path.resolve("scripts/retrace.mjs");
const BASE = `http://127.0.0.1:${PORT}`;
const SEED_RUNS = 10;
const GAP_EVENTS = Number(process.env.BENCH_LOAD_GAP_EVENTS ?? 200_000);
const GAP_FILLS = Number(process.env.BENCH_LOAD_GAP_FILLS ?? 20);
const SHUFFLED_EVENTS = Number(process.env.BENCH_LOAD_SHUFFLED_EVENTS ?? 20_000);
const SECTION = process.env.BENCH_LOAD_SECTION ?? "load";
const TS = "2026-11-07T11:00:00.000Z";

type Kind = "list" | "read" | "append";
const KINDS: Kind[] = ["list", "read", "append"];

interface Tally {
  latencies: Record<Kind, number[]>;
  errors: Record<Kind, number>;
  firstErrors: string[];
  /** per live run: events acknowledged as accepted */
  acknowledged: Map<string, number>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function startServer(databaseUrl: string): Promise<ChildProcess> {
  const migrated = spawnSync(process.execPath, [CLI, "migrate"], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const server = spawn(path.resolve("node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(PORT)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  server.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`next start exited (${server.exitCode}):\n${stderr}`);
    const ok = await fetch(`${BASE}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return server;
    if (i > 600) throw new Error(`next start did not answer:\n${stderr}`);
    await sleep(100);
  }
}

async function stopServer(server: ChildProcess): Promise<void> {
  server.kill("SIGTERM");
  await new Promise((r) => (server.exitCode !== null ? r(null) : server.once("exit", r)));
}

const line = (run: string, seq: number) =>
  JSON.stringify(
    seq === 0
      ? { run, seq, ts: TS, type: "run.start", data: {} }
      : { run, seq, ts: TS, type: "note", data: { text: `progress note ${seq} of a live run` } },
  );

async function client(id: number, until: number, tally: Tally): Promise<void> {
  const run = `load-live-${id}`;
  let seq = 0;
  let turn = id;
  while (Date.now() < until) {
    const kind = KINDS[turn++ % KINDS.length];
    const t0 = performance.now();
    try {
      let res: Response;
      if (kind === "list") {
        res = await fetch(`${BASE}/api/runs?limit=50&sort=-updated`);
        await res.arrayBuffer();
      } else if (kind === "read") {
        const which = `load-seed-${turn % SEED_RUNS}`;
        const detail = await fetch(`${BASE}/api/runs/${which}`);
        await detail.arrayBuffer();
        res = detail.ok ? await fetch(`${BASE}/api/runs/${which}/summary`) : detail;
        await res.arrayBuffer();
      } else {
        const body = Array.from({ length: BATCH }, (_, i) => line(run, seq + i)).join("\n") + "\n";
        res = await fetch(`${BASE}/api/runs/${run}/events`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
        const answer = (await res.json()) as { accepted?: number };
        if (res.ok) {
          tally.acknowledged.set(run, (tally.acknowledged.get(run) ?? 0) + (answer.accepted ?? 0));
          seq += BATCH;
        }
      }
      if (!res.ok) {
        tally.errors[kind]++;
        if (tally.firstErrors.length < 5) tally.firstErrors.push(`${kind}: HTTP ${res.status}`);
      }
    } catch (e) {
      tally.errors[kind]++;
      if (tally.firstErrors.length < 5) tally.firstErrors.push(`${kind}: ${e instanceof Error ? e.message : String(e)}`);
    }
    tally.latencies[kind].push(performance.now() - t0);
  }
}

const append = (run: string, text: string) =>
  fetch(`${BASE}/api/runs/${run}/events`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: text });

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** The largest size the file reached, sampled every 20 ms until stopped. */
function sampleSize(file: string | null): { stop: () => number } {
  let peak = 0;
  const look = () => {
    if (file === null) return;
    try {
      peak = Math.max(peak, fs.statSync(file).size);
    } catch {
      // not there (yet, or emptied)
    }
  };
  const timer = setInterval(look, 20);
  return {
    stop: () => {
      clearInterval(timer);
      look();
      return peak;
    },
  };
}

/**
 * The gap-filling client: one-event appends to a GAP_EVENTS-event run, alternately at its
 * end and into one of GAP_FILLS seqs missing near its start (each fill is followed by
 * nearly the whole run), and the first read after them.
 */
async function gapClient() {
  const run = "load-gap";
  const holes = Array.from({ length: GAP_FILLS }, (_, i) => 100 * (i + 1));
  const missing = new Set(holes);
  const lines: string[] = [];
  for (let seq = 0; seq < GAP_EVENTS; seq++) if (!missing.has(seq)) lines.push(line(run, seq));
  const seeded = await fetch(`${BASE}/api/journals`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: lines.join("\n") + "\n",
  });
  if (seeded.status !== 201) throw new Error(`seeding the gap run answered ${seeded.status}: ${await seeded.text()}`);
  const inOrder: number[] = [];
  const fills: number[] = [];
  let next = GAP_EVENTS;
  const timed = async (seq: number) => {
    const t0 = performance.now();
    const res = await append(run, line(run, seq) + "\n");
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`append of seq ${seq} answered ${res.status}`);
    return performance.now() - t0;
  };
  // two warm-up appends at the end: the route's code loaded, the run's row cached
  for (let i = 0; i < 2; i++) await timed(next++);
  for (const hole of holes) {
    inOrder.push(await timed(next++));
    fills.push(await timed(hole));
  }
  const t0 = performance.now();
  const read = await fetch(`${BASE}/api/runs/${run}`);
  const detail = (await read.json()) as { eventCount: number; nextSeq: number; chainStatus: string };
  const firstRead = performance.now() - t0;
  if (detail.eventCount !== next || detail.nextSeq !== next)
    throw new Error(`gap run: ${detail.eventCount} events, next seq ${detail.nextSeq}, expected ${next}`);
  return {
    inOrder: median(inOrder),
    fill: median(fills),
    fillP99: percentile(
      [...fills].sort((a, b) => a - b),
      99,
    ),
    firstRead,
  };
}

/** SHUFFLED_EVENTS events of one new run appended one a request by CLIENTS clients in a shuffled order. */
async function shuffledClients() {
  const run = "load-shuffled";
  const order = Array.from({ length: SHUFFLED_EVENTS }, (_, i) => i);
  let x = 0x2545f491;
  for (let i = order.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  let taken = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (taken < order.length) {
        const seq = order[taken++];
        const res = await append(run, line(run, seq) + "\n");
        await res.arrayBuffer();
        if (!res.ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const detail = (await (await fetch(`${BASE}/api/runs/${run}`)).json()) as { eventCount: number; nextSeq: number };
  const complete = detail.eventCount === SHUFFLED_EVENTS && detail.nextSeq === SHUFFLED_EVENTS;
  return { eventsPerSecond: SHUFFLED_EVENTS / seconds, errors, complete };
}

async function measure(dialect: "sqlite" | "postgres") {
  let databaseUrl: string;
  if (dialect === "sqlite") {
    fs.mkdirSync(".bench", { recursive: true });
    const file = path.resolve(".bench/load.db");
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    databaseUrl = `file:${file}`;
  } else {
    // one database per port: benches of two checkouts on one machine do not drop each other's
    const name = `retrace_bench_load_${PORT}`;
    spawnSync("psql", [`${PG_BASE}/postgres`, "-qc", `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`], { stdio: "ignore" });
    databaseUrl = `${PG_BASE}/${name}`;
  }
  const server = await startServer(databaseUrl);
  const dbFile = dialect === "sqlite" ? path.resolve(".bench/load.db") : null;
  const wal = sampleSize(dbFile && `${dbFile}-wal`);
  try {
    for (let i = 0; i < SEED_RUNS; i++) {
      const res = await fetch(`${BASE}/api/journals`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: generateJournal(2000, `load-seed-${i}`),
      });
      if (res.status !== 201) throw new Error(`seeding answered ${res.status}: ${await res.text()}`);
    }
    // warm: every route's code loaded and the caches filled, as on a server that has been up a while
    await fetch(`${BASE}/api/runs?limit=50`).then((r) => r.arrayBuffer());
    for (let i = 0; i < SEED_RUNS; i++) await fetch(`${BASE}/api/runs/load-seed-${i}/summary`).then((r) => r.arrayBuffer());
    const tally: Tally = {
      latencies: { list: [], read: [], append: [] },
      errors: { list: 0, read: 0, append: 0 },
      firstErrors: [],
      acknowledged: new Map(),
    };
    const t0 = performance.now();
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, until, tally)));
    const elapsed = Math.max(1e-3, (performance.now() - t0) / 1000);
    // events lost: acknowledged but not stored (or stored more than once)
    let lost = 0;
    for (const [run, acknowledged] of tally.acknowledged) {
      const res = await fetch(`${BASE}/api/runs/${run}`);
      const stored = res.ok ? ((await res.json()) as { eventCount: number }).eventCount : 0;
      lost += Math.abs(acknowledged - stored);
    }
    const requests = KINDS.reduce((n, k) => n + tally.latencies[k].length, 0);
    const errors = KINDS.reduce((n, k) => n + tally.errors[k], 0);
    const stats = Object.fromEntries(
      KINDS.map((k) => {
        const s = [...tally.latencies[k]].sort((a, b) => a - b);
        return [k, { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99) }];
      }),
    ) as Record<Kind, { n: number; p50: number; p99: number }>;
    const gap = GAP_FILLS > 0 ? await gapClient() : null;
    const shuffled = SHUFFLED_EVENTS > 0 ? await shuffledClients() : null;
    const walPeak = wal.stop();
    const dbSize = dbFile ? fs.statSync(dbFile).size : null;
    return {
      dialect,
      requests,
      rps: requests / elapsed,
      errors,
      lost,
      stats,
      firstErrors: tally.firstErrors,
      gap,
      shuffled,
      walPeak,
      dbSize,
    };
  } finally {
    wal.stop();
    await stopServer(server);
  }
}

async function main() {
  if (!fs.existsSync(path.resolve(".next/BUILD_ID"))) throw new Error("build first: node_modules/.bin/next build");
  spawnSync(process.execPath, [CLI, "--help"], { stdio: "ignore" });
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  for (const dialect of ["sqlite", "postgres"] as const) {
    const r = await measure(dialect);
    console.log(
      `\n${dialect}: ${r.requests} requests in ${SECONDS} s, ${r.rps.toFixed(1)} requests/s, ${r.errors} errors, ${r.lost} events lost`,
    );
    for (const k of KINDS)
      console.log(`  ${k.padEnd(7)} n=${r.stats[k].n}  p50 ${r.stats[k].p50.toFixed(1)} ms  p99 ${r.stats[k].p99.toFixed(1)} ms`);
    if (r.firstErrors.length) console.log(`  first errors: ${r.firstErrors.join("; ")}`);
    figures.push({ label: `${dialect}: requests/s (${CLIENTS} clients, ${SECONDS} s)`, value: r.rps, unit: "requests/s" });
    for (const k of KINDS) {
      figures.push({ label: `${dialect}: ${k} p50`, value: r.stats[k].p50, unit: "ms" });
      figures.push({
        label: `${dialect}: ${k} p99`,
        value: r.stats[k].p99,
        unit: "ms",
        ...(k === "append" ? { baseline: { label: "aim: 250 ms", value: 250 } } : {}),
      });
    }
    if (r.gap) {
      const ratio = r.gap.fill / r.gap.inOrder;
      console.log(
        `  gap client (${GAP_EVENTS} events, ${GAP_FILLS} fills): in-order append p50 ${r.gap.inOrder.toFixed(1)} ms, gap-filling append p50 ${r.gap.fill.toFixed(1)} ms (p99 ${r.gap.fillP99.toFixed(1)}), ratio ${ratio.toFixed(2)}×; first read after ${r.gap.firstRead.toFixed(1)} ms`,
      );
      figures.push({
        label: `${dialect}: one-event append in order, ${GAP_EVENTS.toLocaleString("en")}-event run, p50`,
        value: r.gap.inOrder,
        unit: "ms",
      });
      figures.push({
        label: `${dialect}: one-event append filling a gap, ${GAP_EVENTS.toLocaleString("en")}-event run, p50`,
        value: r.gap.fill,
        unit: "ms",
        baseline: { label: "floor: 3× in order", value: 3 * r.gap.inOrder },
      });
      figures.push({
        label: `${dialect}: gap-filling append ÷ in-order append`,
        value: ratio,
        unit: "×",
        baseline: { label: "floor: 3", value: 3 },
      });
      figures.push({ label: `${dialect}: first run read after the fills (settles the run)`, value: r.gap.firstRead, unit: "ms" });
      if (ratio > 3) notes.push(`${dialect}: a gap-filling append cost ${ratio.toFixed(1)}× an in-order one (floor 3×)`);
    }
    if (r.shuffled) {
      console.log(
        `  ${CLIENTS} shuffled clients, ${SHUFFLED_EVENTS} events one a request: ${r.shuffled.eventsPerSecond.toFixed(1)} events/s, ${r.shuffled.errors} errors, ${r.shuffled.complete ? "complete" : "INCOMPLETE"}`,
      );
      figures.push({
        label: `${dialect}: ${CLIENTS} shuffled clients, ${SHUFFLED_EVENTS.toLocaleString("en")} events`,
        value: r.shuffled.eventsPerSecond,
        unit: "events/s",
      });
      if (!r.shuffled.complete || r.shuffled.errors > 0)
        notes.push(`${dialect}: shuffled clients: ${r.shuffled.errors} errors, complete: ${r.shuffled.complete}`);
    }
    if (r.dbSize !== null) {
      const mb = (b: number) => b / 1e6;
      console.log(`  WAL peak ${mb(r.walPeak).toFixed(1)} MB beside a ${mb(r.dbSize).toFixed(1)} MB database`);
      figures.push({
        label: `${dialect}: WAL peak size`,
        value: mb(r.walPeak),
        unit: "MB",
        baseline: { label: "database size", value: mb(r.dbSize) },
      });
    }
    figures.push({ label: `${dialect}: errors`, value: r.errors, unit: "requests", baseline: { label: "floor: 0", value: 0 } });
    figures.push({ label: `${dialect}: events lost`, value: r.lost, unit: "events", baseline: { label: "floor: 0", value: 0 } });
    if (r.errors > 0 || r.lost > 0) notes.push(`${dialect}: ${r.errors} errors, ${r.lost} events lost (${r.firstErrors.join("; ")})`);
  }
  writeBenchSection(SECTION, {
    title: `Load: concurrent list reads, run reads and live appends; gap-filling and shuffled appends${SECTION === "load" ? "" : ` (${SECTION})`}`,
    command: "npm run bench:load",
    figures,
    notes: [
      `${CLIENTS} clients for ${SECONDS} s each cycling list (GET /api/runs), read (run detail + summary of one of ${SEED_RUNS} 2,000-event runs) and append (${BATCH} events to its own live run); one next start per database`,
      `gap client: a ${GAP_EVENTS.toLocaleString("en")}-event run uploaded without ${GAP_FILLS} seqs near its start (100, 200, …); one-event appends alternate between its end and a missing seq; medians`,
      ...notes,
    ],
  });
  if (figures.some((f) => (f.label.endsWith("errors") || f.label.endsWith("events lost")) && f.value > 0)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
