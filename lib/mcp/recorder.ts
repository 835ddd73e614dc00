/**
 * The journal events of an MCP session seen by the proxy, in the order the messages pass:
 *
 * - `initialize` → `x-mcp.initialize` (the client's protocol version and info, the server's
 *   answer), when its answer comes;
 * - `tools/list` → `x-mcp.tools` (the page asked for and the tools with their annotations);
 * - `tools/call` → `tool.call` when the call passes (call id `mcp:<server>:<instance>:<n>`,
 *   `tool`, `args`, the effect from the listed tool's annotations, else inferred and marked
 *   `effectInferred`; `mcp {server, idempotent?, destructive?}`), and `tool.result` when its
 *   answer comes (`status` `error` when the result says `isError` or the server answered a
 *   JSON-RPC error, `result` the content, `mcp.raw` the whole result as the server's JSON
 *   text, which keeps its key order for the replay). A call
 *   the client cancels, or one still open when the session ends, gets `status` `unknown`:
 *   nobody knows whether the server acted;
 * - any other request → `x-mcp.side` (method, params, its answer), so a replay answers it.
 *
 * Events go through `append`, which numbers them (a journal writer, or the gateway of the
 * `retrace record` session the proxy runs in); appends are made one after another, in order.
 */
import type { EventType } from "../journal/types";
import { annotationsOf, toolEffect, type ToolAnnotations } from "./effect";
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "./jsonrpc";

/** Appends one event and resolves with its seq. */
export type AppendEvent = (type: EventType, data: Record<string, unknown>, parent?: number) => Promise<number>;

interface Pending {
  req: JsonRpcRequest;
  /** for tools/call: the call id and the tool.call's seq */
  call?: { id: string; seq: Promise<number> };
}

const key = (id: JsonRpcId) => `${typeof id}:${id}`;

/** The answer of a tools/call as journal data: content as `result`, the rest kept to answer a replay with. */
export function toolResultData(call: string, res: JsonRpcResponse, server: string): Record<string, unknown> {
  if (res.error) return { call, status: "error", error: { ...res.error }, mcp: { server, rpcError: true } };
  const result = res.result ?? {};
  // `raw` keeps the answer byte for byte (the journal's JSON sorts keys; agents read the text)
  return {
    call,
    status: result.isError === true ? "error" : "ok",
    result: result.content ?? [],
    mcp: { server, raw: JSON.stringify(result) },
  };
}

export class McpRecorder {
  private readonly pending = new Map<string, Pending>();
  private readonly tools = new Map<string, ToolAnnotations>();
  private chain: Promise<unknown> = Promise.resolve();
  private calls = 0;

  constructor(
    readonly server: string,
    private readonly append: AppendEvent,
    private readonly instance: string,
    /** added to every event's data (a live read in a replay carries `live`) */
    private readonly extra: Record<string, unknown> = {},
  ) {}

  /** How many tools/call requests passed. */
  get callCount(): number {
    return this.calls;
  }

  private add(type: EventType, data: Record<string, unknown>, parent?: Promise<number>): Promise<number> {
    const seq = this.chain.then(async () => this.append(type, { ...data, ...this.extra }, parent === undefined ? undefined : await parent));
    this.chain = seq.catch(() => undefined);
    return seq;
  }

  /** A request from the client on its way to the server. */
  request(req: JsonRpcRequest): void {
    const p: Pending = { req };
    if (req.method === "tools/call") {
      const tool = typeof req.params?.name === "string" ? req.params.name : "";
      const args = req.params?.arguments ?? {};
      const e = toolEffect(tool, args, this.tools.get(tool));
      const id = `mcp:${this.server}:${this.instance}:${++this.calls}`;
      const mcp: Record<string, unknown> = { server: this.server };
      if (e.idempotent !== undefined) mcp.idempotent = e.idempotent;
      if (e.destructive !== undefined) mcp.destructive = e.destructive;
      const data: Record<string, unknown> = { call: id, tool, args, effect: e.effect, effectInferred: e.effectInferred, mcp };
      if (e.effectReason) data.effectReason = e.effectReason;
      p.call = { id, seq: this.add("tool.call", data) };
    }
    this.pending.set(key(req.id), p);
  }

  /** The server's answer to a request that passed (others are ignored). */
  response(res: JsonRpcResponse): void {
    if (res.id === null) return;
    const p = this.pending.get(key(res.id));
    if (!p) return;
    this.pending.delete(key(res.id));
    const { req } = p;
    const answer = res.error ? { error: res.error } : { result: res.result ?? {}, raw: JSON.stringify(res.result ?? {}) };
    if (p.call) {
      void this.add("tool.result", toolResultData(p.call.id, res, this.server), p.call.seq);
    } else if (req.method === "initialize") {
      void this.add("x-mcp.initialize", { server: this.server, params: req.params ?? {}, ...answer });
    } else if (req.method === "tools/list") {
      const tools = res.result?.tools;
      if (Array.isArray(tools))
        for (const t of tools) if (t && typeof t === "object" && typeof t.name === "string") this.tools.set(t.name, annotationsOf(t));
      void this.add("x-mcp.tools", { server: this.server, cursor: req.params?.cursor ?? null, ...answer });
    } else if (req.method !== "ping") {
      void this.add("x-mcp.side", { server: this.server, method: req.method, params: req.params ?? {}, ...answer });
    }
  }

  /** The client gave up on a request (`notifications/cancelled`): a call's outcome is unknown. */
  cancelled(id: JsonRpcId, reason: string): void {
    const p = this.pending.get(key(id));
    if (!p) return;
    this.pending.delete(key(id));
    if (p.call)
      void this.add(
        "tool.result",
        { call: p.call.id, status: "unknown", error: { message: reason }, mcp: { server: this.server } },
        p.call.seq,
      );
  }

  /** Resolves when every event so far is appended. */
  async settled(): Promise<void> {
    await this.chain;
  }

  /** Ends the session: calls still open get `unknown`; resolves when every event is appended. */
  async close(reason = "the session ended before the server answered"): Promise<void> {
    for (const p of [...this.pending.values()]) this.cancelled(p.req.id, reason);
    await this.chain;
  }
}
