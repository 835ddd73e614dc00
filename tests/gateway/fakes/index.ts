// Scripted fake model APIs for the gateway's tests and bench: a loopback HTTP server that
// answers each model request with the next Turn of its script, in the real wire format of
// its API, streamed when the request asks. README.md says what real clients send to it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicCountTokens, anthropicError, anthropicMessages, anthropicModels } from "./anthropic.ts";
import { geminiError, geminiGenerate, geminiModels } from "./gemini.ts";
import { openaiChat, openaiError, openaiModels } from "./openai-chat.ts";
import { openaiResponses } from "./openai-responses.ts";
import { strictChatProblem } from "./openai-strict.ts";
import { type FakeRequest, type ScriptOptions, ScriptCursor, type Turn } from "./script.ts";
import { type Answer, IdSource } from "./wire.ts";

export type { FakeRequest, ScriptOptions, ToolCall, Turn } from "./script.ts";
export { withoutTools } from "./script.ts";

export type FakeApi = "anthropic" | "openai" | "gemini";

export interface FakeOptions extends ScriptOptions {
  /** the pause before each streamed event after the first, so a client sees the first early */
  delayMs?: number;
  /** a fixed port (agents configured by a file need one they can name); else a free one */
  port?: number;
  /** OpenAI chat: refuse with a 400 what the real API refuses in `messages` (openai-strict.ts) */
  strict?: boolean;
}

export interface Fake {
  /** the origin, `http://127.0.0.1:PORT`, no trailing slash and no `/v1` */
  url: string;
  /** every request received, side requests and `HEAD /` included, in arrival order */
  requests: FakeRequest[];
  /** how many turns of the script have been answered */
  turnsUsed(): number;
  /** how many streamed events have been written so far, over all requests */
  eventsWritten(): number;
  close(): Promise<void>;
}

type Handler = (request: FakeRequest, turn: Turn, rawBody: string, ids: IdSource) => Answer;

/** which model endpoint a path is for this API; null for every other path */
function modelHandler(api: FakeApi, pathname: string): Handler | null {
  if (api === "anthropic" && pathname === "/v1/messages") return anthropicMessages;
  if (api === "openai" && pathname === "/v1/chat/completions") return openaiChat;
  if (api === "openai" && pathname === "/v1/responses") return openaiResponses;
  if (api === "gemini" && /^\/v1(beta|alpha)?\/models\/[^/]+:(generate|streamGenerate)Content$/.test(pathname)) {
    return geminiGenerate;
  }
  return null;
}

function sideAnswer(api: FakeApi, method: string, pathname: string, rawBody: string): Answer | null {
  if (api === "anthropic" && pathname === "/v1/messages/count_tokens") return anthropicCountTokens(rawBody);
  if (method !== "GET") return null;
  if (api === "anthropic" && pathname === "/v1/models") return anthropicModels();
  if (api === "openai" && pathname === "/v1/models") return openaiModels();
  if (api === "gemini" && /^\/v1(beta|alpha)?\/models$/.test(pathname)) return geminiModels();
  return null;
}

function errorAnswer(api: FakeApi, status: number, message: string): Answer {
  if (api === "anthropic") return anthropicError(status, message);
  if (api === "gemini") return geminiError(status, message);
  return openaiError(status, message);
}

function parseBody(raw: string): unknown {
  if (raw === "") return null;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function write(res: http.ServerResponse, answer: Answer, delayMs: number, onEvent: () => void): Promise<void> {
  if (answer.kind === "json") {
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const separator = answer.separator ?? "\n\n";
  for (const [i, event] of answer.events.entries()) {
    if (i > 0 && delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return;
    const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
    res.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}${separator}`);
    onEvent();
  }
  res.end();
}

export async function startFake(api: FakeApi, script: Turn[], opts: FakeOptions = {}): Promise<Fake> {
  const requests: FakeRequest[] = [];
  const cursor = new ScriptCursor(script, opts);
  const ids = new IdSource();
  let eventsWritten = 0;
  const sockets = new Set<import("node:net").Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const path = req.url ?? "/";
    const pathname = new URL(path, "http://fake").pathname;
    const request: FakeRequest = { method: req.method ?? "GET", path, headers: { ...req.headers }, body: parseBody(rawBody) };
    requests.push(request);

    if (pathname === "/" && (req.method === "HEAD" || req.method === "GET")) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(req.method === "GET" ? "fake upstream\n" : undefined);
      return;
    }
    const handler = req.method === "POST" ? modelHandler(api, pathname) : null;
    let answer: Answer;
    const problem =
      handler && opts.strict && api === "openai" && pathname === "/v1/chat/completions" ? strictChatProblem(request.body) : null;
    if (problem !== null) answer = errorAnswer(api, 400, problem);
    else if (handler) {
      const pick = cursor.take(request);
      answer =
        pick.kind === "exhausted"
          ? errorAnswer(api, 400, `fake ${api}: script exhausted after ${cursor.consumed} turns`)
          : handler(request, pick.turn, rawBody, ids);
    } else {
      answer =
        sideAnswer(api, req.method ?? "GET", pathname, rawBody) ?? errorAnswer(api, 404, `fake ${api}: no route ${req.method} ${pathname}`);
    }
    await write(res, answer, opts.delayMs ?? 0, () => (eventsWritten += 1));
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turnsUsed: () => cursor.consumed,
    eventsWritten: () => eventsWritten,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
