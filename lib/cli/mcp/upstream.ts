/**
 * The real MCP server behind the proxy, over stdio (a child process, one message per line)
 * or Streamable HTTP (each message POSTed; the answer is JSON or a server-sent event stream
 * of messages; `Mcp-Session-Id` and `MCP-Protocol-Version` kept and sent back).
 */
import { spawn } from "node:child_process";
import { parseSse } from "../../gateway";
import { isRequest, rpcError, RPC, toMessage, type JsonRpcMessage } from "../../mcp";
import { readMessages, writeMessage } from "./lines";

export interface Upstream {
  send(m: JsonRpcMessage): void;
  close(): Promise<void>;
}

export type OnMessage = (m: JsonRpcMessage) => void;

/** Starts `argv` and speaks to it on its stdin and stdout (its stderr is ours). */
export function stdioUpstream(argv: readonly string[], onMessage: OnMessage, onExit: (code: number | null) => void): Upstream {
  // (exit status null: ended by a signal)
  const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  let exited = false;
  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const end = (code: number | null) => {
    if (exited) return;
    exited = true;
    onExit(code);
    ended();
  };
  child.on("exit", end);
  // a command that cannot be started emits no exit
  child.on("error", (e) => {
    console.error(`retrace mcp-proxy: cannot start ${argv[0]}: ${e.message}`);
    end(127);
  });
  readMessages(
    child.stdout,
    onMessage,
    (line, why) => console.error(`retrace mcp-proxy: server stdout line ${line}: ${why} (skipped)`),
    () => undefined,
  );
  return {
    send: (m) => {
      if (!child.stdin.destroyed) writeMessage(child.stdin, m);
    },
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGTERM"), 2_000);
      await done;
      clearTimeout(timer);
    },
  };
}

function messagesOf(v: unknown): JsonRpcMessage[] {
  const out: JsonRpcMessage[] = [];
  for (const item of Array.isArray(v) ? v : [v]) {
    const m = toMessage(item);
    if (typeof m !== "string") out.push(m);
  }
  return out;
}

/** Speaks Streamable HTTP (MCP 2025-03-26 and later) to `url`. */
export function httpUpstream(url: string, onMessage: OnMessage): Upstream {
  let session: string | undefined;
  let protocol: string | undefined;
  let queue: Promise<void> = Promise.resolve();
  const post = async (m: JsonRpcMessage): Promise<void> => {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (session) headers["mcp-session-id"] = session;
    if (protocol) headers["mcp-protocol-version"] = protocol;
    const fail = (why: string) => {
      if (isRequest(m)) onMessage(rpcError(m.id, { code: RPC.internalError, message: `retrace mcp-proxy: ${url}: ${why}` }));
    };
    let res: Response;
    try {
      res = await fetch(url, { method: "POST", headers, body: JSON.stringify(m) });
    } catch (e) {
      return fail(`cannot be reached (${(e as Error).message})`);
    }
    session = res.headers.get("mcp-session-id") ?? session;
    const text = await res.text();
    if (res.status === 202) return;
    if (res.status >= 400) return fail(`HTTP ${res.status} ${text.slice(0, 200)}`);
    const type = res.headers.get("content-type") ?? "";
    const found: JsonRpcMessage[] = [];
    try {
      if (type.includes("text/event-stream")) for (const e of parseSse(text)) found.push(...messagesOf(JSON.parse(e.data)));
      else if (text.trim() !== "") found.push(...messagesOf(JSON.parse(text)));
    } catch (e) {
      return fail(`answered something that is not JSON-RPC (${(e as Error).message})`);
    }
    for (const f of found) {
      const v = (f as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof v === "string") protocol = v;
      onMessage(f);
    }
  };
  return {
    // one at a time: the session id of the initialize answer must be known before the next POST
    send: (m) => {
      queue = queue.then(() => post(m));
    },
    close: async () => {
      await queue;
      if (session) await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session } }).catch(() => undefined);
    },
  };
}
