/**
 * Claude Code (`claude -p`, packages/test-clients) with an MCP server configured through
 * `retrace mcp-proxy` (issue 30, "Must show"): under `retrace record` against a fake
 * Anthropic upstream, the one run holds the model calls and the MCP calls in one seq
 * order; under `retrace replay` with the MCP server's memory file fresh and no upstream,
 * the replay matches, the write (`create_entities`) never reaches a server, and a replay
 * whose model asks for another write diverges at the MCP call's seq, kind `tool-call`.
 * With `replay --policy FILE` (issue 33), a policy the call obeys still matches, and one it
 * breaks refuses it at that call, kind `policy`, naming the rule.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { claudeCommand, claudeEnv, freshDirs, run, type Env } from "../gateway/agents.ts";
import { startFake, withoutTools, type Turn } from "../gateway/fakes/index.ts";
import { MEMORY_SERVER, RETRACE } from "./support.ts";

const ADA = { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] };
const script = (entities: object): Turn[] => [
  { toolCalls: [{ name: "mcp__memory__create_entities", arguments: entities }] },
  { text: "I saved Ada to memory." },
];

interface Line {
  type: string;
  seq: number;
  parent?: number;
  data: Record<string, unknown>;
}

const readLines = (file: string): Line[] =>
  fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);

/** Claude Code's command with the memory server behind the proxy, its memory file at `memory`. */
function command(memory: string): string[] {
  const config = {
    mcpServers: {
      memory: {
        command: RETRACE[0],
        args: [RETRACE[1], "mcp-proxy", "--name", "memory", "--", ...MEMORY_SERVER],
        env: { MEMORY_FILE_PATH: memory },
      },
    },
  };
  return [...claudeCommand(), "--strict-mcp-config", "--mcp-config", JSON.stringify(config), "--allowedTools", "mcp__memory"];
}

describe("Claude Code with an MCP server through retrace mcp-proxy, under retrace record and replay", () => {
  let root: string;
  let journal: string;
  let memory: string;
  let recorded: { status: number | null; stderr: string; stdout: string };
  let env: Env;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-claude-"));
    const { work, home } = freshDirs(root, "record");
    journal = path.join(root, "run.jsonl");
    memory = path.join(root, "memory.jsonl");
    env = claudeEnv(home);
    const fake = await startFake("anthropic", script(ADA), { isSide: withoutTools });
    try {
      recorded = await run([...RETRACE, "record", "--out", journal, "--upstream", `anthropic=${fake.url}`, "--", ...command(memory)], {
        cwd: work,
        env,
      });
    } finally {
      await fake.close();
    }
  }, 240_000);

  it("records one run: model calls and the MCP call in one seq order, the server really wrote", () => {
    expect(recorded.status, recorded.stderr).toBe(0);
    expect(fs.readFileSync(memory, "utf8")).toContain('"name":"Ada"');
    const lines = readLines(journal);
    expect(new Set(lines.map((l) => (l as unknown as { run: string }).run)).size).toBe(1);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i));
    const mcpCall = lines.find((l) => l.type === "tool.call" && (l.data.mcp as { server?: string } | undefined)?.server === "memory");
    expect(mcpCall?.data).toMatchObject({ tool: "create_entities", args: ADA, effect: "write", effectInferred: false });
    const mcpResult = lines.find((l) => l.type === "tool.result" && l.data.call === mcpCall!.data.call)!;
    // the model asked (its tool_use), then the proxy's call and result, then the next model request
    const modelAsk = lines.find((l) => l.type === "tool.call" && l.data.tool === "mcp__memory__create_entities")!;
    const nextRequest = lines.filter((l) => l.type === "model.request" && l.seq > mcpResult.seq);
    expect(modelAsk.seq).toBeLessThan(mcpCall!.seq);
    expect(mcpResult.parent).toBe(mcpCall!.seq);
    expect(nextRequest.length).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => l.type === "x-mcp.tools")).toBe(true);
  });

  async function replay(file: string, options: string[] = []) {
    const { work, home } = freshDirs(root, "replay");
    const fresh = path.join(root, `memory-${path.basename(path.dirname(work))}.jsonl`);
    const branch = path.join(path.dirname(work), "branch.jsonl");
    const sentinel = await startFake("anthropic", []);
    try {
      const result = await run(
        [
          ...RETRACE,
          "replay",
          file,
          "--json",
          "--out",
          branch,
          "--upstream",
          `anthropic=${sentinel.url}`,
          ...options,
          "--",
          ...command(fresh),
        ],
        { cwd: work, env: claudeEnv(home) },
      );
      const report = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}") as {
        match: boolean;
        divergence: Record<string, unknown> | null;
        tools: Record<string, number>;
      };
      const events = fs.existsSync(branch) ? readLines(branch) : [];
      return { result, report, events, memoryWritten: fs.existsSync(fresh), sent: sentinel.requests.length };
    } finally {
      await sentinel.close();
    }
  }

  it("replays with the MCP answers from the recording: match, and the server never wrote", async () => {
    const { result, report, events, memoryWritten, sent } = await replay(journal);
    const story = events.map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data).slice(0, 300)}`).join("\n");
    expect(result.status, `${result.stderr}\n${story}`).toBe(0);
    expect(report.match, JSON.stringify(report.divergence)).toBe(true);
    expect(report.tools).toEqual({ recorded: 1, replayed: 1, live: 0, flagged: 0 });
    expect(memoryWritten).toBe(false);
    expect(sent).toBe(0);
  });

  it("a recording whose MCP call had other arguments: the replay diverges at that call's seq, kind tool-call, and nothing is written", async () => {
    // the same run, but the server was asked about Grace: the replayed agent's call (Ada) is not in it
    const edited = path.join(root, "edited.jsonl");
    const lines = readLines(journal);
    const mcpCall = lines.find((l) => l.type === "tool.call" && l.data.tool === "create_entities")!;
    const text = fs
      .readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l, i) => (i === mcpCall.seq ? l.replace('"name":"Ada"', '"name":"Grace"') : l));
    fs.writeFileSync(edited, text.join("\n") + "\n");
    const { report, events, memoryWritten, sent } = await replay(edited);
    expect(report.match).toBe(false);
    expect(report.divergence).toMatchObject({
      seq: mcpCall.seq,
      kind: "tool-call",
      reason: "arguments-differ",
      path: "/args/entities/0/name",
      recorded: "Grace",
      replayed: "Ada",
    });
    const refused = events.find(
      (e) => e.type === "tool.result" && (e.data.replay as { match?: boolean } | undefined)?.match === false && e.data.status === "error",
    );
    expect(JSON.stringify(refused?.data.error)).toContain("not in the recording");
    expect(memoryWritten).toBe(false);
    expect(sent).toBe(0);
  });

  it("replay --policy: a policy the MCP call obeys matches; one it breaks refuses it at that call, naming the rule", async () => {
    const obeyed = path.join(root, "once.json");
    fs.writeFileSync(
      obeyed,
      JSON.stringify({ invariants: [{ id: "one-per-name", kind: "once-per", tools: ["create_entities"], arg: "/entities/0/name" }] }),
    );
    const ok = await replay(journal, ["--policy", obeyed]);
    expect(ok.report.match, JSON.stringify(ok.report.divergence)).toBe(true);

    // no observations allowed: Ada's call breaks the contract's args schema
    const broken = path.join(root, "no-observations.json");
    const items = { type: "object", properties: { observations: { type: "array", maxItems: 0 } } };
    fs.writeFileSync(
      broken,
      JSON.stringify({ tools: { create_entities: { args: { type: "object", properties: { entities: { type: "array", items } } } } } }),
    );
    const mcpCall = readLines(journal).find((l) => l.type === "tool.call" && l.data.tool === "create_entities")!;
    const { result, report, events, memoryWritten, sent } = await replay(journal, ["--policy", broken]);
    expect(result.status).toBe(1);
    expect(report.match).toBe(false);
    const refusedCall = events.find((e) => e.type === "tool.call" && e.data.tool === "create_entities")!;
    expect(report.divergence).toMatchObject({
      seq: mcpCall.seq,
      kind: "policy",
      rule: "tool.args-invalid",
      keyword: "maxItems",
      path: "/args/entities/0/observations",
      server: "memory",
      at: refusedCall.seq,
    });
    const answer = events.find((e) => e.type === "tool.result" && e.data.call === refusedCall.data.call)!;
    expect(answer.data).toMatchObject({ status: "error", error: { code: -32011 }, replay: { match: false, refused: "tool.args-invalid" } });
    // the branch says which policy judged it
    expect(events[0].data.policy).toMatchObject({ tools: { create_entities: {} } });
    expect(memoryWritten).toBe(false);
    expect(sent).toBe(0);
  });
});
