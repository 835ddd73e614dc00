/**
 * What the model-API gateway (`retrace record`) adds to a model call, against the same
 * fake upstream (tests/gateway/fakes) reached directly, in one run: ms per non-streamed
 * request, and to a streamed answer's first text delta and its last byte. Laminar's
 * recording proxy (@lmnr-ai/claude-code-proxy, Rust, from packages/test-clients) is
 * measured in the same run as the field's anchor. Then replay's requests per second: an
 * agent of N requests recorded through the gateway, and replayed from the journal with no
 * upstream. Requests alternate between the targets one by one, so the shared machine's
 * load falls on all of them alike. Writes docs/benchmarks.json (section "gateway").
 *
 *   npm run bench:gateway [-- --requests N] [-- --replay N]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startFake } from "../tests/gateway/fakes/index.ts";
import { pieces } from "../tests/gateway/fakes/wire.ts";
import { TEST_CLIENTS_DIR } from "../tests/gateway/test-clients.ts";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "300" }, replay: { type: "string", default: "400" } },
});
const N = Number(values.requests);
const REPLAY_N = Number(values.replay);
const ROOT = path.resolve(import.meta.dirname, "..");
const RETRACE = path.join(ROOT, "scripts/retrace.mjs");
const DELAY_MS = 2;
const ANSWER =
  "The fake upstream answers with forty words or so, cut into pieces of three words, each its own text delta, so that a streamed answer has a first chunk well before its last one and the pacing between them is what a client sees.";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-gateway-"));
const children: ChildProcess[] = [];

interface Target {
  label: string;
  url: string;
  plain: number[];
  first: number[];
  last: number[];
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await (await fetch(`${url}/`, { method: "HEAD" })).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

function request(stream: boolean): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-bench", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "claude-fake-1",
      max_tokens: 256,
      stream,
      messages: [{ role: "user", content: "Say something." }],
    }),
  };
}

async function plainOnce(target: Target): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${target.url}/v1/messages`, request(false));
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${target.label}: HTTP ${res.status}`);
  return ms(t0);
}

/** ms to the first text delta and to the stream's end */
async function streamOnce(target: Target): Promise<[number, number]> {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${target.url}/v1/messages`, request(true));
  if (res.status !== 200 || !res.body) throw new Error(`${target.label}: HTTP ${res.status}`);
  const decoder = new TextDecoder();
  let seen = "";
  let first = -1;
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (first < 0) {
      seen += decoder.decode(read.value, { stream: true });
      if (seen.includes("text_delta")) first = ms(t0);
    }
  }
  if (first < 0) throw new Error(`${target.label}: no text delta in the stream`);
  return [first, ms(t0)];
}

async function measure(targets: Target[]): Promise<void> {
  const warm = 20;
  for (let i = 0; i < warm + N; i++) {
    for (const target of targets) {
      const plain = await plainOnce(target);
      const [first, last] = await streamOnce(target);
      if (i < warm) continue;
      target.plain.push(plain);
      target.first.push(first);
      target.last.push(last);
    }
  }
}

function retraceAvailable(verb: string): boolean {
  return spawnSync(process.execPath, [RETRACE, verb, "--help"], { encoding: "utf8" }).status === 0;
}

/** `retrace record` holding a command that waits for STOP, so the bench can use its gateway */
async function startGateway(upstream: string, journal: string, stop: string): Promise<{ url: string; done: Promise<number | null> }> {
  const port = await freePort();
  const hold = `const f=process.argv[1];setInterval(()=>{if(require("fs").existsSync(f))process.exit(0)},50)`;
  const child = spawn(
    process.execPath,
    [
      RETRACE,
      "record",
      "--out",
      journal,
      "--port",
      String(port),
      "--upstream",
      `anthropic=${upstream}`,
      "--",
      process.execPath,
      "-e",
      hold,
      stop,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  children.push(child);
  const done = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await waitUp(url);
  return { url, done };
}

/** the agent run under `retrace VERB …` (not spawnSync: the fake answers in this process); its own wall time, ms */
async function runAgent(args: string[], count: number): Promise<{ ms: number; status: number | null; stdout: string }> {
  const out = path.join(tmp, `agent-${args[0]}.ms`);
  const agent = [process.execPath, path.join(ROOT, "scripts/bench-gateway-agent.mjs"), String(count), out];
  const child = spawn(process.execPath, [RETRACE, ...args, "--", ...agent], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  const [status] = (await once(child, "exit")) as [number | null];
  const time = fs.existsSync(out) ? Number(fs.readFileSync(out, "utf8")) : NaN;
  return { ms: time, status, stdout };
}

async function main(): Promise<void> {
  // every request is a "side request" to the fake: the same answer, however many are sent
  const fake = await startFake("anthropic", [], { delayMs: DELAY_MS, isSide: () => true, sideText: ANSWER });
  const targets: Target[] = [{ label: "direct", url: fake.url, plain: [], first: [], last: [] }];

  const { ProxyServer } = createRequire(path.join(TEST_CLIENTS_DIR, "package.json"))("@lmnr-ai/claude-code-proxy") as {
    ProxyServer: new (port: number) => { runServer(url: string): void; stopServer(timeout?: number): void };
  };
  const laminarPort = await freePort();
  const laminar = new ProxyServer(laminarPort);
  laminar.runServer(fake.url);
  targets.push({ label: "Laminar proxy", url: `http://127.0.0.1:${laminarPort}`, plain: [], first: [], last: [] });
  await waitUp(targets[1].url);

  const notes: string[] = [];
  const stop = path.join(tmp, "stop");
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  if (retraceAvailable("record")) {
    gateway = await startGateway(fake.url, path.join(tmp, "bench.jsonl"), stop);
    targets.push({ label: "retrace gateway (record)", url: gateway.url, plain: [], first: [], last: [] });
  } else {
    notes.push("`retrace record` is not in this checkout: the gateway's figures are missing from this run.");
  }

  await measure(targets);
  fs.writeFileSync(stop, "");
  await gateway?.done;
  laminar.stopServer(1);

  const direct = targets[0];
  const figures: BenchFigure[] = [];
  for (const target of targets) {
    for (const [what, key] of [
      ["request, not streamed", "plain"],
      ["streamed answer, first text delta", "first"],
      ["streamed answer, last byte", "last"],
    ] as const) {
      const value = median(target[key]);
      if (target === direct) {
        figures.push({ label: `direct to the fake upstream: ${what}, median`, value, unit: "ms" });
      } else {
        figures.push({
          label: `${target.label}: ${what}, median`,
          value,
          unit: "ms",
          baseline: { label: "direct", value: median(direct[key]) },
        });
        figures.push({
          label: `${target.label}: added to a ${what} (difference of medians)`,
          value: value - median(direct[key]),
          unit: "ms",
        });
      }
    }
  }

  if (retraceAvailable("record") && retraceAvailable("replay")) {
    const journal = path.join(tmp, "replay-source.jsonl");
    // an upstream that streams without pauses: the figure is the replay's own pace
    const unpaced = await startFake("anthropic", [], { isSide: () => true, sideText: ANSWER });
    const recorded = await runAgent(["record", "--out", journal, "--upstream", `anthropic=${unpaced.url}`], REPLAY_N);
    await Promise.all([unpaced.close(), fake.close()]);
    const replayed = await runAgent(["replay", journal, "--json"], REPLAY_N);
    if (recorded.status !== 0 || replayed.status !== 0) {
      notes.push(`replay: record exited ${recorded.status}, replay exited ${replayed.status} (${replayed.stdout.trim().slice(0, 300)})`);
    } else {
      figures.push({
        label: `replay from a journal, ${REPLAY_N} requests (half streamed), one agent, sequential`,
        value: (REPLAY_N / replayed.ms) * 1000,
        unit: "requests/s",
        baseline: { label: "the same agent recording against the fake", value: (REPLAY_N / recorded.ms) * 1000 },
      });
    }
  } else {
    await fake.close();
    notes.push("`retrace replay -- CMD` is not in this checkout: no replay figure in this run.");
  }

  for (const f of figures) console.log(`${f.label}: ${f.value.toFixed(2)} ${f.unit}`);
  writeBenchSection("gateway", {
    title: "Model-API gateway: time added per request and per stream, replay throughput",
    command: "npm run bench:gateway",
    figures,
    notes: [
      `${N} rounds after 20 of warm-up; each round sends one non-streamed and one streamed Anthropic Messages request to each target in turn (Node fetch, keep-alive). The fake upstream (tests/gateway/fakes) runs in the bench's process and streams ${pieces(ANSWER).length + 6} events (${pieces(ANSWER).length} text deltas) ${DELAY_MS} ms apart; Laminar's proxy runs in a native thread of the same process, the gateway in its own process (\`retrace record\` with a command that waits). "First text delta" is the first read holding a text_delta; "last byte" the end of the stream.`,
      "Replay: scripts/bench-gateway-agent.mjs sends its requests one after another; recorded through `retrace record` against a fake that streams without pauses, then replayed with `retrace replay JOURNAL -- …` with the fake closed. Its wall time counts from its first request to its last answer (not the gateway's start-up).",
      ...notes,
    ],
  });
}

try {
  await main();
} finally {
  for (const child of children) if (child.exitCode === null) child.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
