/**
 * npx tsx --conditions=react-server scripts/bench-import.ts — one large trace export (a
 * ~50 MB OTLP JSON file of realistic GenAI spans, BENCH_MB, generated into .bench/) imported
 * the two ways a user imports it, each into a fresh SQLite database:
 *
 * - the CLI: `node scripts/retrace.mjs import FILE`, its own process;
 * - the UI route: the file POSTed, with its length, as the browser's upload button sends it,
 *   to /api/imports of a running production server (`next start` of this checkout's build,
 *   on BENCH_PORT; run `node_modules/.bin/next build` first, or the route is skipped).
 *
 * Both go through one streaming path (importStream, lib/server/service.ts), so their peak
 * memory should be close: printed side by side are wall time, spans/s, the kernel's peak RSS
 * of the importing process (the CLI's maxRSS; the server's VmHWM, reset just before the
 * upload) and that peak above the process's idle RSS (the CLI's at start-up, before it loads
 * its code; the server's just before the upload). Each runs BENCH_REPEAT times (default 3,
 * round-robin); medians are printed. Then both databases must hold the same events.
 * The generated file is reused while it exists; delete .bench/otlp-genai-*.json* to regenerate.
 *
 * Then the OTLP receiver (receiveSpans, what POST /v1/traces calls after decoding), in this
 * process on a fresh SQLite database: 600 requests (BENCH_OTLP_REQUESTS) of 5 spans each to
 * one trace (an agent turn: turn > model call > HTTP call, tool call, model call; the root
 * span open until the end, as a BatchSpanProcessor exports a long agent run), each request
 * decoded from its JSON bytes and timed; printed: the first and last 100 requests' median and
 * mean, their ratio (the receiver is incremental: it should stay near 1, at most 1.5), and
 * the request that finally brings the root span (it derives the whole trace once).
 * BENCH_ONLY=otlp runs only this part.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";
import { writeBenchSection, type BenchFigure } from "./bench-report";
import { loadConfig } from "../lib/server/config";
import { openDb } from "../lib/server/db";
import { decodeOtlp, receiveSpans } from "../lib/server/otlp-receiver";
import { processTree } from "./bench-server";

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
// Measurements.

const PORT = Number(process.env.BENCH_PORT ?? 3190);
const CLI = path.resolve("scripts/retrace.mjs");
// Loaded into the CLI's process before it starts: its RSS at start-up and its peak at exit.
const preload = path.join(dir, "maxrss-preload.cjs");

interface Measured {
  ms: number;
  runs: number;
  events: number;
  errors: number;
  /** The kernel's peak RSS of the importing process. */
  peakRss: number;
  /** RSS of that process idle: the CLI at start-up, the server just before the upload. */
  idleRss: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freshDb(name: string): string {
  const dbFile = path.join(dir, `${name}.db`);
  for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) fs.rmSync(f, { force: true });
  const r = spawnSync(process.execPath, [CLI, "migrate"], { env: { ...process.env, DATABASE_URL: `file:${dbFile}` }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`migrate failed: ${r.stderr}`);
  return dbFile;
}

function summarise(answers: Array<{ runs?: Array<{ status: string; accepted: number }>; errors?: unknown[]; error?: string }>) {
  let runs = 0;
  let events = 0;
  let errors = 0;
  for (const a of answers) {
    for (const r of a.runs ?? []) {
      runs++;
      if (r.status === "stored") events += r.accepted;
    }
    errors += (a.errors?.length ?? 0) + (a.error ? 1 : 0);
  }
  return { runs, events, errors };
}

async function measureCli(): Promise<Measured & { dbFile: string }> {
  const dbFile = freshDb("import-cli");
  fs.writeFileSync(
    preload,
    `const rss0 = process.memoryUsage().rss;
process.on("exit", () => process.stderr.write("BENCH_RSS " + JSON.stringify({ idle: rss0, peak: process.resourceUsage().maxRSS * 1024 }) + "\\n"));\n`,
  );
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["-r", preload, CLI, "import", "--json", file], {
    env: { ...process.env, DATABASE_URL: `file:${dbFile}` },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const ms = performance.now() - t0;
  const rss = r.stderr.split("\n").find((l) => l.startsWith("BENCH_RSS "));
  if (!rss || r.status === null) throw new Error(`the CLI failed (exit ${r.status}):\n${r.stderr}`);
  const { idle, peak } = JSON.parse(rss.slice("BENCH_RSS ".length)) as { idle: number; peak: number };
  const answers = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Parameters<typeof summarise>[0][number]);
  return { ms, ...summarise(answers), peakRss: peak, idleRss: idle, dbFile };
}

function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

function request(pathname: string, body: { file: string } | string | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const size = body === null ? 0 : typeof body === "string" ? Buffer.byteLength(body) : fs.statSync(body.file).size;
    const req = http.request(
      {
        host: "127.0.0.1",
        port: PORT,
        path: pathname,
        method: body === null ? "GET" : "POST",
        // as XMLHttpRequest sends a File: its length declared, then the bytes
        headers: body === null ? {} : { "content-type": "application/octet-stream", "content-length": size },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (body === null) req.end();
    else if (typeof body === "string") req.end(body);
    else fs.createReadStream(body.file, { highWaterMark: 1 << 16 }).pipe(req);
  });
}

async function measureUi(): Promise<(Measured & { dbFile: string; processes: number }) | null> {
  if (!fs.existsSync(path.resolve(".next/BUILD_ID"))) return null;
  const dbFile = freshDb("import-ui");
  const server: ChildProcess = spawn(path.resolve("node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(PORT)], {
    env: { ...process.env, DATABASE_URL: `file:${dbFile}`, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  server.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  try {
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`next start exited (${server.exitCode}):\n${stderr}`);
      const ok = await request("/api/health", null).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (i > 600) throw new Error(`next start did not answer on port ${PORT}:\n${stderr}`);
      await sleep(100);
    }
    // The route's code loaded and the database opened, as for any upload after the first.
    const warm = `{"run":"bench-warm-up","seq":0,"ts":"2026-11-07T11:00:00.000Z","type":"run.start","data":{}}\n`;
    if ((await request("/api/imports?name=warm.jsonl", warm)).status !== 201) throw new Error("the warm-up upload failed");
    await sleep(500);
    const pids = processTree(server.pid!);
    // Reset each process's peak RSS to its current RSS (Linux clear_refs 5), so VmHWM is the upload's peak.
    for (const p of pids) fs.writeFileSync(`/proc/${p}/clear_refs`, "5");
    const idle = pids.reduce((n, p) => n + statusKb(p, "VmRSS"), 0);
    const t0 = performance.now();
    const res = await request(`/api/imports?name=${encodeURIComponent(path.basename(file))}`, { file });
    const ms = performance.now() - t0;
    const peak = pids.reduce((n, p) => n + statusKb(p, "VmHWM"), 0);
    if (res.status >= 300) throw new Error(`the upload answered ${res.status}: ${res.text.slice(0, 500)}`);
    const answer = JSON.parse(res.text) as Parameters<typeof summarise>[0][number];
    return { ms, ...summarise([answer]), peakRss: peak, idleRss: idle, dbFile, processes: pids.length };
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => (server.exitCode !== null ? r(null) : server.once("exit", r)));
  }
}

function digest(dbFile: string, skipRun?: string): { events: number; sha: string } {
  const db = new Database(dbFile, { readonly: true });
  const hash = createHash("sha256");
  let events = 0;
  for (const row of db.prepare(`SELECT "runId", "seq", "body" FROM "Event" ORDER BY "runId", "seq"`).iterate() as Iterable<{
    runId: string;
    seq: number;
    body: string;
  }>) {
    if (row.runId === skipRun) continue;
    hash.update(`${row.runId}\t${row.seq}\t${row.body}\n`);
    events++;
  }
  db.close();
  return { events, sha: hash.digest("hex").slice(0, 16) };
}

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

// ---------------------------------------------------------------------------------------
// The OTLP receiver: many small requests to one trace.

const OTLP_REQUESTS = Math.max(200, Number(process.env.BENCH_OTLP_REQUESTS ?? 600));

/** Request i: one agent turn of 5 spans under the (still open) root, as an exporter sends it. */
function turnRequest(traceId: string, rootId: string, i: number, t0: bigint): Uint8Array {
  const ms = 1_000_000n;
  const t = t0 + BigInt(i) * 100n * ms;
  const turn = hex(8);
  const llm1 = hex(8);
  const callId = `call_${i}`;
  const span = (spanId: string, parent: string, name: string, a: bigint, b: bigint, attributes: Attr[], status = 1) => ({
    traceId,
    spanId,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: (t + a * ms).toString(),
    endTimeUnixNano: (t + b * ms).toString(),
    attributes,
    status: { code: status },
  });
  const messages = JSON.stringify([{ role: "user", content: sentence(12) }]);
  const spans = [
    span(hex(8), llm1, "POST /v1/chat/completions", 2n, 38n, [s("http.request.method", "POST"), int("http.response.status_code", 200)]),
    span(llm1, turn, "chat gpt-4.1-mini", 1n, 40n, [
      s("gen_ai.operation.name", "chat"),
      s("gen_ai.request.model", "gpt-4.1-mini"),
      s("gen_ai.input.messages", messages),
      s(
        "gen_ai.output.messages",
        JSON.stringify([
          { role: "assistant", parts: [{ type: "tool_call", id: callId, name: "search_orders", arguments: { q: sentence(4) } }] },
        ]),
      ),
      int("gen_ai.usage.input_tokens", 300 + i),
      int("gen_ai.usage.output_tokens", 20),
    ]),
    span(hex(8), turn, "execute_tool search_orders", 40n, 60n, [
      s("gen_ai.operation.name", "execute_tool"),
      s("gen_ai.tool.name", "search_orders"),
      s("gen_ai.tool.call.id", callId),
      s("gen_ai.tool.call.arguments", JSON.stringify({ q: sentence(4) })),
      s("gen_ai.tool.call.result", JSON.stringify({ items: [sentence(10)] })),
    ]),
    span(hex(8), turn, "chat gpt-4.1-mini", 60n, 95n, [
      s("gen_ai.operation.name", "chat"),
      s("gen_ai.request.model", "gpt-4.1-mini"),
      s("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: sentence(20) }] }])),
    ]),
    span(turn, rootId, `turn ${i}`, 0n, 99n, [s("gen_ai.operation.name", "invoke_workflow")]),
  ];
  const body = {
    resourceSpans: [{ resource: { attributes: [s("service.name", "bench-agent")] }, scopeSpans: [{ scope: { name: "bench" }, spans }] }],
  };
  return new TextEncoder().encode(JSON.stringify(body));
}

async function benchOtlpReceiver(): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const dbFile = freshDb("otlp-receiver");
  const db = openDb(loadConfig({ ...process.env, DATABASE_URL: `file:${dbFile}` }));
  const traceId = hex(16);
  const rootId = hex(8);
  const t0 = 1_770_000_000_000_000_000n;
  const times: number[] = [];
  // CPU time of the process (all its threads) a request: less moved by other work on a shared machine
  const cpuTimes: number[] = [];
  try {
    for (let i = 0; i < OTLP_REQUESTS; i++) {
      const bytes = turnRequest(traceId, rootId, i, t0);
      const start = performance.now();
      const cpu0 = process.cpuUsage();
      const spans = decodeOtlp(bytes, "application/json");
      const r = await receiveSpans(db, spans, "default", { contentType: "application/json" });
      times.push(performance.now() - start);
      const cpu = process.cpuUsage(cpu0);
      cpuTimes.push((cpu.user + cpu.system) / 1000);
      if (r.rejected > 0 || r.runs.length !== 1) throw new Error(`request ${i} was refused: ${JSON.stringify(r)}`);
    }
    const root = {
      resourceSpans: [
        {
          resource: { attributes: [s("service.name", "bench-agent")] },
          scopeSpans: [
            {
              scope: { name: "bench" },
              spans: [
                {
                  traceId,
                  spanId: rootId,
                  name: "invoke_agent bench-agent",
                  kind: 1,
                  startTimeUnixNano: t0.toString(),
                  endTimeUnixNano: (t0 + BigInt(OTLP_REQUESTS) * 100_000_000n).toString(),
                  attributes: [s("gen_ai.operation.name", "invoke_agent"), s("gen_ai.agent.name", "bench-agent")],
                  status: { code: 1 },
                },
              ],
            },
          ],
        },
      ],
    };
    const start = performance.now();
    await receiveSpans(db, decodeOtlp(new TextEncoder().encode(JSON.stringify(root)), "application/json"), "default");
    const rootMs = performance.now() - start;
    const events = await db.sql.all<{ n: number; live: number }>(`SELECT "eventCount" AS "n", "live" FROM "Run" WHERE "id" = ?`, [
      `otel-${traceId}`,
    ]);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = times.slice(0, 100);
    const last = times.slice(-100);
    const ratio = median(last) / median(first);
    const cpuRatio = median(cpuTimes.slice(-100)) / median(cpuTimes.slice(0, 100));
    console.log(
      `OTLP receiver, ${OTLP_REQUESTS} requests of 5 spans to one trace: first 100 median ${median(first).toFixed(2)} ms (mean ${mean(first).toFixed(2)}), ` +
        `last 100 median ${median(last).toFixed(2)} ms (mean ${mean(last).toFixed(2)}); last/first ${ratio.toFixed(2)} (mean ${(mean(last) / mean(first)).toFixed(2)}); ` +
        `CPU time last/first ${cpuRatio.toFixed(2)} (medians ${median(cpuTimes.slice(0, 100)).toFixed(2)} and ${median(cpuTimes.slice(-100)).toFixed(2)} ms); ` +
        `the root span's request ${rootMs.toFixed(1)} ms; ${fmt(Number(events[0]?.n ?? 0))} events`,
    );
    if (ratio > 1.5) process.exitCode = 1;
    return {
      figures: [
        {
          label: `OTLP receiver, first 100 of ${OTLP_REQUESTS} requests (5 spans each, one trace), median`,
          value: median(first),
          unit: "ms",
        },
        {
          label: `OTLP receiver, last 100 of ${OTLP_REQUESTS} requests, median`,
          value: median(last),
          unit: "ms",
          baseline: { label: "first 100", value: median(first) },
        },
        {
          label: `OTLP receiver, CPU time of the last 100 requests, median`,
          value: median(cpuTimes.slice(-100)),
          unit: "ms",
          baseline: { label: "first 100", value: median(cpuTimes.slice(0, 100)) },
        },
        { label: "OTLP receiver, the request bringing the root span (derives the whole trace once)", value: rootMs, unit: "ms" },
      ],
      notes: [
        `OTLP receiver: ${OTLP_REQUESTS} requests of 5 spans, then the root span; ${fmt(Number(events[0]?.n ?? 0))} events stored. Goal: last/first <= 1.5.`,
      ],
    };
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY === "otlp") return otlpSection();
  const t = performance.now();
  const meta = generate();
  console.log(
    `${path.relative(process.cwd(), file)}: ${mb(meta.bytes)}, ${fmt(meta.traces)} traces, ${fmt(meta.spans)} spans (ready in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );
  // the CLI's bundle is built once, outside the measurement
  spawnSync(process.execPath, [CLI, "--help"], { stdio: "ignore" });

  const cli: Array<Awaited<ReturnType<typeof measureCli>>> = [];
  const ui: Array<NonNullable<Awaited<ReturnType<typeof measureUi>>>> = [];
  let uiSkipped = false;
  for (let i = 0; i < REPEAT; i++) {
    cli.push(await measureCli());
    const u = await measureUi();
    if (u) ui.push(u);
    else uiSkipped = true;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const med = (all: Measured[]): Measured => ({
    ...all[0],
    ms: median(all.map((x) => x.ms)),
    peakRss: median(all.map((x) => x.peakRss)),
    idleRss: median(all.map((x) => x.idleRss)),
  });
  console.log(`${"".padEnd(52)}${"time".padStart(9)}${"spans/s".padStart(10)}${"peak RSS".padStart(10)}${"above idle".padStart(12)}`);
  const line = (label: string, all: Measured[]) => {
    const r = med(all);
    const range =
      all.length > 1
        ? `  (peak ${mb(Math.min(...all.map((x) => x.peakRss)))}–${mb(Math.max(...all.map((x) => x.peakRss)))}, time ${(Math.min(...all.map((x) => x.ms)) / 1000).toFixed(1)}–${(Math.max(...all.map((x) => x.ms)) / 1000).toFixed(1)} s)`
        : "";
    console.log(
      `${label.padEnd(52)}${`${(r.ms / 1000).toFixed(2)} s`.padStart(9)}${fmt((meta.spans / r.ms) * 1000).padStart(10)}` +
        `${mb(r.peakRss).padStart(10)}${mb(r.peakRss - r.idleRss).padStart(12)}` +
        `   ${r.runs} runs, ${fmt(r.events)} events${all.some((x) => x.errors) ? ", ERRORS" : ""}${range}`,
    );
    return r;
  };
  const c = line("import, CLI (retrace import FILE)", cli);
  if (uiSkipped || ui.length === 0) {
    console.log("import, UI route: skipped (no production build: run node_modules/.bin/next build first)");
    await otlpSection();
    return;
  }
  const u = line("import, UI route (POST /api/imports, next start)", ui);
  if (ui[0].processes > 1) console.log(`  (the server ran as ${ui[0].processes} processes; their peaks are summed)`);
  console.log(
    `UI route / CLI: peak RSS ${(u.peakRss / c.peakRss).toFixed(2)}, above idle ${((u.peakRss - u.idleRss) / (c.peakRss - c.idleRss)).toFixed(2)}, time ${(u.ms / c.ms).toFixed(2)}`,
  );
  const a = digest(cli[cli.length - 1].dbFile);
  const b = digest(ui[ui.length - 1].dbFile, "bench-warm-up");
  const same = a.sha === b.sha && a.events === b.events;
  console.log(`stored events identical: ${same ? "yes" : "NO"} (${fmt(a.events)} events, sha256 ${a.sha})`);
  const MiB = 1024 * 1024;
  const figures: BenchFigure[] = [
    { label: "CLI import, wall time", value: Math.round(c.ms), unit: "ms" },
    { label: "UI route import, wall time", value: Math.round(u.ms), unit: "ms", baseline: { label: "CLI", value: Math.round(c.ms) } },
    { label: "CLI import, peak RSS", value: Math.round(c.peakRss / MiB), unit: "MB" },
    {
      label: "UI route import, peak server RSS",
      value: Math.round(u.peakRss / MiB),
      unit: "MB",
      baseline: { label: "CLI", value: Math.round(c.peakRss / MiB) },
    },
    {
      label: "UI route import, peak above idle",
      value: Math.round((u.peakRss - u.idleRss) / MiB),
      unit: "MB",
      baseline: { label: "CLI", value: Math.round((c.peakRss - c.idleRss) / MiB) },
    },
  ];
  writeBenchSection("import", {
    title: `Trace import, ${mb(meta.bytes)} of OTLP JSON: CLI vs the UI's upload route`,
    command: "npm run bench:import",
    figures,
    notes: [
      `${fmt(meta.spans)} spans in ${fmt(meta.traces)} traces; medians of ${REPEAT} runs. Stored events identical: ${same ? "yes" : "NO"}.`,
    ],
  });
  if (!same || c.errors || u.errors) process.exitCode = 1;
  await otlpSection();
}

async function otlpSection(): Promise<void> {
  const otlp = await benchOtlpReceiver();
  writeBenchSection("import-otlp", {
    title: "OTLP receiver: many small requests to one trace",
    command: "npm run bench:import (BENCH_ONLY=otlp for this part alone)",
    ...otlp,
  });
}

await main();
