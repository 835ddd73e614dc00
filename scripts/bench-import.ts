/**
 * npx tsx --conditions=react-server scripts/bench-import.ts — whole-document vs streaming
 * import of a large OTLP JSON file. Generates ~50 MB (BENCH_MB) of realistic GenAI spans
 * into .bench/, then imports it into a fresh SQLite database twice, each in its own child
 * process so neither run inherits the other's heap: once through `importBytes` (the file read
 * whole, decoded, parsed, converted) and once through `importFileStreaming`. Prints wall time,
 * spans/s and peak memory (RSS sampled every 10 ms, and the kernel's maxRSS, which also sees
 * the peaks of synchronous stretches where no sampling timer can fire), then checks that both
 * databases hold the same events.
 *
 * Three more children split the figure: each path's conversion alone (up to the NDJSON the
 * ingest reads, no database), and the ingest alone of that NDJSON as a journal, which is the
 * floor under both imports. Each child runs BENCH_REPEAT times (default 3, round-robin);
 * medians are printed, since wall times on a shared machine vary a lot, and written to
 * docs/benchmarks.json (section "import").
 * The generated file is reused while it exists; delete .bench/otlp-genai-*.json* to regenerate.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { canonicalJson } from "../lib/canonical";
import { importTrace, importTraceStream } from "../lib/importers";
import { loadConfig } from "../lib/server/config";
import { openDb, type Db } from "../lib/server/db";
import { importFileStreaming, ndjsonOfRuns } from "../lib/server/import-stream";
import { importBytes } from "../lib/server/imports";
import { migrate } from "../lib/server/migrate";
import { ingestBytes } from "../lib/server/service";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const dir = path.resolve(".bench");
const TARGET_MB = Number(process.env.BENCH_MB ?? 50);
const REPEAT = Math.max(1, Number(process.env.BENCH_REPEAT ?? 3));
const file = path.join(dir, `otlp-genai-${TARGET_MB}mb.json`);
const metaFile = `${file}.meta.json`;

// ---------------------------------------------------------------------------------------
// Generation: deterministic (seeded), so both runs and later runs see the same bytes.

let seed = 0x2545f491;
function rand(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const hex = (bytes: number) => Array.from({ length: bytes * 2 }, () => Math.floor(rand() * 16).toString(16)).join("");

const WORDS =
  "the a refund order customer policy shipping invoice account balance ticket agent tool search weather booking flight hotel price date total status error retry cancel approve review document section clause summary answer question context because therefore however".split(
    " ",
  );
function sentence(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(WORDS));
  return out.join(" ") + ".";
}
function paragraph(chars: number): string {
  let s = "";
  while (s.length < chars) s += sentence(8 + Math.floor(rand() * 12)) + " ";
  return s.slice(0, chars);
}

type Attr = { key: string; value: { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean } };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const int = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });

const MODELS = ["gpt-4o-2024-08-06", "gpt-4.1-mini", "claude-3-5-sonnet-20241022"];
const TOOLS = ["search_orders", "get_weather", "lookup_policy", "issue_refund", "send_email"];

interface SpanJson {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attr[];
  status: { code: number; message?: string };
  events: Array<{ name: string; timeUnixNano: string; attributes: Attr[] }>;
}

/** One agent run: an agent span, a few model calls with a growing conversation, tool calls. */
function traceSpans(t0: bigint, bigValue: string | undefined): SpanJson[] {
  const traceId = hex(16);
  const rootId = hex(8);
  const spans: SpanJson[] = [];
  const messages: Array<{ role: string; content: string }> = [
    { role: "system", content: paragraph(600 + Math.floor(rand() * 900)) },
    { role: "user", content: paragraph(80 + Math.floor(rand() * 300)) },
  ];
  let t = t0 + 1_000_000n;
  const turns = 3 + Math.floor(rand() * 4);
  for (let i = 0; i < turns; i++) {
    const model = pick(MODELS);
    const llmId = hex(8);
    const dur = BigInt(300 + Math.floor(rand() * 3000)) * 1_000_000n;
    const completion = paragraph(200 + Math.floor(rand() * 1200));
    const tool = i < turns - 1 ? pick(TOOLS) : undefined;
    const attrs: Attr[] = [
      s("gen_ai.operation.name", "chat"),
      s("gen_ai.system", "openai"),
      s("gen_ai.request.model", model),
      s("gen_ai.response.model", model),
      s("gen_ai.response.id", `chatcmpl-${hex(12)}`),
      int("gen_ai.usage.input_tokens", 200 + Math.floor(rand() * 4000)),
      int("gen_ai.usage.output_tokens", 20 + Math.floor(rand() * 600)),
      { key: "gen_ai.request.temperature", value: { doubleValue: 0.2 } },
      s("gen_ai.input.messages", JSON.stringify(messages)),
      s(
        "gen_ai.output.messages",
        JSON.stringify([
          {
            role: "assistant",
            content: completion,
            ...(tool
              ? {
                  tool_calls: [
                    { id: `call_${hex(6)}`, type: "function", function: { name: tool, arguments: JSON.stringify({ query: sentence(6) }) } },
                  ],
                }
              : {}),
          },
        ]),
      ),
    ];
    if (bigValue && i === 0) attrs.push(s("retrieval.documents", bigValue));
    spans.push({
      traceId,
      spanId: llmId,
      parentSpanId: rootId,
      name: `chat ${model}`,
      kind: 3,
      startTimeUnixNano: t.toString(),
      endTimeUnixNano: (t + dur).toString(),
      attributes: attrs,
      status: { code: 1 },
      events: [],
    });
    t += dur + 1_000_000n;
    messages.push({ role: "assistant", content: completion });
    if (tool) {
      const toolDur = BigInt(20 + Math.floor(rand() * 800)) * 1_000_000n;
      const failed = rand() < 0.05;
      const result = failed
        ? ""
        : JSON.stringify({
            ok: true,
            items: Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ({ id: hex(4), text: sentence(15) })),
          });
      spans.push({
        traceId,
        spanId: hex(8),
        parentSpanId: rootId,
        name: `execute_tool ${tool}`,
        kind: 1,
        startTimeUnixNano: t.toString(),
        endTimeUnixNano: (t + toolDur).toString(),
        attributes: [
          s("gen_ai.operation.name", "execute_tool"),
          s("gen_ai.tool.name", tool),
          s("gen_ai.tool.call.id", `call_${hex(6)}`),
          s("gen_ai.tool.call.arguments", JSON.stringify({ query: sentence(6) })),
          s("gen_ai.tool.call.result", result),
        ],
        status: failed ? { code: 2, message: "tool timed out" } : { code: 1 },
        events: failed
          ? [
              {
                name: "exception",
                timeUnixNano: (t + toolDur).toString(),
                attributes: [s("exception.type", "TimeoutError"), s("exception.message", "tool timed out after 30s")],
              },
            ]
          : [],
      });
      t += toolDur + 1_000_000n;
      messages.push({ role: "tool", content: result || "error: timeout" });
    }
  }
  spans.unshift({
    traceId,
    spanId: rootId,
    name: "invoke_agent support-agent",
    kind: 1,
    startTimeUnixNano: t0.toString(),
    endTimeUnixNano: t.toString(),
    attributes: [
      s("gen_ai.operation.name", "invoke_agent"),
      s("gen_ai.agent.name", "support-agent"),
      s("session.id", hex(8)),
      s("user.id", `user-${Math.floor(rand() * 500)}`),
    ],
    status: { code: 1 },
    events: [],
  });
  return spans;
}

function generate(): { spans: number; traces: number; bytes: number } {
  fs.mkdirSync(dir, { recursive: true });
  if (fs.existsSync(file) && fs.existsSync(metaFile))
    return JSON.parse(fs.readFileSync(metaFile, "utf8")) as { spans: number; traces: number; bytes: number };
  const target = TARGET_MB * 1024 * 1024;
  const fd = fs.openSync(`${file}.tmp`, "w");
  let bytes = 0;
  const write = (text: string) => {
    fs.writeSync(fd, text);
    bytes += Buffer.byteLength(text);
  };
  let spans = 0;
  let traces = 0;
  let t0 = 1_760_000_000_000_000_000n;
  write(`{"resourceSpans":[`);
  for (let batch = 0; bytes < target; batch++) {
    const service = pick(["support-agent", "billing-agent", "triage-agent"]);
    write(
      `${batch > 0 ? "," : ""}{"resource":{"attributes":${JSON.stringify([s("service.name", service), s("service.version", "1.4.2"), s("deployment.environment", "prod"), s("telemetry.sdk.language", "python")])}},`,
    );
    write(`"scopeSpans":[{"scope":{"name":"opentelemetry.instrumentation.openai_v2","version":"2.1b0"},"spans":[`);
    let first = true;
    for (let i = 0; i < 40 && bytes < target; i++) {
      // A few very large values (a retrieved document set of ~1.5 MB), as real RAG traces carry.
      const big = traces % 400 === 7 ? paragraph(1_500_000) : undefined;
      for (const sp of traceSpans(t0, big)) {
        write(`${first ? "" : ","}${JSON.stringify(sp)}`);
        first = false;
        spans++;
      }
      traces++;
      t0 += BigInt(1 + Math.floor(rand() * 60)) * 1_000_000_000n;
    }
    write(`]}]}`);
  }
  write(`]}`);
  fs.closeSync(fd);
  fs.renameSync(`${file}.tmp`, file);
  const meta = { spans, traces, bytes };
  fs.writeFileSync(metaFile, JSON.stringify(meta));
  return meta;
}

// ---------------------------------------------------------------------------------------
// One measurement per child process.

type Mode = "whole" | "stream" | "convert-whole" | "convert-stream" | "ingest-ndjson";
const LABELS: Record<Mode, string> = {
  whole: "import, whole document (importBytes)",
  stream: "import, streaming (importFileStreaming)",
  "convert-whole": "  convert only, whole document",
  "convert-stream": "  convert only, streaming",
  "ingest-ndjson": "  ingest only (same NDJSON, as a journal)",
};
const ndjsonFile = path.join(dir, "otlp-genai.ndjson");

interface ChildResult {
  mode: Mode;
  ms: number;
  runs: number;
  events: number;
  errors: number;
  baselineRss: number;
  sampledPeakRss: number;
  maxRss: number;
}

/** What importBytes does before the ingest: decode, parse, convert, serialise, encode. */
function convertWhole(): { runs: number; events: number } {
  const converted = importTrace(new TextDecoder().decode(fs.readFileSync(file)), { fileName: path.basename(file) });
  const ndjson = new TextEncoder().encode(converted.runs.flatMap((r) => r.events.map((e) => canonicalJson(e))).join("\n") + "\n");
  // Counted from the NDJSON, so the encoded bytes are what the measurement ends with, as in importBytes.
  let events = 0;
  for (const b of ndjson) if (b === 0x0a) events++;
  return { runs: converted.runs.length, events };
}

/** What importFileStreaming does before the ingest; the NDJSON is kept for `ingest-ndjson`. */
async function convertStream(): Promise<{ runs: number; events: number }> {
  const converted = await importTraceStream(fs.createReadStream(file, { highWaterMark: 1 << 20 }), { fileName: path.basename(file) });
  let events = 0;
  const runs = (function* () {
    for (const r of converted.runs()) {
      events += r.events.length;
      yield r;
    }
  })();
  const fd = fs.openSync(ndjsonFile, "w");
  for await (const chunk of ndjsonOfRuns(runs)) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return { runs: converted.runCount, events };
}

async function child(mode: Mode, dbFile: string): Promise<void> {
  const withDb = mode === "whole" || mode === "stream" || mode === "ingest-ndjson";
  let db: Db | undefined;
  if (withDb) {
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) fs.rmSync(f, { force: true });
    const config = loadConfig({ DATABASE_URL: `file:${dbFile}` });
    await migrate(config, { quiet: true });
    db = openDb(config);
  }
  const baselineRss = process.memoryUsage().rss;
  let peak = baselineRss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  const name = path.basename(file);
  let summary: { runs: number; events: number; errors: number };
  if (db) {
    const r =
      mode === "whole"
        ? await importBytes(db, fs.readFileSync(file), name)
        : mode === "stream"
          ? await importFileStreaming(db, file, name)
          : await ingestBytes(db, fs.createReadStream(ndjsonFile, { highWaterMark: 1 << 20 }), {
              mode: "upload",
              source: "import",
              fidelity: "trace",
            });
    if (r.unreadable || r.tooLarge) console.error(r.unreadable ?? r.tooLarge);
    summary = {
      runs: r.runs.length,
      events: r.runs.reduce((n, x) => n + x.accepted, 0),
      errors: r.errors.length + (r.unreadable ? 1 : 0) + (r.tooLarge ? 1 : 0),
    };
  } else {
    summary = { ...(mode === "convert-whole" ? convertWhole() : await convertStream()), errors: 0 };
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  await db?.close();
  // ru_maxrss is in KiB on Linux.
  const out: ChildResult = { mode, ms, ...summary, baselineRss, sampledPeakRss: peak, maxRss: process.resourceUsage().maxRSS * 1024 };
  console.log(`RESULT ${JSON.stringify(out)}`);
}

function runChild(mode: Mode, dbFile: string): ChildResult {
  const tsx = path.resolve("node_modules/.bin/tsx");
  const r = spawnSync(tsx, ["--conditions=react-server", path.resolve("scripts/bench-import.ts"), "--child", mode, dbFile], {
    encoding: "utf8",
    env: { ...process.env, BENCH_MB: String(TARGET_MB) },
    maxBuffer: 16 << 20,
  });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || !line) throw new Error(`${mode} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(line.slice("RESULT ".length)) as ChildResult;
}

function digest(dbFile: string): { events: number; sha: string } {
  const db = new Database(dbFile, { readonly: true });
  const hash = createHash("sha256");
  let events = 0;
  for (const row of db.prepare(`SELECT "runId", "seq", "body" FROM "Event" ORDER BY "runId", "seq"`).iterate() as Iterable<{
    runId: string;
    seq: number;
    body: string;
  }>) {
    hash.update(`${row.runId}\t${row.seq}\t${row.body}\n`);
    events++;
  }
  db.close();
  return { events, sha: hash.digest("hex").slice(0, 16) };
}

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--child") return child(argv[1] as Mode, argv[2]);

  const t = performance.now();
  const meta = generate();
  console.log(
    `${path.relative(process.cwd(), file)}: ${mb(meta.bytes)}, ${fmt(meta.traces)} traces, ${fmt(meta.spans)} spans (ready in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );
  console.log(
    `${"".padEnd(44)}${"time".padStart(8)}${"spans/s".padStart(10)}${"maxRSS".padStart(9)}${"sampled".padStart(9)}${"at start".padStart(10)}`,
  );

  // Round-robin repetitions spread the noise of a shared machine over every mode; medians are shown.
  const MODES = ["whole", "stream", "convert-whole", "convert-stream", "ingest-ndjson"] as const;
  const runsOf = Object.fromEntries(MODES.map((m) => [m, [] as ChildResult[]])) as Record<Mode, ChildResult[]>;
  for (let i = 0; i < REPEAT; i++) {
    // convert-stream writes the NDJSON that ingest-ndjson reads.
    for (const mode of MODES) runsOf[mode].push(runChild(mode, path.join(dir, `import-${mode}.db`)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const results = {} as Record<Mode, ChildResult>;
  for (const mode of MODES) {
    const all = runsOf[mode];
    const r: ChildResult = {
      ...all[0],
      ms: median(all.map((x) => x.ms)),
      maxRss: median(all.map((x) => x.maxRss)),
      sampledPeakRss: median(all.map((x) => x.sampledPeakRss)),
      baselineRss: median(all.map((x) => x.baselineRss)),
    };
    results[mode] = r;
    const range =
      all.length > 1
        ? `  (time ${(Math.min(...all.map((x) => x.ms)) / 1000).toFixed(1)}–${(Math.max(...all.map((x) => x.ms)) / 1000).toFixed(1)} s)`
        : "";
    console.log(
      `${LABELS[mode].padEnd(44)}${`${(r.ms / 1000).toFixed(2)} s`.padStart(8)}${fmt((meta.spans / r.ms) * 1000).padStart(10)}` +
        `${mb(r.maxRss).padStart(9)}${mb(r.sampledPeakRss).padStart(9)}${mb(r.baselineRss).padStart(10)}` +
        `   ${r.runs} runs, ${fmt(r.events)} events${all.some((x) => x.errors) ? ", ERRORS" : ""}${range}`,
    );
  }
  const ratio = (a: ChildResult, b: ChildResult) =>
    `time ${(a.ms / b.ms).toFixed(2)}, maxRSS ${(a.maxRss / b.maxRss).toFixed(2)}, maxRSS above start ${((a.maxRss - a.baselineRss) / (b.maxRss - b.baselineRss)).toFixed(2)}`;
  console.log(`streaming / whole, import:       ${ratio(results.stream, results.whole)}`);
  console.log(`streaming / whole, convert only: ${ratio(results["convert-stream"], results["convert-whole"])}`);
  const a = digest(path.join(dir, "import-whole.db"));
  const b = digest(path.join(dir, "import-stream.db"));
  console.log(
    `stored events identical: ${a.sha === b.sha && a.events === b.events ? "yes" : "NO"} (${fmt(a.events)} events, sha256 ${a.sha})`,
  );
  if (a.sha !== b.sha) process.exitCode = 1;
  const figures: BenchFigure[] = [];
  for (const mode of MODES) {
    const r = results[mode];
    // each streaming figure beside its whole-document counterpart
    const against = mode === "stream" ? "whole" : mode === "convert-stream" ? "convert-whole" : undefined;
    const vs = against ? results[against] : undefined;
    const base = (pick: (x: ChildResult) => number) => (against && vs ? { baseline: { label: LABELS[against], value: pick(vs) } } : {});
    figures.push(
      { label: `${LABELS[mode]}: time`, value: r.ms, unit: "ms", ...base((x) => x.ms) },
      { label: `${LABELS[mode]}: spans/s`, value: (meta.spans / r.ms) * 1000, unit: "spans/s" },
      { label: `${LABELS[mode]}: peak RSS (maxRSS)`, value: r.maxRss / 2 ** 20, unit: "MB", ...base((x) => x.maxRss / 2 ** 20) },
      { label: `${LABELS[mode]}: RSS at start`, value: r.baselineRss / 2 ** 20, unit: "MB" },
    );
  }
  writeBenchSection("import", {
    title: `Trace import, ${mb(meta.bytes)} of OTLP JSON (whole document vs streaming)`,
    command: "npm run bench:import",
    figures,
    notes: [
      `${fmt(meta.spans)} spans in ${fmt(meta.traces)} traces; medians of ${REPEAT} runs, each in its own process. Stored events identical: ${a.sha === b.sha && a.events === b.events ? "yes" : "NO"}.`,
    ],
  });
}

await main();
