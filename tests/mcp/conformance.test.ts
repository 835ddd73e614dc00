/**
 * Issue 30, "Must show": `@modelcontextprotocol/conformance` (from npm) run against
 * `retrace mcp-proxy --listen` in front of a conforming server passes every check the
 * server passes on its own. The server is `@modelcontextprotocol/server-everything` (npm,
 * unmodified): the suite runs first against it directly (Streamable HTTP), and the checks
 * it passes there are the expectation; then through the proxy recording with `--out`, in
 * front of the same server over HTTP and in front of a second copy of it over stdio.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { importClient, TEST_CLIENTS_DIR } from "../gateway/test-clients.ts";
import { RETRACE } from "./support.ts";

const MODULES = path.join(TEST_CLIENTS_DIR, "node_modules", "@modelcontextprotocol");
const CONFORMANCE = path.join(MODULES, "conformance", "dist", "index.js");
const EVERYTHING = path.join(MODULES, "server-everything", "dist", "index.js");

interface Check {
  id: string;
  status: string;
}

/** `scenario/check` → status, from the suite's results folder (one folder per scenario, each with checks.json). */
function readResults(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const sub of fs.readdirSync(dir)) {
    const file = path.join(dir, sub, "checks.json");
    if (!fs.existsSync(file)) continue;
    // folder: server-<scenario>-<ISO time with dashes>
    const scenario = sub.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    for (const c of JSON.parse(fs.readFileSync(file, "utf8")) as Check[]) {
      const k = `${scenario}/${c.id}`;
      // a check id seen twice in a scenario passes only if it passes every time
      if (out.get(k) !== "FAILURE") out.set(k, c.status);
    }
  }
  return out;
}

const passed = (r: Map<string, string>) => [...r].filter(([, s]) => s === "SUCCESS").map(([k]) => k);

function runSuite(url: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONFORMANCE, "server", "--url", url, "-o", outDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `argv`, resolves once a stderr line matches `ready` (with the match). */
function start(
  argv: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = err.match(ready);
      if (m) resolve({ child, match: m, stderr: () => err });
    });
    child.on("exit", (code) => reject(new Error(`${argv.join(" ")} exited ${code} before it was ready:\n${err}`)));
  });
}

const exited = (c: ChildProcess): Promise<number | null> =>
  c.exitCode !== null ? Promise.resolve(c.exitCode) : new Promise((resolve) => c.on("exit", (code) => resolve(code)));

let root: string;
let server: ChildProcess;
let serverUrl: string;
let direct: Map<string, string>;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-conformance-"));
  const port = await freePort();
  server = (await start([process.execPath, EVERYTHING, "streamableHttp"], { PORT: String(port) }, /listening on port/)).child;
  serverUrl = `http://127.0.0.1:${port}/mcp`;
  await runSuite(serverUrl, path.join(root, "direct"));
  direct = readResults(path.join(root, "direct"));
}, 60_000);

afterAll(() => {
  server?.kill("SIGTERM");
});

/** Runs the suite through `mcp-proxy --listen 0 --out JOURNAL …upstream`, then stops the proxy. */
async function throughProxy(name: string, upstream: string[]) {
  const journal = path.join(root, `${name}.jsonl`);
  const proxy = await start([...RETRACE, "mcp-proxy", "--listen", "0", "--out", journal, ...upstream], {}, /listening on (http:\/\/\S+)/);
  const suite = await runSuite(proxy.match[1], path.join(root, name));
  proxy.child.kill("SIGTERM");
  const code = await exited(proxy.child);
  const events = fs
    .readFileSync(journal, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
  return { results: readResults(path.join(root, name)), suite, code, events, stderr: proxy.stderr() };
}

describe("@modelcontextprotocol/conformance through retrace mcp-proxy --listen", () => {
  it("the server on its own passes checks (the expectation is not empty)", () => {
    // a baseline with nothing passed would make the comparisons below say nothing
    expect(passed(direct).length).toBeGreaterThan(5);
    expect(passed(direct)).toContain("server-initialize/server-initialize");
  });

  for (const [name, upstream] of [
    ["http", () => ["--upstream", serverUrl]],
    ["stdio", () => ["--", process.execPath, EVERYTHING, "stdio"]],
  ] as const) {
    it(`in front of the server over ${name}, the proxy passes every check the server passes, and records the tool calls`, async () => {
      const via = await throughProxy(name, upstream());
      const lost = passed(direct).filter((k) => via.results.get(k) !== "SUCCESS");
      expect(lost, `${via.suite.output}\n${via.stderr}`).toEqual([]);
      expect(via.code).toBe(0);

      // the recording: one run, every tool call answered, the count said at its end
      const calls = via.events.filter((e) => e.type === "tool.call");
      const results = via.events.filter((e) => e.type === "tool.result");
      expect(calls.length).toBeGreaterThan(0);
      expect(results.map((e) => e.data.call).sort()).toEqual(calls.map((e) => e.data.call).sort());
      expect(calls.map((e) => e.data.tool)).toContain("test_simple_text");
      const end = via.events.at(-1)!;
      expect(end.type).toBe("run.end");
      expect((end.data.output as { toolCalls: number }).toolCalls).toBe(calls.length);
    }, 90_000);
  }

  it("passes what the server sends in the middle of a call (progress, a sampling request) both ways, over HTTP", async () => {
    // the conformance suite's own sampling and progress scenarios name tools server-everything
    // does not have; its trigger-* tools do the same with their own names
    const journal = path.join(root, "mid-call.jsonl");
    const proxy = await start(
      [...RETRACE, "mcp-proxy", "--listen", "0", "--out", journal, "--upstream", serverUrl],
      {},
      /listening on (http:\/\/\S+)/,
    );
    interface SdkClient {
      connect(t: unknown): Promise<void>;
      setRequestHandler(schema: unknown, h: (req: { params: { messages: Array<{ content: { text?: string } }> } }) => unknown): void;
      callTool(
        req: object,
        schema?: unknown,
        opts?: { onprogress?: (p: { progress: number }) => void },
      ): Promise<{ content: Array<{ text?: string }> }>;
      close(): Promise<void>;
    }
    const { Client } = await importClient<{ Client: new (info: object, opts: object) => SdkClient }>(
      "@modelcontextprotocol/sdk/client/index.js",
    );
    const { StreamableHTTPClientTransport } = await importClient<{ StreamableHTTPClientTransport: new (u: URL) => unknown }>(
      "@modelcontextprotocol/sdk/client/streamableHttp.js",
    );
    const { CreateMessageRequestSchema } = await importClient<Record<string, unknown>>("@modelcontextprotocol/sdk/types.js");
    const client = new Client({ name: "retrace-mid-call", version: "1.0.0" }, { capabilities: { sampling: {} } });
    const asked: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (req) => {
      asked.push(req.params.messages.map((m) => m.content.text ?? "").join(""));
      return { model: "fake-model", role: "assistant", content: { type: "text", text: "an answer only this client knows" } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.match[1])));
    const progress: number[] = [];
    await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    const sampled = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say something" } });
    await client.close();
    proxy.child.kill("SIGTERM");
    expect(await exited(proxy.child)).toBe(0);

    expect(progress.length).toBe(2);
    expect(asked.join(" ")).toContain("say something");
    expect(sampled.content.map((c) => c.text).join("")).toContain("an answer only this client knows");
    const results = fs
      .readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; data: { result?: unknown } })
      .filter((e) => e.type === "tool.result");
    expect(results).toHaveLength(2);
    expect(JSON.stringify(results[1].data.result)).toContain("an answer only this client knows");
  }, 60_000);
});
