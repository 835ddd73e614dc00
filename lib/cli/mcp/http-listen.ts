/**
 * `mcp-proxy --listen PORT`: the proxy's client side as an MCP Streamable HTTP server on
 * 127.0.0.1 (MCP 2025-03-26 and later), for clients that reach servers by URL.
 *
 * Each MCP session (an `initialize` POSTed without a session id) gets its own relay: a pair
 * of line streams handed to `startSession` (proxy.ts's recordProxy, with its own upstream
 * connection and recorder), so the HTTP side only frames messages:
 * - POST with requests: answered as a server-sent event stream that carries whatever the
 *   server sends while it is open (progress, logging, its own requests) and closes once
 *   every request in it is answered;
 * - POST with only notifications or responses: 202;
 * - GET: a stream for what the server sends while no POST is open; DELETE ends the session.
 * A Host or Origin that is not loopback is refused (403), as DNS rebinding protection.
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { isRequest, isResponse, parseLine, rpcError, RPC, type JsonRpcMessage } from "../../mcp";
import type { Downstream } from "./proxy";
import { readMessages, writeMessage } from "./lines";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const MAX_BODY = 16 * 1024 * 1024;

interface Stream {
  res: http.ServerResponse;
  /** the request ids this POST still waits for (empty for a GET) */
  waiting: Set<string>;
}

interface Session {
  input: PassThrough;
  streams: Stream[];
  /** what the server sent while no stream was open, for the next GET */
  held: JsonRpcMessage[];
  done: Promise<void>;
}

const key = (id: unknown) => `${typeof id}:${String(id)}`;

function hostOf(value: string): string {
  return value.replace(/:\d+$/, "").toLowerCase();
}

/** Whether Host (and Origin, when sent) name this machine's loopback. */
export function loopbackRequest(req: http.IncomingMessage): boolean {
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK.has(hostOf(host))) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOOPBACK.has(new URL(origin).hostname.toLowerCase()) || LOOPBACK.has(`[${new URL(origin).hostname}]`);
  } catch {
    return false;
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sseEvent(res: http.ServerResponse, m: JsonRpcMessage): void {
  res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
}

export interface Listener {
  url: string;
  /** stops listening and ends every session (each relay closes its upstream) */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port` (0: any free port) at path `/mcp`; `startSession` runs one
 * session's relay and resolves when it has ended.
 */
export async function listenHttp(port: number, startSession: (down: Downstream) => Promise<unknown>): Promise<Listener> {
  const sessions = new Map<string, Session>();

  const deliver = (s: Session, m: JsonRpcMessage) => {
    if (isResponse(m)) {
      const k = key(m.id);
      const owner = s.streams.find((st) => st.waiting.has(k));
      if (owner) {
        sseEvent(owner.res, m);
        owner.waiting.delete(k);
        if (owner.waiting.size === 0) {
          owner.res.end();
          s.streams.splice(s.streams.indexOf(owner), 1);
        }
        return;
      }
    }
    // from the server on its own: the oldest open POST, else a GET, else held for one
    const open = s.streams.find((st) => st.waiting.size > 0) ?? s.streams[0];
    if (open) sseEvent(open.res, m);
    else s.held.push(m);
  };

  const newSession = (): [string, Session] => {
    const id = randomUUID();
    const input = new PassThrough();
    const output = new PassThrough();
    const s: Session = { input, streams: [], held: [], done: Promise.resolve() };
    readMessages(
      output,
      (m) => deliver(s, m),
      () => undefined,
      () => undefined,
    );
    s.done = startSession({ input, output }).then(() => {
      output.end();
      for (const st of s.streams) st.res.end();
      sessions.delete(id);
    });
    sessions.set(id, s);
    return [id, s];
  };

  const readBody = (req: http.IncomingMessage): Promise<string | null> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      req.on("end", () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks).toString("utf8")));
      req.on("error", () => resolve(null));
    });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (!loopbackRequest(req))
      return sendJson(
        res,
        403,
        rpcError(null, { code: RPC.invalidRequest, message: "retrace mcp-proxy: Host and Origin must be loopback" }),
      );
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp")
      return sendJson(res, 404, rpcError(null, { code: RPC.invalidRequest, message: "not found: the MCP endpoint is /mcp" }));
    const sid = req.headers["mcp-session-id"];
    const known = typeof sid === "string" ? sessions.get(sid) : undefined;
    const noSession = () =>
      sendJson(
        res,
        typeof sid === "string" ? 404 : 400,
        rpcError(null, {
          code: RPC.invalidRequest,
          message: typeof sid === "string" ? "retrace mcp-proxy: no such session" : "retrace mcp-proxy: Mcp-Session-Id header missing",
        }),
      );

    if (req.method === "DELETE") {
      if (!known) return noSession();
      known.input.end();
      await known.done;
      res.writeHead(200).end();
      return;
    }
    if (req.method === "GET") {
      if (!known) return noSession();
      if (!(req.headers.accept ?? "").includes("text/event-stream"))
        return sendJson(
          res,
          406,
          rpcError(null, { code: RPC.invalidRequest, message: "retrace mcp-proxy: GET needs Accept: text/event-stream" }),
        );
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "mcp-session-id": sid as string });
      res.flushHeaders();
      const st: Stream = { res, waiting: new Set() };
      known.streams.push(st);
      for (const m of known.held.splice(0)) sseEvent(res, m);
      res.on("close", () => {
        const i = known.streams.indexOf(st);
        if (i >= 0) known.streams.splice(i, 1);
      });
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "GET, POST, DELETE" }).end();
      return;
    }
    const body = await readBody(req);
    if (body === null)
      return sendJson(res, 413, rpcError(null, { code: RPC.invalidRequest, message: "retrace mcp-proxy: body too large" }));
    const parsed = parseLine(body);
    if (typeof parsed === "string")
      return sendJson(
        res,
        400,
        rpcError(null, {
          code: parsed.startsWith("not JSON") ? RPC.parseError : RPC.invalidRequest,
          message: `retrace mcp-proxy: ${parsed}`,
        }),
      );
    const initializing = parsed.some((m) => isRequest(m) && m.method === "initialize");
    let id: string;
    let s: Session;
    if (initializing) {
      if (sid !== undefined)
        return sendJson(
          res,
          400,
          rpcError(null, {
            code: RPC.invalidRequest,
            message: "retrace mcp-proxy: initialize opens a new session; send it without Mcp-Session-Id",
          }),
        );
      [id, s] = newSession();
    } else {
      if (!known) return noSession();
      [id, s] = [sid as string, known];
    }
    const requests = parsed.filter(isRequest);
    if (requests.length === 0) {
      for (const m of parsed) writeMessage(s.input, m);
      res.writeHead(202, { "mcp-session-id": id }).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "mcp-session-id": id });
    res.flushHeaders();
    const st: Stream = { res, waiting: new Set(requests.map((r) => key(r.id))) };
    s.streams.push(st);
    res.on("close", () => {
      const i = s.streams.indexOf(st);
      if (i >= 0) s.streams.splice(i, 1);
    });
    for (const m of parsed) writeMessage(s.input, m);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      console.error(`retrace mcp-proxy: ${(e as Error).message}`);
      if (!res.headersSent) sendJson(res, 500, rpcError(null, { code: RPC.internalError, message: "retrace mcp-proxy: internal error" }));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const all = [...sessions.values()];
      for (const s of all) s.input.end();
      await Promise.all(all.map((s) => s.done));
      server.closeAllConnections();
      await closed;
    },
  };
}
