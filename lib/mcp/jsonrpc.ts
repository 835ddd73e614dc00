/**
 * JSON-RPC 2.0 as MCP frames it: one message per line on stdio, one or more per HTTP body.
 * A message is a request (`id` and `method`), a notification (`method`, no `id`), or a
 * response (`id` and `result` or `error`). Anything else is refused with the line it came on.
 */

export type JsonRpcId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  result?: Record<string, unknown>;
  error?: JsonRpcError;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Error codes: JSON-RPC's own, and the one the replay answers a call outside the recording with. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** the MCP SDKs' request-timeout code: what a recorded unknown or timed-out call answers */
  requestTimeout: -32001,
  /** a call the recording does not hold (a replay's divergence) */
  notRecorded: -32010,
  /** a call that breaks the declared policy, refused in a replay (a replay's divergence) */
  policyRefused: -32011,
} as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export const isRequest = (m: JsonRpcMessage): m is JsonRpcRequest => "method" in m && "id" in m && m.id !== undefined;
export const isNotification = (m: JsonRpcMessage): m is JsonRpcNotification => "method" in m && !("id" in m && m.id !== undefined);
export const isResponse = (m: JsonRpcMessage): m is JsonRpcResponse => !("method" in m);

/** One message from parsed JSON, or why it is not one. */
export function toMessage(v: unknown): JsonRpcMessage | string {
  if (!isRecord(v)) return "not a JSON object";
  if (v.jsonrpc !== "2.0") return 'no "jsonrpc": "2.0"';
  const id = v.id;
  if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number") return '"id" must be a string or a number';
  if (v.params !== undefined && !isRecord(v.params) && !Array.isArray(v.params)) return '"params" must be an object';
  if (typeof v.method === "string") return v as unknown as JsonRpcMessage;
  if (v.method !== undefined) return '"method" must be a string';
  if (id === undefined) return 'neither "method" nor "id"';
  if (v.result === undefined && !isRecord(v.error)) return 'a response needs "result" or "error"';
  return v as unknown as JsonRpcMessage;
}

/** The messages of one line (a batch is an array), or why the line is not JSON-RPC. */
export function parseLine(line: string): JsonRpcMessage[] | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  const items = Array.isArray(v) ? v : [v];
  const out: JsonRpcMessage[] = [];
  for (const [i, item] of items.entries()) {
    const m = toMessage(item);
    if (typeof m === "string") return Array.isArray(v) ? `item ${i}: ${m}` : m;
    out.push(m);
  }
  return out;
}

export function rpcResult(id: JsonRpcId | null, result: Record<string, unknown>): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

export function rpcError(id: JsonRpcId | null, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}
