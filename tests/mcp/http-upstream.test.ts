/**
 * `retrace mcp-proxy --upstream URL`: the real server over Streamable HTTP (a server built
 * on @modelcontextprotocol/sdk's Server and StreamableHTTPServerTransport, stateful, on
 * 127.0.0.1), recorded with `--out`, then replayed with `--replay` while that server is
 * stopped. The write tool's counter shows the server ran exactly once per recorded call.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { importClient } from "../gateway/test-clients.ts";
import { RETRACE, connect, textOf, type McpClient } from "./support.ts";

interface SdkServer {
  setRequestHandler(schema: unknown, handler: (req: { params: { name: string; arguments?: Record<string, unknown> } }) => unknown): void;
  connect(t: unknown): Promise<void>;
}
interface SdkHttpTransport {
  handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
}

/** A counter server: `add` (a write, annotated) and `total` (a read, annotated). */
async function startCounter(): Promise<{ url: string; adds: () => number; close: () => Promise<void> }> {
  const { Server } = await importClient<{ Server: new (info: object, opts: object) => SdkServer }>(
    "@modelcontextprotocol/sdk/server/index.js",
  );
  const { StreamableHTTPServerTransport } = await importClient<{ StreamableHTTPServerTransport: new (o: object) => SdkHttpTransport }>(
    "@modelcontextprotocol/sdk/server/streamableHttp.js",
  );
  const types = await importClient<Record<string, unknown>>("@modelcontextprotocol/sdk/types.js");
  let total = 0;
  let adds = 0;
  const server = new Server({ name: "counter", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: [
      { name: "add", inputSchema: { type: "object", properties: { n: { type: "number" } } }, annotations: { readOnlyHint: false } },
      { name: "total", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
    ],
  }));
  server.setRequestHandler(types.CallToolRequestSchema, (req) => {
    if (req.params.name === "add") {
      adds++;
      total += Number(req.params.arguments?.n ?? 0);
    }
    return { content: [{ type: "text", text: `total ${total}` }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const web = http.createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`,
    adds: () => adds,
    close: () => new Promise<void>((resolve) => (web.close(() => resolve()), web.closeAllConnections())),
  };
}

async function script(c: McpClient): Promise<string[]> {
  await c.listTools();
  const a = await c.callTool({ name: "add", arguments: { n: 2 } });
  const b = await c.callTool({ name: "add", arguments: { n: 3 } });
  const t = await c.callTool({ name: "total", arguments: {} });
  return [a, b, t].map(textOf);
}

describe("the proxy in front of a Streamable HTTP server", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(inject("tmpDir"), "mcp-http-"));
  });

  it("records through --upstream URL, then replays with the server stopped: same answers, no add reaches it", async () => {
    const journal = path.join(dir, "run.jsonl");
    const counter = await startCounter();
    let recorded: string[];
    try {
      const { client } = await connect([...RETRACE, "mcp-proxy", "--out", journal, "--upstream", counter.url], {});
      recorded = await script(client);
      await client.close();
      expect(recorded).toEqual(["total 2", "total 5", "total 5"]);
      expect(counter.adds()).toBe(2);
    } finally {
      await counter.close();
    }
    const types = fs
      .readFileSync(journal, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.filter((t) => t === "tool.result")).toHaveLength(3);

    // the server is gone: the replay needs none
    const { client, stderr } = await connect([...RETRACE, "mcp-proxy", "--replay", journal], {});
    const replayed = await script(client);
    await client.close();
    expect(replayed).toEqual(recorded);
    expect(await stderr()).toContain("match: 3 of 3 tool calls as recorded");
  });
});
