/**
 * The gateway's HTTP edge: a server on 127.0.0.1 that reads each request whole and hands it
 * to a session (record-session.ts, replay-session.ts), and the forwarding of a request to
 * its API's origin with the answer passed through chunk by chunk as it arrives (the agent
 * sees tokens at the pace the upstream sends them).
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { RawAnswer } from "../../gateway";

export interface IncomingCall {
  method: string;
  /** Path and query as the client sent them. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type CallHandler = (call: IncomingCall, res: http.ServerResponse) => Promise<void>;

export interface GatewayServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

/**
 * Starts the gateway on 127.0.0.1 (`port` 0: a free one), or on a unix socket (`{socket}`:
 * `--isolate` bridges to it from inside the sandbox; `port` is then 0 and `url` the socket's).
 */
export async function startGatewayServer(
  port: number | { socket: string },
  handle: CallHandler,
  onError: (e: Error) => void,
): Promise<GatewayServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res
          .writeHead(413, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "retrace gateway: request body too large" } }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (res.writableEnded) return;
      const call: IncomingCall = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks) };
      handle(call, res).catch((e: unknown) => {
        onError(e instanceof Error ? e : new Error(String(e)));
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(res.headersSent ? undefined : JSON.stringify({ error: { message: "retrace gateway: internal error" } }));
      });
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (typeof port === "number") server.listen(port, "127.0.0.1", () => resolve());
    else server.listen(port.socket, () => resolve());
  });
  const actual = typeof port === "number" ? (server.address() as AddressInfo).port : 0;
  return {
    port: actual,
    url: typeof port === "number" ? `http://127.0.0.1:${actual}` : `unix:${port.socket}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Headers not passed on (hop by hop, or describing a body the gateway re-frames). */
const HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
  "accept-encoding",
]);
const ANSWER_HOP = new Set(["connection", "content-length", "transfer-encoding", "keep-alive", "content-encoding"]);

export interface ForwardResult {
  answer: RawAnswer;
  /** The whole answer text. */
  text: string;
  latencyMs: number;
  firstChunkMs?: number;
  /** To the first chunk with model output in it (`isOutput`). */
  firstTokenMs?: number;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** The upstream's answer head, or the reason it cannot be reached. */
function send(call: IncomingCall, origin: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  const url = new URL(call.path, origin);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(url, { method: call.method, headers, agent: secure ? agents.https : agents.http }, resolve);
    req.on("error", reject);
    req.end(call.method === "GET" || call.method === "HEAD" ? undefined : call.body);
  });
}

/**
 * Sends `call` to `origin` + its path and query, unchanged (credentials included: they are
 * forwarded, never kept), and writes the answer to `res` as it arrives.
 */
export async function forward(call: IncomingCall, origin: string, res: http.ServerResponse, isOutput?: RegExp): Promise<ForwardResult> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.headers)) if (!HOP.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  headers["accept-encoding"] = "identity";
  if (call.method !== "GET" && call.method !== "HEAD") headers["content-length"] = String(call.body.length);
  const started = performance.now();
  let upstream: http.IncomingMessage;
  try {
    upstream = await send(call, origin, headers);
  } catch (e) {
    const message = `retrace gateway: the upstream ${origin} cannot be reached (${e instanceof Error ? e.message : String(e)})`;
    const body = JSON.stringify({ type: "error", error: { type: "api_error", message } });
    res.writeHead(502, { "content-type": "application/json" }).end(body);
    return { answer: { status: 502, contentType: "application/json", body }, text: body, latencyMs: performance.now() - started };
  }
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(upstream.headers)) if (!ANSWER_HOP.has(k) && v !== undefined) out[k] = v;
  const status = upstream.statusCode ?? 502;
  res.writeHead(status, out);
  res.flushHeaders();
  const contentType = typeof upstream.headers["content-type"] === "string" ? upstream.headers["content-type"] : "";
  const streamed = contentType.includes("text/event-stream");
  const chunks: Array<{ atMs: number; text: string }> = [];
  const decoder = new TextDecoder();
  let firstAt: number | undefined;
  let tokenAt: number | undefined;
  for await (const chunk of upstream as AsyncIterable<Buffer>) {
    const now = performance.now();
    firstAt ??= now;
    res.write(chunk);
    const text = decoder.decode(chunk, { stream: true });
    if (text !== "") chunks.push({ atMs: Math.round(now - firstAt), text });
    if (tokenAt === undefined && isOutput?.test(text)) tokenAt = now;
  }
  const tail = decoder.decode();
  if (tail !== "") chunks.push({ atMs: Math.round(performance.now() - (firstAt ?? started)), text: tail });
  res.end();
  const text = chunks.map((c) => c.text).join("");
  const answer: RawAnswer = streamed ? { status, contentType, chunks } : { status, contentType, body: text };
  return {
    answer,
    text,
    latencyMs: performance.now() - started,
    firstChunkMs: streamed && firstAt !== undefined ? firstAt - started : undefined,
    firstTokenMs: streamed && tokenAt !== undefined ? tokenAt - started : undefined,
  };
}

/** Writes a recorded answer (its chunks one after another, or its body) through `map`. */
export function answerFromRecording(res: http.ServerResponse, answer: RawAnswer, map: (text: string) => string): void {
  res.writeHead(answer.status, { "content-type": answer.contentType });
  if (answer.chunks) {
    res.flushHeaders();
    for (const c of answer.chunks) res.write(map(c.text));
    res.end();
  } else res.end(map(answer.body ?? ""));
}
