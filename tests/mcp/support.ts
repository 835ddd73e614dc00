// The MCP clients and servers the proxy's tests drive: real servers from npm
// (packages/test-clients), and a client built on @modelcontextprotocol/sdk that starts
// `retrace mcp-proxy` over stdio as an agent's MCP configuration would.
import path from "node:path";
import { importClient, TEST_CLIENTS_DIR } from "../gateway/test-clients.ts";

export const RETRACE = [process.execPath, path.resolve(import.meta.dirname, "../../scripts/retrace.mjs")];

const MODULES = path.join(TEST_CLIENTS_DIR, "node_modules", "@modelcontextprotocol");
export const MEMORY_SERVER = [process.execPath, path.join(MODULES, "server-memory", "dist", "index.js")];
export const FILESYSTEM_SERVER = (root: string) => [process.execPath, path.join(MODULES, "server-filesystem", "dist", "index.js"), root];

export interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: unknown;
}

export interface McpClient {
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: Record<string, unknown> }> }>;
  callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<ToolResult>;
  close(): Promise<void>;
}

interface SdkClient extends McpClient {
  connect(t: unknown): Promise<void>;
}

/** An SDK client connected to `command` over stdio (stderr of the proxy kept for failures). */
export async function connect(
  command: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ client: McpClient; stderr: () => Promise<string> }> {
  const { Client } = await importClient<{ Client: new (info: object) => SdkClient }>("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await importClient<{
    StdioClientTransport: new (p: object) => { stderr: NodeJS.ReadableStream | null };
  }>("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const ended = new Promise<void>((resolve) => transport.stderr?.on("end", () => resolve()));
  const client = new Client({ name: "retrace-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  // the proxy's last words come when it exits, after the client closes
  return { client, stderr: () => ended.then(() => err) };
}

/** The text of a tool result's content (what an agent reads). */
export const textOf = (r: ToolResult) => (r.content ?? []).map((c) => c.text ?? "").join("\n");
