/**
 * The gateway's MCP endpoint (`POST /_retrace/mcp`) as a caller on the loopback sees it: only
 * a request carrying the session's token appends to the run; a wrong or missing token is
 * 401 and a malformed body or an event type the proxy never sends is 400, with nothing
 * appended in either case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExchangeRecorder, JournalWriter } from "@/lib/gateway";
import { Redactor } from "@/lib/redact";
import type { JournalEvent } from "@/lib/journal/types";
import { startGatewayServer, type GatewayServer } from "@/lib/cli/gateway/http-edge";
import { MCP_ENDPOINT, SESSION_HEADER } from "@/lib/cli/gateway/mcp-endpoint";
import { recordSession } from "@/lib/cli/gateway/record-session";

const TOKEN = "a".repeat(32);
let server: GatewayServer;
const written: JournalEvent[] = [];

beforeAll(async () => {
  const sink = { write: (e: JournalEvent) => void written.push(e), flush: async () => true, close: async () => true };
  const journal = new JournalWriter("r1", sink, new Redactor(new Uint8Array(32)));
  const session = recordSession({
    journal,
    recorder: new ExchangeRecorder(journal),
    origins: { anthropic: "", openai: "", gemini: "" },
    mcpToken: TOKEN,
  });
  server = await startGatewayServer(0, session.handle, () => undefined);
});
afterAll(() => server.close());

const post = (body: unknown, token?: string) =>
  fetch(`${server.url}${MCP_ENDPOINT}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { [SESSION_HEADER]: token }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("POST /_retrace/mcp", () => {
  it("refuses a missing or wrong token with 401 and appends nothing", async () => {
    const event = { op: "event", type: "tool.call", data: { call: "c", tool: "t", args: {}, effect: "read" } };
    expect((await post(event)).status).toBe(401);
    expect((await post(event, "b".repeat(32))).status).toBe(401);
    expect((await post(event, TOKEN.slice(1))).status).toBe(401);
    expect(written).toHaveLength(0);
  });

  it("refuses bad bodies and foreign event types with 400", async () => {
    expect((await post("{not json", TOKEN)).status).toBe(400);
    expect((await post({ op: "event", type: "run.end", data: {} }, TOKEN)).status).toBe(400);
    expect((await post({ op: "event", type: "tool.call", data: [] }, TOKEN)).status).toBe(400);
    expect((await post({ op: "event", type: "tool.result", data: {}, parent: -1 }, TOKEN)).status).toBe(400);
    expect((await post({ op: "answer", server: "s", method: "ping" }, TOKEN)).status).toBe(409);
    expect(written).toHaveLength(0);
  });

  it("appends the session's events in order and answers their seqs", async () => {
    const a = await (
      await post({ op: "event", type: "tool.call", data: { call: "c1", tool: "t", args: {}, effect: "read" } }, TOKEN)
    ).json();
    const b = await (await post({ op: "event", type: "tool.result", data: { call: "c1", status: "ok" }, parent: a.seq }, TOKEN)).json();
    expect([a.seq, b.seq]).toEqual([0, 1]);
    expect(written.map((e) => [e.seq, e.type, e.parent])).toEqual([
      [0, "tool.call", undefined],
      [1, "tool.result", 0],
    ]);
  });
});
