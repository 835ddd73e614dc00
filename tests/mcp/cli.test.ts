/**
 * `retrace mcp-proxy` given bad input, as a user or a broken client would give it: usage
 * mistakes exit 2 naming the mistake, a server that cannot be started exits 1 with a run
 * that says it failed, and a client line that is not JSON-RPC is answered with JSON-RPC's
 * own error (id null) while the next good line is still answered.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { RETRACE } from "./support.ts";

function proxy(args: string[], stdin: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(RETRACE[0], [RETRACE[1], "mcp-proxy", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let dir: string;
let journal: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-cli-"));
  journal = path.join(dir, "run.jsonl");
  // a one-call recording, written as the proxy writes it (no chain hashes needed to answer)
  const events = [
    { type: "run.start", data: { workflow: { name: "mcp:s" } } },
    {
      type: "x-mcp.tools",
      data: { server: "s", cursor: null, result: { tools: [{ name: "lookup", annotations: { readOnlyHint: true } }] } },
    },
    { type: "tool.call", data: { call: "mcp:s:a:1", tool: "lookup", args: { q: 1 }, effect: "read", mcp: { server: "s" } } },
    {
      type: "tool.result",
      parent: 2,
      data: { call: "mcp:s:a:1", status: "ok", result: [{ type: "text", text: "one" }], mcp: { server: "s" } },
    },
    { type: "run.end", data: { status: "succeeded" } },
  ];
  fs.writeFileSync(
    journal,
    events.map((e, seq) => JSON.stringify({ run: "r", seq, ts: `2026-12-07T00:00:0${seq}.000Z`, ...e })).join("\n") + "\n",
  );
});

describe("retrace mcp-proxy with bad input", () => {
  it("usage mistakes exit 2 and say which", async () => {
    expect(await proxy([], "")).toMatchObject({ status: 2, stderr: expect.stringContaining("no server given") });
    expect(await proxy(["--replay", journal, "--out", "x.jsonl"], "")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("records nothing"),
    });
    expect(await proxy(["--upstream", "ftp://x"], "")).toMatchObject({ status: 2, stderr: expect.stringContaining("http(s) URL") });
    expect(await proxy(["--replay", journal, "--live-reads"], "")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("needs the real server"),
    });
    expect(await proxy(["--replay", path.join(dir, "none.jsonl")], "")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("no such file"),
    });
  });

  it("a server that cannot be started: exit 1, and the run says it failed", async () => {
    const out = path.join(dir, "failed.jsonl");
    const r = await proxy(["--out", out, "--", path.join(dir, "no-such-server")], "");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot start");
    const end = JSON.parse(fs.readFileSync(out, "utf8").trim().split("\n").pop()!) as { type: string; data: { status: string } };
    expect(end).toMatchObject({ type: "run.end", data: { status: "failed" } });
  });

  it("a line that is not JSON-RPC gets -32700 or -32600 with its line number; the next request is answered", async () => {
    const lines = [
      "garbage",
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"q":1}}}',
    ];
    const r = await proxy(["--replay", journal], lines.join("\n") + "\n");
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringContaining("line 1") } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("line 2") } },
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "one" }] } },
    ]);
    expect(r.status).toBe(0);
  });
});
