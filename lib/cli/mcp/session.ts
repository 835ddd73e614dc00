/**
 * The `retrace record` or `retrace replay` session a proxy runs inside, found through the
 * environment the agent's child processes inherit (RETRACE_GATEWAY_URL, RETRACE_SESSION,
 * RETRACE_SESSION_TOKEN), and the proxy's two requests to that session's gateway: append an
 * event to the run (one seq order with the model calls), and answer a request from the
 * recording.
 */
import type { EventType } from "../../journal/types";
import type { AppendEvent, McpAnswer } from "../../mcp";
import { MCP_ENDPOINT, SESSION_HEADER } from "../gateway/mcp-endpoint";

export interface GatewaySession {
  mode: "record" | "replay";
  url: string;
  token: string;
}

/** The session in `env`, or null when the proxy runs on its own. */
export function sessionFromEnv(env: NodeJS.ProcessEnv): GatewaySession | null {
  const url = env.RETRACE_GATEWAY_URL;
  const token = env.RETRACE_SESSION_TOKEN;
  const mode = env.RETRACE_SESSION;
  if (!url || !token || (mode !== "record" && mode !== "replay")) return null;
  return { mode, url, token };
}

async function ask<T>(s: GatewaySession, body: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${s.url}${MCP_ENDPOINT}`, {
    method: "POST",
    headers: { "content-type": "application/json", [SESSION_HEADER]: s.token },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the retrace gateway at ${s.url} refused (${res.status}): ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/** Appends to the session's run through its gateway. */
export function gatewayAppend(s: GatewaySession): AppendEvent {
  return async (type: EventType, data: Record<string, unknown>, parent?: number) =>
    (await ask<{ seq: number }>(s, { op: "event", type, data, parent })).seq;
}

/** Asks the replay session's gateway to answer from its recording. */
export function gatewayAnswer(s: GatewaySession, server: string, liveReads: boolean) {
  return (method: string, params: Record<string, unknown> | undefined): Promise<McpAnswer> =>
    ask<McpAnswer>(s, { op: "answer", server, method, params: params ?? {}, liveReads });
}
