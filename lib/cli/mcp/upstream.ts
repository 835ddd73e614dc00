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

/** Reads an event stream as it comes, calling `onData` with each event's data. */
async function readSse(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  const flush = (text: string) => {
    // an event with no data (a stream's priming event, SEP-1699) carries no message
    for (const e of parseSse(text)) if (e.data.trim() !== "") onData(e.data);
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered = (buffered + decoder.decode(chunk, { stream: true })).replace(/\r\n?/g, "\n");
    const end = buffered.lastIndexOf("\n\n");
    if (end < 0) continue;
    flush(buffered.slice(0, end));
    buffered = buffered.slice(end + 2);
  }
  flush(buffered + decoder.decode());
}

/**
 * Speaks Streamable HTTP (MCP 2025-03-26 and later) to `url`. POSTs go one after another
 * until each one's headers are in (the initialize answer's session id must be known before
 * the next POST); their bodies are read as they arrive, so a server's own request in the
 * middle of an event stream (sampling, elicitation) reaches the client while the stream
 * stays open.
 */
export function httpUpstream(url: string, onMessage: OnMessage): Upstream {
  let session: string | undefined;
  let protocol: string | undefined;
  let queue: Promise<void> = Promise.resolve();
  const bodies = new Set<Promise<void>>();
  const pass = (f: JsonRpcMessage) => {
    const v = (f as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof v === "string") protocol = v;
    onMessage(f);
  };
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
    const type = res.headers.get("content-type") ?? "";
    const read = async () => {
      if (res.status === 202) return void (await res.body?.cancel());
      if (res.status >= 400) return fail(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      try {
        if (type.includes("text/event-stream") && res.body) await readSse(res.body, (data) => messagesOf(JSON.parse(data)).forEach(pass));
        else {
          const text = await res.text();
          if (text.trim() !== "") messagesOf(JSON.parse(text)).forEach(pass);
        }
      } catch (e) {
        fail(`answered something that is not JSON-RPC (${(e as Error).message})`);
      }
    };
    const body = read();
    bodies.add(body);
    void body.finally(() => bodies.delete(body));
  };
  return {
    send: (m) => {
      queue = queue.then(() => post(m));
    },
    close: async () => {
      await queue;
      // a stream the server keeps open past the session's end is let go after 2 s
      await Promise.race([Promise.all([...bodies]), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      if (session) await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session } }).catch(() => undefined);
    },
  };
}
