/**
 * `retrace mcp-proxy --listen` refuses what is not a loopback MCP client's request: another
 * Host or Origin (DNS rebinding) gets 403, a missing or unknown session 400 or 404, a body
 * that is not JSON-RPC 400 with JSON-RPC's own error, a bad port a usage error (exit 2).
 * Nothing of it reaches the server (the journal holds no MCP event).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MEMORY_SERVER, RETRACE } from "./support.ts";

let proxy: ChildProcess;
let url: URL;
let journal: string;

beforeAll(async () => {
  const root = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-listen-"));
  journal = path.join(root, "j.jsonl");
  proxy = spawn(RETRACE[0], [...RETRACE.slice(1), "mcp-proxy", "--listen", "0", "--out", journal, "--", ...MEMORY_SERVER], {
    env: { ...process.env, MEMORY_FILE_PATH: path.join(root, "memory.jsonl") },
    stdio: ["ignore", "ignore", "pipe"],
  });
  url = await new Promise<URL>((resolve, reject) => {
    let err = "";
    proxy.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = err.match(/listening on (http:\/\/\S+)/);
      if (m) resolve(new URL(m[1]));
    });
    proxy.on("exit", () => reject(new Error(err)));
  });
}, 60_000);

afterAll(() => {
  if (proxy.exitCode === null) proxy.kill("SIGTERM");
});

/** A raw request (fetch would not let the test set Host). */
function request(method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: url.port, path: url.pathname, method, headers }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const init = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("retrace mcp-proxy --listen refuses bad requests", () => {
  it("refuses a Host or an Origin that is not loopback (DNS rebinding)", async () => {
    expect((await request("POST", { ...json, host: "evil.example.com" }, init)).status).toBe(403);
    expect((await request("POST", { ...json, host: `127.0.0.1:${url.port}`, origin: "http://evil.example.com" }, init)).status).toBe(403);
  });

  it("asks for a session: missing 400, unknown 404", async () => {
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect((await request("POST", json, list)).status).toBe(400);
    expect((await request("POST", { ...json, "mcp-session-id": "no-such-session" }, list)).status).toBe(404);
    expect((await request("GET", { accept: "text/event-stream", "mcp-session-id": "no-such-session" })).status).toBe(404);
  });

  it("answers a body that is not JSON-RPC with 400 and JSON-RPC's error code", async () => {
    const notJson = await request("POST", json, "{ not json");
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body)).toMatchObject({ id: null, error: { code: -32700 } });
    const notRpc = await request("POST", json, JSON.stringify({ hello: "world" }));
    expect(notRpc.status).toBe(400);
    expect(JSON.parse(notRpc.body)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("records none of it: the journal holds the run's start and end only", async () => {
    proxy.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => proxy.on("exit", resolve));
    expect(code).toBe(0);
    const types = fs
      .readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(["run.start", "run.end"]);
  });

  it("refuses a port that is not one (exit 2, usage)", () => {
    const r = spawnSync(RETRACE[0], [...RETRACE.slice(1), "mcp-proxy", "--listen", "http", "--out", "x.jsonl", "--", "true"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--listen needs a port number from 0 to 65535, not "http"');
  });
});
