/**
 * The gateway's endpoint for the MCP proxies started inside its session (`retrace
 * mcp-proxy` run by the agent): `POST /_retrace/mcp` on the loopback server, authenticated
 * by the session's token (RETRACE_SESSION_TOKEN, in the agent's environment only).
 *
 * - `{op: "event", type, data, parent?}` appends an MCP event to the session's run (one seq
 *   order with the model calls) and answers `{seq}`; only the proxy's event types are taken;
 * - `{op: "answer", server, method, params, liveReads}` (replay sessions) answers from the
 *   recording through lib/mcp's McpReplayer, one per server.
 */
import { timingSafeEqual } from "node:crypto";
import type http from "node:http";
import type { JournalWriter } from "../../gateway";
import type { EventType } from "../../journal/types";
import type { McpAnswer } from "../../mcp";
import type { IncomingCall } from "./http-edge";

export const MCP_ENDPOINT = "/_retrace/mcp";
export const SESSION_HEADER = "x-retrace-session";

const PROXY_TYPES = new Set(["tool.call", "tool.result", "x-mcp.initialize", "x-mcp.tools", "x-mcp.side"]);

export interface McpEndpoint {
  token: string;
  journal: JournalWriter;
  /** replay sessions: the answer to one request of `server`'s client */
  answer?: (server: string, method: string, params: Record<string, unknown>, liveReads: boolean) => McpAnswer;
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function sameToken(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Handles `call` when it is for the endpoint; false when it is not (a model call). */
export function handleMcpEndpoint(call: IncomingCall, res: http.ServerResponse, ep: McpEndpoint): boolean {
  if (call.path.split("?")[0] !== MCP_ENDPOINT) return false;
  if (call.method !== "POST") {
    reply(res, 405, { error: "POST only" });
    return true;
  }
  if (!sameToken(call.headers[SESSION_HEADER], ep.token)) {
    reply(res, 401, { error: "not this session's MCP proxy (x-retrace-session)" });
    return true;
  }
  let body: unknown;
  try {
    body = JSON.parse(call.body.toString("utf8"));
  } catch {
    reply(res, 400, { error: "the body is not JSON" });
    return true;
  }
  if (!isRecord(body)) {
    reply(res, 400, { error: "the body must be an object" });
    return true;
  }
  if (body.op === "event") {
    const { type, data, parent } = body;
    if (typeof type !== "string" || !PROXY_TYPES.has(type))
      return (reply(res, 400, { error: `type must be one of ${[...PROXY_TYPES].join(", ")}` }), true);
    if (!isRecord(data)) return (reply(res, 400, { error: "data must be an object" }), true);
    if (parent !== undefined && (typeof parent !== "number" || !Number.isInteger(parent) || parent < 0))
      return (reply(res, 400, { error: "parent must be a seq" }), true);
    const seq = ep.journal.append(type as EventType, data, parent as number | undefined);
    reply(res, 200, { seq });
    return true;
  }
  if (body.op === "answer") {
    if (!ep.answer) return (reply(res, 409, { error: "this session records; it does not answer from a recording" }), true);
    const { server, method, params, liveReads } = body;
    if (typeof server !== "string" || typeof method !== "string" || (params !== undefined && !isRecord(params)))
      return (reply(res, 400, { error: "answer needs server, method and params (an object)" }), true);
    reply(res, 200, ep.answer(server, method, params ?? {}, liveReads === true));
    return true;
  }
  reply(res, 400, { error: 'op must be "event" or "answer"' });
  return true;
}
