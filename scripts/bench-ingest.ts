/**
 * npm run bench:ingest — 100,000 events of realistic size end to end, through
 * POST /api/journals (a production server) and through the CLI, on SQLite and on
 * PostgreSQL, each against a raw baseline measured in the same run:
 *   SQLite: JSON.parse + one prepared INSERT per event in one transaction (better-sqlite3)
 *   PostgreSQL: JSON.parse + COPY (pg-copy-streams)
 * and, for PostgreSQL, what the Event table itself costs: JSON.parse of each line + COPY of
 * the row ingest stored for it (taken from the CLI's import, so no ingest work is left), into
 * a migrated database, whose table has 18 columns and the run check per statement.
 * Prints events/s and the ratio to the baseline, then how long the same journal takes
 * when POSTed again (every event a duplicate). These machines are shared and noisy: each
 * baseline, CLI import and HTTP upload (of the journal under three run ids, to one server)
 * runs 3 times and its best counts, every time printed, so one slow baseline cannot
 * flatter a ratio nor one slow import sink it. The HTTP figure is a running server's: a
 * 2,000-event upload of another run first loads the route's code and warms the JIT, as any
 * upload before it would; that first upload's time is printed too. Needs a build
 * (`next build`) for the HTTP figures; builds one if missing. Writes the figures to
 * docs/benchmarks.json (section "ingest").
 *
 * The search index (issue 32: SQLite's FTS5 trigram table, PostgreSQL's pg_trgm GIN index on
 * the event body, both kept by the database at every insert) is measured in the same run:
 * the CLI's import into a migrated database as is, against the same import into one whose
 * search index was dropped after migrating (`withoutSearchIndex`, the baseline), best of 3
 * each, on both databases; section "ingest-search". `BENCH_INGEST_ONLY=search` runs only
 * that comparison.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import Database from "better-sqlite3";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { benchPolicy, generateJournal } from "./bench-journal";
import { writeBenchSection } from "./bench-report";
import { cpuSeconds, postFile as postFileTo, postgresPids, processTree, startServer as startOn } from "./bench-server";

const N = Number(process.env.BENCH_EVENTS ?? 100_000);
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";
const dir = path.resolve(".bench");
fs.mkdirSync(dir, { recursive: true });
const journal = path.join(dir, `journal-${N}.jsonl`);
const warmJournal = path.join(dir, "journal-warm-2000.jsonl");
// the same journal under other run ids, so that each upload to one server stores a new run
const journalAs = (i: number) => (i === 0 ? journal : path.join(dir, `journal-${N}-run${i + 1}.jsonl`));
// the same journal with a policy of 20 invariants in its run.start (scripts/bench-journal.ts benchPolicy)
const policyJournal = path.join(dir, `journal-${N}-policy20.jsonl`);

function fmt(n: number) {
  return Math.round(n).toLocaleString("en-US");
}

async function baselineSqlite(): Promise<number> {
  const file = path.join(dir, "baseline.db");
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE ev (run TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT, body TEXT NOT NULL, PRIMARY KEY (run, seq))`);
  const insert = db.prepare(`INSERT INTO ev (run, seq, type, body) VALUES (?, ?, ?, ?)`);
  const t0 = performance.now();
  const lines = fs.readFileSync(journal, "utf8").split("\n");
  db.exec("BEGIN");
  for (const line of lines) {
    if (!line) continue;
    const e = JSON.parse(line) as { run: string; seq: number; type: string };
    insert.run(e.run, e.seq, e.type, line);
  }
  db.exec("COMMIT");
  const ms = performance.now() - t0;
  db.close();
  return (N / ms) * 1000;
}

async function baselinePostgres(): Promise<number> {
  const name = `retrace_bench_base_${process.pid}`;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  const client = new pg.Client({ connectionString: `${PG_BASE}/${name}` });
  await client.connect();
  await client.query(`CREATE TABLE ev (run TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT, body TEXT NOT NULL, PRIMARY KEY (run, seq))`);
  const t0 = performance.now();
  const lines = fs.readFileSync(journal, "utf8").split("\n");
  const esc = (s: string) => s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
  async function* rows() {
    let buf = "";
    for (const line of lines) {
      if (!line) continue;
      const e = JSON.parse(line) as { run: string; seq: number; type: string };
      buf += `${esc(e.run)}\t${e.seq}\t${esc(e.type)}\t${esc(line)}\n`;
      if (buf.length > 1 << 20) {
        yield buf;
        buf = "";
      }
    }
    if (buf) yield buf;
  }
  await withCpu(ownCpu, async () => {
    await client.query("BEGIN");
    await pipeline(Readable.from(rows()), client.query(copyFrom(`COPY ev (run, seq, type, body) FROM STDIN`)));
    await client.query("COMMIT");
  });
  const ms = performance.now() - t0;
  await client.end();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.end();
  return (N / ms) * 1000;
}

/**
 * JSON.parse + COPY into the migrated Event table of the rows ingest stored (read from the
 * database `from`, where the CLI imported the journal): the table's own cost, with nothing
 * of ingest's per-event work.
 */
let exportedRows = false;
async function eventTablePostgres(from: string): Promise<number> {
  const rows = path.join(dir, `event-rows-${N}.copy`);
  // exported once a run, from this run's import
  if (!exportedRows) {
    exportedRows = true;
    const r = spawnSync("psql", [from, "-qXc", `\\copy (SELECT ${EVENT_COLS} FROM "Event" ORDER BY "seq") TO '${rows}'`]);
    if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
  }
  const url = freshUrl("postgres", "event_table");
  run(process.execPath, [cli, "migrate"], { DATABASE_URL: url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t0 = performance.now();
  const lines = fs.readFileSync(journal, "utf8").split("\n");
  const stored = fs.readFileSync(rows, "utf8").split("\n");
  async function* text() {
    let buf = "";
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]) continue;
      JSON.parse(lines[i]);
      buf += stored[i] + "\n";
      if (buf.length > 1 << 20) {
        yield buf;
        buf = "";
      }
    }
    if (buf) yield buf;
  }
  await withCpu(ownCpu, async () => {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO "Run" ("id", "projectId", "createdAt", "updatedAt", "source", "live") VALUES ('bench-run-1', 'default', 0, 0, 'import', false)`,
    );
    await pipeline(Readable.from(text()), client.query(copyFrom(`COPY "Event" (${EVENT_COLS}) FROM STDIN`)));
    await client.query("COMMIT");
  });
  const ms = performance.now() - t0;
  await client.end();
  spawnSync("psql", [`${PG_BASE}/postgres`, "-qc", `DROP DATABASE IF EXISTS "${url.split("/").pop()}"`]);
  return (N / ms) * 1000;
}
const EVENT_COLS = [
  "runId",
  "seq",
  "ts",
  "tsMs",
  "type",
  "step",
  "parent",
  "call",
  "name",
  "status",
  "latencyMs",
  "tokens",
  "bytes",
  "body",
  "recordedHash",
  "chain",
  "hash",
  "redactions",
]
  .map((c) => `"${c}"`)
  .join(", ");

function run(cmd: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function freshUrl(dialect: "sqlite" | "postgres", tag: string): string {
  if (dialect === "sqlite") {
    const file = path.join(dir, `${tag}.db`);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return `file:${file}`;
  }
  const name = `retrace_bench_${tag}_${process.pid}`;
  spawnSync("psql", [`${PG_BASE}/postgres`, "-qc", `DROP DATABASE IF EXISTS "${name}"`]);
  return `${PG_BASE}/${name}`;
}

// what `npm run -s retrace` runs (npm's own start-up, about 0.3 s, is left out)
const cli = path.resolve("scripts/retrace.mjs");

const REPEATS = 3;
// helpers benchmarking side by side on one machine each take their own ports
const PORT = Number(process.env.BENCH_PORT ?? 3211);
const runs = new Map<string, number[]>();

/**
 * CPU seconds a run took: `node` the process(es) doing the import (the bench itself for
 * the baselines, the CLI, the server for HTTP), `server` every PostgreSQL process. On two
 * cores a run takes at least (node + server) / 2 of wall time whatever overlaps, which
 * bounds the ratio any pipeline with this CPU could reach.
 */
interface Cpu {
  node: number;
  server: number;
}
let lastCpu: Cpu | null = null;
const cpuOfBest = new Map<string, Cpu>();
async function withCpu<T>(nodeCpu: () => number, fn: () => Promise<T>): Promise<T> {
  const n0 = nodeCpu();
  const s0 = cpuSeconds(postgresPids());
  const r = await fn();
  lastCpu = { node: nodeCpu() - n0, server: cpuSeconds(postgresPids()) - s0 };
  return r;
}
const ownCpu = () => cpuSeconds(["self"], "own");

/** Events/s of the best of REPEATS runs of `once` (events/s each), every run's kept for printing. */
async function best(label: string, once: () => Promise<number>): Promise<number> {
  const all: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    lastCpu = null;
    const eps = await once();
    if (all.every((e) => eps > e) && lastCpu) cpuOfBest.set(label, lastCpu);
    all.push(eps);
  }
  runs.set(label, all);
  return Math.max(...all);
}

/** The database of the last CLI import of each dialect (the journal, as ingest stored it). */
const cliUrl = new Map<string, string>();

async function viaCli(dialect: "sqlite" | "postgres", file = journal): Promise<number> {
  const url = freshUrl(dialect, `cli_${dialect}`);
  cliUrl.set(dialect, url);
  run(process.execPath, [cli, "migrate"], { DATABASE_URL: url });
  const t0 = performance.now();
  // the CLI's CPU reaches this process's children's times once spawnSync has waited for it
  const out = await withCpu(
    () => cpuSeconds(["self"], "waited"),
    async () => run(process.execPath, [cli, "import", "--json", file], { DATABASE_URL: url }),
  );
  const ms = performance.now() - t0;
  const result = JSON.parse(out.trim().split("\n").pop()!) as { runs: Array<{ accepted: number }> };
  const accepted = result.runs.reduce((n, r) => n + r.accepted, 0);
  if (accepted !== N) throw new Error(`CLI stored ${accepted} of ${N} events`);
  return (N / ms) * 1000;
}

/**
 * Drops the search index of a migrated database (the baseline of the search-index figures):
 * SQLite's FTS5 table and the triggers that fill it, PostgreSQL's trigram index.
 */
async function withoutSearchIndex(url: string): Promise<void> {
  if (url.startsWith("file:")) {
    const d = new Database(url.slice("file:".length));
    d.exec(`DROP TRIGGER "Event_text_insert"; DROP TRIGGER "Event_text_delete"; DROP TRIGGER "Event_text_update"; DROP TABLE "EventText";`);
    d.close();
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP INDEX "Event_body_trgm"`);
  await c.end();
}

/** The CLI's import into a fresh migrated database, with or without the search index. */
async function viaCliSearch(dialect: "sqlite" | "postgres", indexed: boolean): Promise<number> {
  const url = freshUrl(dialect, `search_${indexed ? "on" : "off"}_${dialect}`);
  run(process.execPath, [cli, "migrate"], { DATABASE_URL: url });
  if (!indexed) await withoutSearchIndex(url);
  const t0 = performance.now();
  const out = run(process.execPath, [cli, "import", "--json", journal], { DATABASE_URL: url });
  const ms = performance.now() - t0;
  const result = JSON.parse(out.trim().split("\n").pop()!) as { runs: Array<{ accepted: number }> };
  const accepted = result.runs.reduce((n, r) => n + r.accepted, 0);
  if (accepted !== N) throw new Error(`CLI stored ${accepted} of ${N} events`);
  searchSize.set(`${dialect} ${indexed ? "on" : "off"}`, storedMb(url));
  return (N / ms) * 1000;
}

/** The database's size after the import, in MB (SQLite: the file and its WAL; PostgreSQL: pg_database_size). */
function storedMb(url: string): number {
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length);
    return [file, `${file}-wal`].reduce((n, f) => n + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0) / 1e6;
  }
  const name = url.slice(url.lastIndexOf("/") + 1);
  const r = spawnSync("psql", [`${PG_BASE}/postgres`, "-tAc", `SELECT pg_database_size('${name}')`], { encoding: "utf8" });
  return Number(r.stdout.trim()) / 1e6;
}
/** The size of the last import of each kind ("sqlite on", "postgres off", ...). */
const searchSize = new Map<string, number>();

/** Ingest with the search index against without it, both databases, in this run (section "ingest-search"). */
async function searchIndexCost(bytes: number): Promise<void> {
  const rows: Array<[string, number, number]> = [];
  const sizes: Array<[string, number, number]> = [];
  for (const dialect of ["sqlite", "postgres"] as const) {
    const name = dialect === "sqlite" ? "SQLite" : "Postgres";
    // alternated, so a slow minute of a shared machine does not fall on one side only
    const off: number[] = [];
    const on: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      off.push(await viaCliSearch(dialect, false));
      on.push(await viaCliSearch(dialect, true));
    }
    runs.set(`${name} no index`, off);
    runs.set(`${name} index`, on);
    const base = Math.max(...off);
    rows.push([`${name} CLI import, search index dropped (baseline)`, base, base]);
    rows.push([`${name} CLI import, with the search index`, Math.max(...on), base]);
    sizes.push([`${name} database after the import, search index dropped (baseline)`, searchSize.get(`${dialect} off`)!, 0]);
    sizes.push([
      `${name} database after the import, with the search index`,
      searchSize.get(`${dialect} on`)!,
      searchSize.get(`${dialect} off`)!,
    ]);
  }
  console.log("");
  for (const [name, eps, base] of rows)
    console.log(`${name.padEnd(52)} ${fmt(eps).padStart(9)} events/s   ratio ${(eps / base).toFixed(2)}`);
  for (const [name, mb, base] of sizes)
    console.log(`${name.padEnd(52)} ${mb.toFixed(1).padStart(9)} MB${base ? `         ratio ${(mb / base).toFixed(2)}` : ""}`);
  for (const label of ["SQLite no index", "SQLite index", "Postgres no index", "Postgres index"])
    console.log(
      `${label.padEnd(18)} runs: ${runs
        .get(label)!
        .map((eps) => `${((N / eps) * 1000).toFixed(0)} ms`)
        .join(", ")} (best counts)`,
    );
  writeBenchSection("ingest-search", {
    title: `Ingest with the search index against without it, ${fmt(N)} events (CLI import)`,
    command: "npm run bench:ingest (BENCH_INGEST_ONLY=search for this section alone)",
    figures: rows
      .map(([label, eps, base]) => ({
        label,
        value: eps,
        unit: "events/s",
        ...(eps === base ? {} : { baseline: { label: "search index dropped", value: base } }),
      }))
      .concat(
        sizes.map(([label, mb, base]) => ({
          label,
          value: Math.round(mb * 10) / 10,
          unit: "MB",
          ...(base ? { baseline: { label: "search index dropped", value: Math.round(base * 10) / 10 } } : {}),
        })),
      ),
    notes: [
      `The journal of the ingest section (${(bytes / 1e6).toFixed(1)} MB); best of 3 runs each, the two kinds alternated, in one run.`,
      "The baseline is the same migrated database with the search index dropped after migrating (SQLite: the FTS5 trigram table and its triggers; PostgreSQL: the pg_trgm GIN index on Event.body); the ratio is what the index costs ingest.",
      "SQLite's index holds trigrams without positions (detail=none) of the body's string values only; measured by hand on this journal (CLI import, one run, load 10, times too noisy to rank): file 65.7 MB without an index, 153.8 MB with positions of the whole body (the first design, ingest at 0.26 of the baseline), 87.9 MB detail=none over the whole body, 95.4 MB positions of the string values, 82.1 MB detail=column of them, 72.8 MB detail=none of them (chosen).",
    ],
  });
  for (const tag of ["search_on_postgres", "search_off_postgres"])
    spawnSync("psql", [`${PG_BASE}/postgres`, "-qc", `DROP DATABASE IF EXISTS "retrace_bench_${tag}_${process.pid}"`]);
}

/** The production build on a migrated database (scripts/bench-server.ts). */
async function startServer(url: string, port: number): Promise<ChildProcess> {
  run(process.execPath, [cli, "migrate"], { DATABASE_URL: url });
  return startOn(url, port);
}

interface UploadAnswer {
  runs: Array<{ accepted: number; duplicates: number }>;
  errors: unknown[];
}

const postFile = (port: number, urlPath: string, file: string) => postFileTo<UploadAnswer>(port, urlPath, file);

const resendMs = new Map<string, number>();
const firstUploadMs = new Map<string, number>();

async function viaHttp(dialect: "sqlite" | "postgres", port: number): Promise<number> {
  const url = freshUrl(dialect, `http_${dialect}`);
  const server = await startServer(url, port);
  try {
    const w0 = performance.now();
    const warm = await postFile(port, "/api/journals", warmJournal);
    firstUploadMs.set(dialect, performance.now() - w0);
    if (warm.status !== 201) throw new Error(`warm-up upload: HTTP ${warm.status}`);
    // node:http streaming the file: the client shares this machine's cores with the server,
    // and fetch's web-stream body costs it several times more CPU than a piped file.
    let i = 0;
    const eps = await best(`${dialect === "sqlite" ? "SQLite" : "Postgres"} HTTP`, async () => {
      const t0 = performance.now();
      const serverPids = processTree(server.pid!);
      const { status, body } = await withCpu(
        () => cpuSeconds(serverPids),
        () => postFile(port, "/api/journals", journalAs(i++)),
      );
      const ms = performance.now() - t0;
      const accepted = body.runs.reduce((n, r) => n + r.accepted, 0);
      if (status !== 201 || accepted !== N)
        throw new Error(`HTTP ${status}: stored ${accepted} of ${N}: ${JSON.stringify(body.errors).slice(0, 300)}`);
      return (N / ms) * 1000;
    });
    // the same journal again: every event is a duplicate, compared with what is stored
    const r0 = performance.now();
    const again = await postFile(port, "/api/journals", journal);
    resendMs.set(dialect, performance.now() - r0);
    const dups = again.body.runs.reduce((n, r) => n + r.duplicates, 0);
    if (again.status !== 200 || dups !== N) throw new Error(`resend: HTTP ${again.status}, ${dups} duplicates of ${N}`);
    return eps;
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
}

/**
 * The cost of a declared policy at ingest: the CLI import (SQLite) of the journal with a
 * policy of 20 invariants in its run.start, against the same journal without, alternated
 * so both see the same machine, best of REPEATS each. Section "ingest-policy".
 */
async function policyCost(): Promise<void> {
  if (!fs.existsSync(policyJournal)) fs.writeFileSync(policyJournal, generateJournal(N, "bench-run-1", benchPolicy()));
  const plain: number[] = [];
  const withPolicy: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    plain.push(await viaCli("sqlite"));
    withPolicy.push(await viaCli("sqlite", policyJournal));
  }
  const base = Math.max(...plain);
  const eps = Math.max(...withPolicy);
  const ms = (all: number[]) => all.map((e) => `${((N / e) * 1000).toFixed(0)} ms`).join(", ");
  console.log(`SQLite CLI import, no policy:        ${fmt(base)} events/s (runs: ${ms(plain)})`);
  console.log(`SQLite CLI import, 20 invariants:    ${fmt(eps)} events/s (runs: ${ms(withPolicy)})   ratio ${(eps / base).toFixed(2)}`);
  writeBenchSection("ingest-policy", {
    title: `Ingest with a declared policy of 20 invariants, ${fmt(N)} events (CLI import, SQLite)`,
    command: "npm run bench:ingest (BENCH_ONLY=policy for this section alone)",
    figures: [
      { label: "SQLite CLI import, no invariants", value: base, unit: "events/s" },
      {
        label: "SQLite CLI import, 20 invariants (4 of each kind)",
        value: eps,
        unit: "events/s",
        baseline: { label: "no invariants", value: base },
      },
    ],
    notes: [
      "The same generated journal, its run.start with and without scripts/bench-journal.ts benchPolicy(): every lookup call is judged by 12 invariants and every lookup result feeds 12 (keys kept per call, every scalar of each result collected); alternated, best of 3 each.",
    ],
  });
}

async function main() {
  if (process.env.BENCH_ONLY === "policy") {
    if (!fs.existsSync(journal)) fs.writeFileSync(journal, generateJournal(N));
    await policyCost();
    return;
  }
  if (!fs.existsSync(journal)) fs.writeFileSync(journal, generateJournal(N));
  for (let i = 1; i < REPEATS; i++)
    if (!fs.existsSync(journalAs(i))) fs.writeFileSync(journalAs(i), generateJournal(N, `bench-run-${i + 1}`));
  if (!fs.existsSync(warmJournal)) fs.writeFileSync(warmJournal, generateJournal(2000, "bench-warm-up"));
  const bytes = fs.statSync(journal).size;
  console.log(`journal: ${fmt(N)} events, ${(bytes / 1e6).toFixed(1)} MB (${Math.round(bytes / N)} bytes/event average)`);
  if (process.env.BENCH_INGEST_ONLY === "search") return searchIndexCost(bytes);
  if (!fs.existsSync(".next/BUILD_ID")) run(path.resolve("node_modules/.bin/next"), ["build"], {});
  const rows: Array<[string, number, number]> = [];
  const sqliteBase = await best("SQLite baseline", baselineSqlite);
  const pgBase = await best("Postgres baseline", baselinePostgres);
  rows.push(["SQLite  raw baseline (JSON.parse + prepared INSERT)", sqliteBase, sqliteBase]);
  rows.push(["SQLite  POST /api/journals", await viaHttp("sqlite", PORT), sqliteBase]);
  rows.push(["SQLite  CLI import (process start included)", await best("SQLite CLI", () => viaCli("sqlite")), sqliteBase]);
  rows.push(["Postgres raw baseline (JSON.parse + COPY)", pgBase, pgBase]);
  rows.push(["Postgres POST /api/journals", await viaHttp("postgres", PORT + 1), pgBase]);
  rows.push(["Postgres CLI import (process start included)", await best("Postgres CLI", () => viaCli("postgres")), pgBase]);
  const table = await best("Postgres table", () => eventTablePostgres(cliUrl.get("postgres")!));
  await policyCost();
  rows.push(["Postgres JSON.parse + COPY of the stored rows into Event", table, pgBase]);
  console.log("");
  for (const [name, eps, base] of rows)
    console.log(`${name.padEnd(52)} ${fmt(eps).padStart(9)} events/s   ratio ${(eps / base).toFixed(2)}`);
  console.log("");
  for (const [label, all] of runs)
    console.log(`${label.padEnd(18)} runs: ${all.map((eps) => `${((N / eps) * 1000).toFixed(0)} ms`).join(", ")} (best counts)`);
  const baseMs = (N / pgBase) * 1000;
  const cpuFigures: Array<{ label: string; value: number; unit: string; baseline?: { label: string; value: number } }> = [];
  for (const [label, cpu] of cpuOfBest) {
    if (!label.startsWith("Postgres")) continue; // the ratio is to PostgreSQL's baseline
    const floorMs = ((cpu.node + cpu.server) / 2) * 1000;
    console.log(
      `${label.padEnd(18)} CPU: import ${(cpu.node * 1000).toFixed(0)} ms, PostgreSQL ${(cpu.server * 1000).toFixed(0)} ms; ` +
        `two cores need at least ${floorMs.toFixed(0)} ms: at most ${(baseMs / floorMs).toFixed(2)} of the baseline`,
    );
    cpuFigures.push(
      { label: `${label}: CPU of the import's process`, value: cpu.node * 1000, unit: "ms" },
      { label: `${label}: CPU of PostgreSQL`, value: cpu.server * 1000, unit: "ms" },
      {
        label: `${label}: the ratio two cores allow at this CPU`,
        value: baseMs / floorMs,
        unit: "×",
        baseline: { label: "floor", value: 0.5 },
      },
    );
  }
  for (const [dialect, ms] of resendMs)
    console.log(`${dialect.padEnd(8)} the same journal POSTed again (all duplicates): ${(ms / 1000).toFixed(2)} s`);
  for (const [dialect, ms] of firstUploadMs)
    console.log(`${dialect.padEnd(8)} a fresh server's first upload (2,000 events, route code loaded): ${ms.toFixed(0)} ms`);
  writeBenchSection("ingest", {
    title: `Ingest, ${fmt(N)} events (POST /api/journals and the CLI, SQLite and PostgreSQL)`,
    command: "npm run bench:ingest",
    figures: [
      ...rows.map(([label, eps, base]) => ({
        label,
        value: eps,
        unit: "events/s",
        ...(eps === base ? {} : { baseline: { label: "raw baseline", value: base } }),
      })),
      ...cpuFigures,
      ...[...resendMs].map(([dialect, ms]) => ({
        label: `${dialect}: the same journal POSTed again (all duplicates)`,
        value: ms,
        unit: "ms",
      })),
      ...[...firstUploadMs].map(([dialect, ms]) => ({
        label: `${dialect}: a fresh server's first upload (2,000 events)`,
        value: ms,
        unit: "ms",
      })),
    ],
    notes: [
      `A generated journal of ${(bytes / 1e6).toFixed(1)} MB; best of 3 runs each, against a raw baseline measured in the same run.`,
      "CPU figures are the best run's, read from /proc: the import's process (the bench itself for the baseline and the table, the CLI, the server for HTTP) and every PostgreSQL process. Two cores run at most two seconds of CPU a second, so (import + PostgreSQL) / 2 is the least wall time that CPU allows, and the baseline's wall time over it the best ratio it allows, however well the two overlap.",
      "The last figure is what the Event table itself allows: each line parsed, then the row ingest stored for it (18 columns, the run checked per statement) copied into a migrated database, with none of ingest's work per event.",
    ],
  });
  for (const tag of ["http_postgres", "cli_postgres"])
    spawnSync("psql", [`${PG_BASE}/postgres`, "-qc", `DROP DATABASE IF EXISTS "retrace_bench_${tag}_${process.pid}"`]);
  await searchIndexCost(bytes);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
