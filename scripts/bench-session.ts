/**
 * npx tsx scripts/bench-session.ts — importing one long coding-agent session (a Claude Code
 * 2.1 session, BENCH_SESSION_MB of it, default 60: the real fixture repeated, each round with
 * its own uuids, chained into one conversation; generated into .bench/) the two ways the
 * code can read it, each in a node process of its own:
 *
 * - whole text (the baseline: how every line format was read before): the file decoded into
 *   one string, then `importTrace`;
 * - line by line (`importTraceStreamWhole` on the file's bytes): what the upload and the CLI
 *   do now, which never holds the text.
 *
 * Printed: wall time and the kernel's peak RSS of each (median of BENCH_REPEAT runs, default
 * 3, round-robin), their ratios to the baseline, and the peak of the CLI importing the file
 * into a fresh SQLite database (the whole path, storage included). Both readings must give
 * the same events, which is checked.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const MB = Number(process.env.BENCH_SESSION_MB ?? 60);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const dir = path.resolve(".bench");
const file = path.join(dir, `claude-session-${MB}mb.jsonl`);
const root = path.resolve(import.meta.dirname, "..");

function generate(): void {
  if (fs.existsSync(file)) return;
  fs.mkdirSync(dir, { recursive: true });
  const src = fs.readFileSync(path.join(root, "tests/fixtures/agent-cli/claude-code-2.1.337-session.jsonl"), "utf8");
  const lines = src.split("\n").filter((l) => l.trim());
  const fd = fs.openSync(file + ".tmp", "w");
  let size = 0;
  let last: string | null = null;
  for (let round = 0; size < MB * 1e6; round++) {
    const out: string[] = [];
    for (const raw of lines) {
      const l = JSON.parse(raw) as Record<string, unknown>;
      if (typeof l.sessionId === "string") l.sessionId = "bench-session";
      if (typeof l.uuid === "string") l.uuid = `${l.uuid}-${round}`;
      if ("parentUuid" in l) l.parentUuid = typeof l.parentUuid === "string" ? `${l.parentUuid}-${round}` : last;
      const m = l.message as Record<string, unknown> | undefined;
      if (m && typeof m.id === "string") m.id = `${m.id}_${round}`;
      out.push(JSON.stringify(l));
      if (typeof l.uuid === "string") last = l.uuid;
    }
    const text = out.join("\n") + "\n";
    fs.writeSync(fd, text);
    size += Buffer.byteLength(text);
  }
  fs.closeSync(fd);
  fs.renameSync(file + ".tmp", file);
}

/** The child: reads the file one way and prints {ms, events, digest}. */
const CHILD = `
import fs from "node:fs";
import { createHash } from "node:crypto";
import { importTrace, importTraceStreamWhole } from "${root}/lib/importers";
import { useSha256Implementation } from "${root}/lib/canonical";
// node's SHA-256, as the server and the CLI use (lib/server/native-sha256.ts)
useSha256Implementation((t) => createHash("sha256").update(t, "utf8").digest("hex"), () => {
  const h = createHash("sha256");
  return { update: (t) => void h.update(t, "utf8"), hex: () => h.digest("hex") };
});
const [mode, file] = process.argv.slice(2);
const t0 = performance.now();
const r = mode === "whole"
  ? importTrace(new TextDecoder().decode(fs.readFileSync(file)), { fileName: file })
  : await importTraceStreamWhole(fs.createReadStream(file, { highWaterMark: 64 * 1024 }), { fileName: file });
const ms = performance.now() - t0;
const h = createHash("sha256");
let events = 0;
for (const run of r.runs) for (const e of run.events) { events++; h.update(JSON.stringify(e, (_k, v) => typeof v === "bigint" ? v.toString() : v)); }
console.log(JSON.stringify({ ms, events, digest: h.digest("hex") }));
`;

interface Measured {
  ms: number;
  rssMB: number;
  events: number;
  digest: string;
}

function measure(mode: "whole" | "lines"): Measured {
  const childFile = path.join(dir, "bench-session-child.mts");
  fs.writeFileSync(childFile, CHILD);
  const r = spawnSync("/usr/bin/time", ["-f", "maxrss=%M", path.join(root, "node_modules/.bin/tsx"), childFile, mode, file], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`${mode}: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as Omit<Measured, "rssMB">;
  const rss = Number(/maxrss=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
  return { ...out, rssMB: rss };
}

function cliPeak(): number {
  const db = path.join(dir, "bench-session.db");
  for (const f of [db, db + "-wal", db + "-shm"]) fs.rmSync(f, { force: true });
  const env = { ...process.env, DATABASE_URL: `file:${db}`, RETRACE_MAX_SESSION_BYTES: String(1 << 30) };
  const m = spawnSync("node", [path.join(root, "scripts/retrace.mjs"), "migrate"], { env, encoding: "utf8" });
  if (m.status !== 0) throw new Error(m.stderr);
  const r = spawnSync("/usr/bin/time", ["-f", "maxrss=%M", "node", path.join(root, "scripts/retrace.mjs"), "import", file], {
    env,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr + r.stdout);
  return Number(/maxrss=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

generate();
const size = fs.statSync(file).size / 1e6;
const runs: Record<"whole" | "lines", Measured[]> = { whole: [], lines: [] };
for (let i = 0; i < REPEAT; i++) for (const mode of ["whole", "lines"] as const) runs[mode].push(measure(mode));
const [w, l] = [runs.whole[0], runs.lines[0]];
if (w.digest !== l.digest || w.events !== l.events) throw new Error(`the two readings differ: ${w.events} vs ${l.events} events`);
const wholeMs = median(runs.whole.map((m) => m.ms));
const linesMs = median(runs.lines.map((m) => m.ms));
const wholeRss = median(runs.whole.map((m) => m.rssMB));
const linesRss = median(runs.lines.map((m) => m.rssMB));
const cli = cliPeak();
const r1 = (x: number) => Math.round(x * 10) / 10;
const figures: BenchFigure[] = [
  {
    label: `Claude Code session, ${r1(size)} MB, ${w.events.toLocaleString("en-US")} events: read line by line, peak RSS`,
    value: r1(linesRss),
    unit: "MB",
    baseline: { label: "whole text", value: r1(wholeRss) },
  },
  {
    label: `Claude Code session, ${r1(size)} MB: read line by line, time`,
    value: Math.round(linesMs),
    unit: "ms",
    baseline: { label: "whole text", value: Math.round(wholeMs) },
  },
  {
    label: `Claude Code session, ${r1(size)} MB: CLI import into SQLite, peak RSS`,
    value: r1(cli),
    unit: "MB",
    baseline: { label: "file size", value: r1(size) },
  },
];
for (const f of figures)
  console.log(
    `${f.label}: ${f.value} ${f.unit} (${f.baseline!.label}: ${f.baseline!.value}, ratio ${(f.value / f.baseline!.value).toFixed(2)})`,
  );
writeBenchSection("session-import", {
  title: "A long coding-agent session, read line by line (bench:session)",
  command: "npm run bench:session",
  figures,
  notes: [
    `A real Claude Code 2.1 session (tests/fixtures/agent-cli) repeated to ${r1(size)} MB as one conversation; each reading in a process of its own, medians of ${REPEAT}. Both readings give the same events (checked). The whole-text reading is how every line format was read before, and it was refused past RETRACE_MAX_DOCUMENT_BYTES (64 MiB); the line formats now have RETRACE_MAX_SESSION_BYTES (256 MiB).`,
  ],
});
