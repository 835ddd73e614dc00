/**
 * Real MCP servers from npm, unmodified (`@modelcontextprotocol/server-memory` and
 * `-filesystem`), driven by an @modelcontextprotocol/sdk client through `retrace mcp-proxy`
 * (issue 30, "Must show"): recorded with `--out`, then replayed with `--replay` and no
 * server running; the answers are the recorded ones, and a write (`create_entities`,
 * `write_file`) never reaches a server during replay: the memory file and the directory
 * are unchanged. With `--live-reads` and the server given, only a declared read goes to it.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { FILESYSTEM_SERVER, MEMORY_SERVER, RETRACE, connect, textOf, type McpClient } from "./support.ts";

interface Line {
  type: string;
  seq: number;
  data: Record<string, unknown>;
}
const readJournal = (file: string): Line[] =>
  fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-servers-"));
});

async function session<T>(
  command: string[],
  env: Record<string, string>,
  body: (c: McpClient) => Promise<T>,
): Promise<{ value: T; stderr: string }> {
  const { client, stderr } = await connect(command, env);
  let value: T;
  try {
    value = await body(client);
  } finally {
    await client.close();
  }
  return { value, stderr: await stderr() };
}

const ADA = { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] };

async function memoryScript(c: McpClient) {
  const tools = await c.listTools();
  const created = await c.callTool({ name: "create_entities", arguments: ADA });
  const graph = await c.callTool({ name: "read_graph", arguments: {} });
  const found = await c.callTool({ name: "search_nodes", arguments: { query: "Ada" } });
  return { tools: tools.tools.map((t) => t.name), answers: [created, graph, found].map(textOf) };
}

describe("server-memory through the proxy", () => {
  let dir: string;
  let memory: string;
  let journal: string;
  let recorded: Awaited<ReturnType<typeof memoryScript>>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(root, "memory-"));
    memory = path.join(dir, "memory.jsonl");
    journal = path.join(dir, "run.jsonl");
    ({ value: recorded } = await session(
      [...RETRACE, "mcp-proxy", "--out", journal, "--", ...MEMORY_SERVER],
      { MEMORY_FILE_PATH: memory },
      memoryScript,
    ));
  }, 120_000);

  it("records: the server really ran (its memory file has Ada), the journal holds the session's events in order", () => {
    expect(fs.readFileSync(memory, "utf8")).toContain('"name":"Ada"');
    const lines = readJournal(journal);
    expect(lines.map((l) => l.type)).toEqual([
      "run.start",
      "x-mcp.initialize",
      "x-mcp.tools",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "run.end",
    ]);
    const calls = lines.filter((l) => l.type === "tool.call").map((l) => [l.data.tool, l.data.effect, l.data.effectInferred]);
    // server-memory 2026.8 annotates its tools: create_entities readOnlyHint false, read_graph and search_nodes true
    expect(calls).toEqual([
      ["create_entities", "write", false],
      ["read_graph", "read", false],
      ["search_nodes", "read", false],
    ]);
    expect(recorded.answers[1]).toContain("wrote the first program");
  });

  it("replays with no server: the same tools and answers, and the memory file is not touched", async () => {
    const before = fs.readFileSync(memory, "utf8");
    const { value, stderr } = await session([...RETRACE, "mcp-proxy", "--replay", journal], { MEMORY_FILE_PATH: memory }, memoryScript);
    expect(value).toEqual(recorded);
    expect(stderr).toContain("match: 3 of 3 tool calls as recorded");
    expect(fs.readFileSync(memory, "utf8")).toBe(before);
  });

  it("a write with other arguments gets a JSON-RPC error naming the difference and never reaches the server, even with --live-reads", async () => {
    const before = fs.readFileSync(memory, "utf8");
    const other = { entities: [{ name: "Grace", entityType: "person", observations: ["found a moth"] }] };
    const { value, stderr } = await session(
      [...RETRACE, "mcp-proxy", "--replay", journal, "--live-reads", "--", ...MEMORY_SERVER],
      { MEMORY_FILE_PATH: memory },
      async (c) => {
        await c.listTools();
        const refused = await c.callTool({ name: "create_entities", arguments: other }).then(
          () => null,
          (e: Error) => e.message,
        );
        // a read outside the recording, declared read-only by the server: sent live
        const live = textOf(await c.callTool({ name: "open_nodes", arguments: { names: ["Ada"] } }));
        return { refused, live };
      },
    );
    expect(value.refused).toMatch(/not in the recording.*\/args\/entities\/0\/name/);
    expect(value.live).toContain("wrote the first program");
    expect(stderr).toMatch(/diverged at recorded seq 3: tool-call \(arguments-differ\) \/args\/entities\/0\/name/);
    expect(fs.readFileSync(memory, "utf8")).toBe(before);
  });
});

describe("server-filesystem through the proxy", () => {
  let dir: string;
  let files: string;
  let journal: string;

  const script = (files: string) => async (c: McpClient) => {
    const wrote = await c.callTool({ name: "write_file", arguments: { path: path.join(files, "note.txt"), content: "first draft\n" } });
    const read = await c.callTool({ name: "read_text_file", arguments: { path: path.join(files, "note.txt") } });
    const listed = await c.callTool({ name: "list_directory", arguments: { path: files } });
    return [wrote, read, listed].map(textOf);
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(root, "fs-"));
    files = path.join(dir, "files");
    fs.mkdirSync(files);
    journal = path.join(dir, "run.jsonl");
  });

  it("records write_file for real, then replays with no server: recorded answers, the directory unchanged", async () => {
    const { value: recorded } = await session(
      [...RETRACE, "mcp-proxy", "--out", journal, "--", ...FILESYSTEM_SERVER(files)],
      {},
      script(files),
    );
    expect(fs.readFileSync(path.join(files, "note.txt"), "utf8")).toBe("first draft\n");
    expect(recorded[1]).toBe("first draft\n");
    const effects = readJournal(journal)
      .filter((l) => l.type === "tool.call")
      .map((l) => l.data.effect);
    expect(effects).toEqual(["write", "read", "read"]);

    // the world moves on after the recording; the replay answers from the recording and writes nothing
    fs.writeFileSync(path.join(files, "note.txt"), "edited since\n");
    const { value: replayed } = await session([...RETRACE, "mcp-proxy", "--replay", journal], {}, script(files));
    expect(replayed).toEqual(recorded);
    expect(fs.readdirSync(files)).toEqual(["note.txt"]);
    expect(fs.readFileSync(path.join(files, "note.txt"), "utf8")).toBe("edited since\n");
  });
});
