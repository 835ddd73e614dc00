/**
 * The proxy's own client of the real server, for a read sent live during a replay: it
 * starts the session itself (`initialize` with the agent's own parameters, then
 * `notifications/initialized`) and numbers its requests apart from the agent's.
 */
import { isRequest, isResponse, rpcError, RPC, type JsonRpcMessage, type JsonRpcResponse } from "../../mcp";
import type { Upstream } from "./upstream";

export class LiveClient {
  private next = 0;
  private readonly waiting = new Map<string, (r: JsonRpcResponse) => void>();
  private ready: Promise<void> | null = null;
  private upstream: Upstream | null = null;

  constructor(
    private readonly start: (onMessage: (m: JsonRpcMessage) => void) => Upstream,
    private readonly initParams: () => Record<string, unknown>,
  ) {}

  private onMessage = (m: JsonRpcMessage): void => {
    if (isResponse(m)) {
      const key = String(m.id);
      this.waiting.get(key)?.(m);
      this.waiting.delete(key);
    } else if (isRequest(m)) this.upstream?.send(rpcError(m.id, { code: RPC.methodNotFound, message: "retrace mcp-proxy: not offered" }));
  };

  private raw(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse> {
    const id = `retrace-live-${++this.next}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.upstream!.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  async request(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse> {
    this.ready ??= (async () => {
      this.upstream = this.start(this.onMessage);
      const init = await this.raw("initialize", this.initParams());
      if (init.error) throw new Error(`the server refused initialize: ${init.error.message}`);
      this.upstream.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    })();
    await this.ready;
    return this.raw(method, params);
  }

  async close(): Promise<void> {
    await this.upstream?.close();
  }
}
