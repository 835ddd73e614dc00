/**
 * The MCP proxy's replay under a declared policy (issue 33). The core: lib/mcp's McpReplayer
 * with lib/playback's PolicyGuard folding the replay's own journal, as `retrace replay` and
 * `mcp-proxy --replay` wire them: a call that breaks the policy gets -32011 naming the rule,
 * is neither answered from the recording nor handed to a server (even with --live-reads),
 * and is the replay's divergence; judged on the replay's calls and results before it only.
 * Then the real thing: server-memory recorded through `retrace mcp-proxy --out` and replayed
 * with `--policy FILE` by an @modelcontextprotocol/sdk client.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { JournalEvent, JsonValue } from "@/lib/journal/types";
import { McpReplayer, readMcpRecording, RPC, type McpDivergence } from "@/lib/mcp";
import { PolicyGuard } from "@/lib/playback";
import { MEMORY_SERVER, RETRACE, connect, textOf, type McpClient } from "./support.ts";

const ev = (seq: number, type: string, data: Record<string, unknown>, parent?: number) =>
  ({ run: "r", seq, ts: "2026-12-07T00:00:00.000Z", type, data, ...(parent === undefined ? {} : { parent }) }) as unknown as JournalEvent;
const mcp = { server: "fs" };
const text = (t: string) => [{ type: "text", text: t }];

// read /a, then write /a: the recording obeys the policy below
const RECORDED = [
  ev(0, "run.start", { workflow: { name: "mcp:fs" } }),
  ev(1, "x-mcp.tools", {
    server: "fs",
    cursor: null,
    result: { tools: [{ name: "read_file", annotations: { readOnlyHint: true } }, { name: "write_file" }] },
  }),
  ev(2, "tool.call", { call: "c1", tool: "read_file", args: { path: "/a" }, effect: "read", mcp }),
  ev(3, "tool.result", { call: "c1", status: "ok", result: text("A"), mcp }, 2),
  ev(4, "tool.call", { call: "c2", tool: "write_file", args: { path: "/a", content: "new" }, effect: "write", mcp }),
  ev(5, "tool.result", { call: "c2", status: "ok", result: text("wrote /a"), mcp }, 4),
  ev(6, "run.end", { status: "succeeded" }),
];

const POLICY: JsonValue = {
  tools: { write_file: { args: { type: "object", properties: { content: { type: "string", maxLength: 10 } } } } },
  invariants: [
    { id: "read-first", kind: "requires-before", tools: ["write_file"], after: "read_file", sameArg: { arg: "/path", afterArg: "/path" } },
    { id: "write-once", kind: "once-per", tools: ["write_file"], arg: "/path" },
  ],
};

/** A replayer as the CLI wires it: its own journal in memory, the guard observing it. */
function replayer(opts: { policy?: JsonValue; liveReads?: boolean } = {}) {
  const journal: JournalEvent[] = [];
  const guard = new PolicyGuard(opts.policy ?? POLICY);
  const append = (type: string, data: Record<string, unknown>, parent?: number) => {
    const e = ev(journal.length, type, data, parent);
    journal.push(e);
    guard.observe(e);
    return e.seq;
  };
  const r = new McpReplayer(readMcpRecording(RECORDED, "fs")!, { append, guard, liveReads: opts.liveReads });
  return { r, journal };
}
const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

describe("McpReplayer with a policy guard", () => {
  it("an agent that obeys the policy is answered as recorded", () => {
    const { r } = replayer();
    expect(r.answer("tools/call", call("read_file", { path: "/a" }))).toMatchObject({ kind: "result", result: { content: text("A") } });
    expect(r.answer("tools/call", call("write_file", { path: "/a", content: "new" }))).toMatchObject({ kind: "result" });
    expect(r.divergence).toBeNull();
    expect(r.missing()).toBeNull();
  });

  it("a write before its read is refused with -32011, never answered; once the replay has read, it is answered", () => {
    const { r, journal } = replayer();
    const refused = r.answer("tools/call", call("write_file", { path: "/a", content: "new" }));
    expect(refused.kind).toBe("error");
    if (refused.kind !== "error") return;
    expect(refused.error.code).toBe(RPC.policyRefused);
    expect(refused.error.message).toContain('policy.requires-before: write_file breaks invariant "read-first"');
    expect(refused.error.message).toContain("not sent to the server nor answered from the recording");
    expect(refused.divergence).toMatchObject({
      server: "fs",
      // first-equal: the recorded equal call it would have taken
      seq: 4,
      kind: "policy",
      rule: "policy.requires-before",
      invariant: "read-first",
      evidence: null,
      at: 0,
      path: "/args/path",
    });
    expect(r.divergence).toEqual(refused.divergence);
    // the branch has the refused call, with an error and no result
    expect(journal.map((e) => [e.type, e.data.status ?? null])).toEqual([
      ["tool.call", null],
      ["tool.result", "error"],
    ]);
    expect(journal[0].data.replay).toMatchObject({ match: false, refused: "policy.requires-before" });
    // judged on the replay's own past: after its read, the same write is allowed and answered from the recording
    r.answer("tools/call", call("read_file", { path: "/a" }));
    expect(r.answer("tools/call", call("write_file", { path: "/a", content: "new" }))).toMatchObject({
      kind: "result",
      result: { content: text("wrote /a") },
    });
    // the first divergence stays the refusal
    expect((r.divergence as McpDivergence).kind).toBe("policy");
  });

  it("args the contract refuses: tool.args-invalid with the keyword and the path", () => {
    const { r } = replayer();
    r.answer("tools/call", call("read_file", { path: "/a" }));
    const a = r.answer("tools/call", call("write_file", { path: "/a", content: "far too long a text" }));
    expect(a).toMatchObject({
      kind: "error",
      error: { code: RPC.policyRefused },
      divergence: { kind: "policy", rule: "tool.args-invalid", keyword: "maxLength", path: "/args/content", invariant: null },
    });
  });

  it("a second write of the same path: policy.once-per, the evidence the replay's first write", () => {
    const { r, journal } = replayer();
    r.answer("tools/call", call("read_file", { path: "/a" }));
    r.answer("tools/call", call("write_file", { path: "/a", content: "new" }));
    const firstWrite = journal.find((e) => e.type === "tool.call" && e.data.tool === "write_file")!.seq;
    const a = r.answer("tools/call", call("write_file", { path: "/a", content: "new" }));
    // without the policy it would be `repeated`; the policy names the rule
    expect(a).toMatchObject({ divergence: { rule: "policy.once-per", invariant: "write-once", evidence: firstWrite, seq: 6 } });
  });

  it("with --live-reads, a read that breaks the policy is refused, not handed to the server", () => {
    const policy = { tools: { read_file: { args: { type: "object", required: ["path"] } } } };
    const { r } = replayer({ policy, liveReads: true });
    expect(r.answer("tools/call", call("read_file", { path: "/z" }))).toMatchObject({ kind: "live" });
    expect(r.answer("tools/call", call("read_file", {}))).toMatchObject({
      kind: "error",
      divergence: { rule: "tool.args-invalid", keyword: "required" },
    });
    expect(r.counts.live).toBe(1);
  });

  it("with no policy, nothing is refused", () => {
    const { r } = replayer({ policy: {} });
    expect(r.answer("tools/call", call("write_file", { path: "/a", content: "new" }))).toMatchObject({ kind: "result" });
  });
});

const ADA = { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] };
const MEMORY_POLICY = {
  invariants: [{ id: "one-entity-per-name", kind: "once-per", tools: ["create_entities"], arg: "/entities/0/name" }],
};

describe("server-memory replayed through retrace mcp-proxy --policy", () => {
  let dir: string;
  let memory: string;
  let journal: string;
  let policyFile: string;

  async function session<T>(args: string[], body: (c: McpClient) => Promise<T>): Promise<{ value: T; stderr: string }> {
    const { client, stderr } = await connect([...RETRACE, "mcp-proxy", ...args], { MEMORY_FILE_PATH: memory });
    let value: T;
    try {
      value = await body(client);
    } finally {
      await client.close();
    }
    return { value, stderr: await stderr() };
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-policy-"));
    memory = path.join(dir, "memory.jsonl");
    journal = path.join(dir, "run.jsonl");
    policyFile = path.join(dir, "policy.json");
    fs.writeFileSync(policyFile, JSON.stringify(MEMORY_POLICY));
    await session(["--out", journal, "--", ...MEMORY_SERVER], async (c) => {
      await c.listTools();
      await c.callTool({ name: "create_entities", arguments: ADA });
      await c.callTool({ name: "read_graph", arguments: {} });
    });
  }, 120_000);

  it("an agent that obeys the policy matches", async () => {
    const { value, stderr } = await session(["--replay", journal, "--policy", policyFile], async (c) => {
      await c.listTools();
      const created = textOf(await c.callTool({ name: "create_entities", arguments: ADA }));
      const graph = textOf(await c.callTool({ name: "read_graph", arguments: {} }));
      return { created, graph };
    });
    expect(value.graph).toContain("wrote the first program");
    expect(stderr).toContain("match: 2 of 2 tool calls as recorded");
  });

  it("a second create of Ada is refused naming the rule; the server is never reached", async () => {
    const before = fs.readFileSync(memory, "utf8");
    const { value, stderr } = await session(
      ["--replay", journal, "--policy", policyFile, "--live-reads", "--", ...MEMORY_SERVER],
      async (c) => {
        await c.listTools();
        await c.callTool({ name: "create_entities", arguments: ADA });
        return c.callTool({ name: "create_entities", arguments: ADA }).then(
          () => "answered",
          (e: Error & { code?: number }) => `${e.code}: ${e.message}`,
        );
      },
    );
    expect(value).toMatch(
      /^-32011: .*policy\.once-per: create_entities breaks invariant "one-entity-per-name" \(evidence: seq \d+ of the replay\)/,
    );
    expect(stderr).toMatch(/diverged at recorded seq \d+: refused by the policy: policy\.once-per/);
    expect(fs.readFileSync(memory, "utf8")).toBe(before);
  });
});
