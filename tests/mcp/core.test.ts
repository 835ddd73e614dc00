/**
 * lib/mcp's pure core: the events an MCP session becomes (issue 30), and a replay answered
 * from them through lib/playback: in order, a write never handed to a server, a call
 * outside the recording a divergence at the right seq, an unknown outcome left unknown.
 */
import { describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { McpRecorder, McpReplayer, parseLine, readMcpRecording, RPC, toolEffect, type JsonRpcRequest } from "@/lib/mcp";

const TOOLS = [
  { name: "read_file", annotations: { readOnlyHint: true } },
  { name: "write_file", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  { name: "lookup" }, // no annotations: inferred (a read by its verb)
  { name: "send_invoice" }, // no annotations: inferred (a write by its verb)
];

/** Records a scripted session into an in-memory journal, returns its events. */
async function recordSession(
  script: Array<{ method: string; params?: Record<string, unknown>; result?: Record<string, unknown>; cancel?: boolean }>,
): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  const append = async (type: string, data: Record<string, unknown>, parent?: number) => {
    const seq = events.length;
    events.push({
      run: "r1",
      seq,
      ts: "2026-12-07T00:00:00.000Z",
      type,
      data,
      ...(parent === undefined ? {} : { parent }),
    } as JournalEvent);
    return seq;
  };
  const rec = new McpRecorder("fs", append, "abc");
  let id = 0;
  for (const step of script) {
    const req: JsonRpcRequest = { jsonrpc: "2.0", id: ++id, method: step.method, params: step.params };
    rec.request(req);
    if (step.cancel) rec.cancelled(req.id, "client timed out");
    else rec.response({ jsonrpc: "2.0", id: req.id, result: step.result ?? {} });
  }
  await rec.close();
  return events;
}

const text = (t: string) => ({ content: [{ type: "text", text: t }] });

const SESSION = [
  {
    method: "initialize",
    params: { protocolVersion: "2025-06-18", clientInfo: { name: "t", version: "1" } },
    result: { protocolVersion: "2025-06-18", serverInfo: { name: "fs", version: "9" }, capabilities: { tools: {} } },
  },
  { method: "tools/list", params: {}, result: { tools: TOOLS } },
  { method: "tools/call", params: { name: "read_file", arguments: { path: "/a" } }, result: text("A1") },
  { method: "tools/call", params: { name: "write_file", arguments: { path: "/b", content: "x" } }, result: text("wrote /b") },
  { method: "tools/call", params: { name: "read_file", arguments: { path: "/a" } }, result: text("A2") },
  { method: "tools/call", params: { name: "send_invoice", arguments: { to: "bob" } }, result: { ...text("denied"), isError: true } },
  { method: "tools/call", params: { name: "send_invoice", arguments: { to: "eve" } }, cancel: true },
];

describe("recording an MCP session", () => {
  it("maps initialize, tools/list and each tools/call to events in message order, effects from annotations else inferred", async () => {
    const events = await recordSession(SESSION);
    expect(events.map((e) => e.type)).toEqual([
      "x-mcp.initialize",
      "x-mcp.tools",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
    ]);
    const calls = events.filter((e) => e.type === "tool.call").map((e) => [e.data.tool, e.data.effect, e.data.effectInferred]);
    expect(calls).toEqual([
      ["read_file", "read", false],
      ["write_file", "write", false],
      ["read_file", "read", false],
      ["send_invoice", "write", true],
      ["send_invoice", "write", true],
    ]);
    const results = events.filter((e) => e.type === "tool.result");
    // each result's parent is its call; isError is an error status; a cancelled call is unknown
    for (const r of results) expect(events[r.parent!].data.call).toBe(r.data.call);
    expect(results.map((r) => r.data.status)).toEqual(["ok", "ok", "ok", "error", "unknown"]);
    expect(events[4].data.mcp).toEqual({ server: "fs", idempotent: true, destructive: true });
  });

  it("an unannotated tool's effect is inferred as the importers infer it", () => {
    expect(toolEffect("lookup", {}, undefined)).toMatchObject({ effect: "read", effectInferred: true });
    expect(toolEffect("create_entities", {}, {})).toMatchObject({ effect: "write", effectInferred: true });
    expect(toolEffect("create_entities", {}, { readOnlyHint: true })).toMatchObject({ effect: "read", effectInferred: false });
  });

  it("refuses lines that are not JSON-RPC, saying why", () => {
    expect(parseLine("{nope")).toMatch(/not JSON/);
    expect(parseLine('{"jsonrpc":"1.0","id":1,"method":"x"}')).toMatch(/jsonrpc/);
    expect(parseLine('{"jsonrpc":"2.0","id":{},"method":"x"}')).toMatch(/"id"/);
    expect(parseLine('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0"}]')).toMatch(/item 1/);
  });
});

describe("answering from the recording", async () => {
  const events = await recordSession(SESSION);
  const fresh = (liveReads = false) => new McpReplayer(readMcpRecording(events, "fs")!, { liveReads });
  const callSeqs = events.filter((e) => e.type === "tool.call").map((e) => e.seq);

  it("answers initialize and tools/list as recorded, and equal calls in order with each recorded answer once", () => {
    const r = fresh();
    expect(r.answer("initialize", {})).toMatchObject({ kind: "result", result: { serverInfo: { name: "fs", version: "9" } } });
    expect(r.answer("tools/list", {})).toMatchObject({ kind: "result", result: { tools: TOOLS } });
    expect(r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } })).toMatchObject({ kind: "result", result: text("A1") });
    expect(r.answer("tools/call", { name: "write_file", arguments: { content: "x", path: "/b" } })).toMatchObject({
      kind: "result",
      result: text("wrote /b"),
    });
    expect(r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } })).toMatchObject({ kind: "result", result: text("A2") });
    // a recorded isError stays an error result; a recorded unknown is answered as the timeout error and flagged
    expect(r.answer("tools/call", { name: "send_invoice", arguments: { to: "bob" } })).toMatchObject({
      kind: "result",
      result: { isError: true },
    });
    const unknown = r.answer("tools/call", { name: "send_invoice", arguments: { to: "eve" } });
    expect(unknown).toMatchObject({ kind: "error", flag: "unknown", error: { code: RPC.requestTimeout } });
    expect(r.divergence).toBeNull();
    expect(r.missing()).toBeNull();
    expect(r.counts).toEqual({ recorded: 5, replayed: 5, live: 0, flagged: 1 });
  });

  it("a write with other arguments is refused, naming the difference, at the recorded call's seq", () => {
    const r = fresh(true);
    r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } });
    const a = r.answer("tools/call", { name: "write_file", arguments: { path: "/c", content: "x" } });
    expect(a.kind).toBe("error");
    if (a.kind !== "error") return;
    expect(a.error.code).toBe(RPC.notRecorded);
    expect(a.error.message).toContain("/args/path");
    expect(a.divergence).toMatchObject({ seq: callSeqs[1], kind: "tool-call", reason: "arguments-differ", path: "/args/path" });
    expect(r.divergence).toEqual(a.divergence);
  });

  it("a tool never recorded diverges at the next recorded call; a third read_file is a repeat", () => {
    const r = fresh();
    r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } });
    expect(r.answer("tools/call", { name: "delete_all", arguments: {} })).toMatchObject({
      divergence: { seq: callSeqs[1], reason: "unrecorded-tool", path: "/tool" },
    });
    r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } });
    expect(r.answer("tools/call", { name: "read_file", arguments: { path: "/a" } })).toMatchObject({ divergence: { reason: "repeated" } });
    expect(r.missing()).toMatchObject({ seq: callSeqs[1], reason: "missing-call", recorded: { tool: "write_file" } });
  });

  it("--live-reads hands back only a call the server declares read-only; an unknown-effect or write call still diverges", () => {
    const r = fresh(true);
    expect(r.answer("tools/call", { name: "read_file", arguments: { path: "/z" } })).toMatchObject({ kind: "live", tool: "read_file" });
    expect(r.answer("tools/call", { name: "lookup", arguments: { q: 1 } })).toMatchObject({ kind: "error" });
    expect(r.answer("tools/call", { name: "write_file", arguments: { path: "/z" } })).toMatchObject({ kind: "error" });
    expect(r.counts.live).toBe(1);
  });
});
