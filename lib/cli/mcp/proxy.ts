/**
 * The proxy between an MCP client on our stdin/stdout and a real server (upstream.ts).
 *
 * Record: every message passes both ways unchanged; requests and their answers are
 * recorded by lib/mcp's McpRecorder. A tools/call answer reaches the client only after its
 * `tool.result` is appended, so the run's seq order is the order the agent saw.
 *
 * Replay: nothing reaches a server; each request is answered by `answer` (lib/mcp's
 * McpReplayer, here or in the replay session's gateway). A read the replayer hands back
 * (`--live-reads`) goes to the real server through a LiveClient, recorded marked `live`.
 */
import type { Readable, Writable } from "node:stream";
import {
  isNotification,
  isRequest,
  isResponse,
  McpRecorder,
  rpcError,
  rpcResult,
  RPC,
  type AppendEvent,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type McpAnswer,
} from "../../mcp";
import { LiveClient } from "./live-client";
import { readMessages, writeMessage } from "./lines";
import type { Upstream } from "./upstream";

export interface Downstream {
  input: Readable;
  output: Writable;
}

/** A line that is not JSON-RPC: said on stderr and answered with JSON-RPC's own error (id null), never passed on. */
const badLine = (out: Writable) => (line: number, why: string) => {
  console.error(`retrace mcp-proxy: client line ${line}: ${why} (skipped)`);
  const code = why.startsWith("not JSON") ? RPC.parseError : RPC.invalidRequest;
  writeMessage(out, rpcError(null, { code, message: `retrace mcp-proxy: line ${line}: ${why}` }));
};

/**
 * Relays until the client closes its side or the server ends; resolves with the number of
 * tools/call requests and the server's exit status (null: still running when the client left).
 */
export function recordProxy(
  down: Downstream,
  startUpstream: (onMessage: (m: JsonRpcMessage) => void, onExit: (code: number | null) => void) => Upstream,
  recorder: McpRecorder,
): Promise<{ calls: number; serverExit: number | null }> {
  return new Promise((resolve) => {
    let serverExit: number | null = null;
    const calls = new Set<string>();
    let ended = false;
    const finish = async () => {
      if (ended) return;
      ended = true;
      await upstream.close();
      await recorder.close();
      resolve({ calls: recorder.callCount, serverExit });
    };
    const upstream = startUpstream(
      (m) => {
        if (!isResponse(m)) return writeMessage(down.output, m);
        recorder.response(m);
        const key = `${typeof m.id}:${m.id}`;
        if (!calls.has(key)) return writeMessage(down.output, m);
        calls.delete(key);
        // the client sees the answer once its tool.result is in the run
        void recorder.settled().then(() => writeMessage(down.output, m));
      },
      (code) => {
        serverExit = code;
        void finish();
      },
    );
    readMessages(
      down.input,
      (m) => {
        if (isRequest(m)) {
          recorder.request(m);
          if (m.method === "tools/call") calls.add(`${typeof m.id}:${m.id}`);
        } else if (isNotification(m) && m.method === "notifications/cancelled") {
          const id = m.params?.requestId;
          if (typeof id === "string" || typeof id === "number")
            recorder.cancelled(id, `the client cancelled it (${String(m.params?.reason ?? "no reason given")})`);
        }
        upstream.send(m);
      },
      badLine(down.output),
      () => void finish(),
    );
  });
}

export interface ReplayProxyOptions {
  answer: (method: string, params: Record<string, unknown> | undefined) => Promise<McpAnswer>;
  /** how to reach the real server for a live read (absent: live reads are refused) */
  startUpstream?: (onMessage: (m: JsonRpcMessage) => void) => Upstream;
  /** where a live read's events go, with the server name */
  liveAppend?: AppendEvent;
  server: string;
}

/** Answers the client from a recording until it closes its side. */
export function replayProxy(down: Downstream, opts: ReplayProxyOptions): Promise<void> {
  return new Promise((resolve) => {
    let initParams: Record<string, unknown> = {};
    const live = opts.startUpstream ? new LiveClient(opts.startUpstream, () => initParams) : null;
    const liveRecorder = opts.liveAppend
      ? new McpRecorder(opts.server, opts.liveAppend, Math.random().toString(16).slice(2, 8), {
          live: { action: "live-read", executor: "retrace-mcp-proxy", at: new Date().toISOString() },
        })
      : null;
    let queue: Promise<void> = Promise.resolve();

    const one = async (req: JsonRpcRequest): Promise<void> => {
      if (req.method === "initialize") initParams = req.params ?? {};
      let a: McpAnswer;
      try {
        a = await opts.answer(req.method, req.params);
      } catch (e) {
        return writeMessage(
          down.output,
          rpcError(req.id, { code: RPC.internalError, message: `retrace mcp-proxy: ${(e as Error).message}` }),
        );
      }
      if (a.kind === "result") return writeMessage(down.output, rpcResult(req.id, a.result));
      if (a.kind === "error") return writeMessage(down.output, rpcError(req.id, a.error));
      if (!live)
        return writeMessage(
          down.output,
          rpcError(req.id, {
            code: RPC.notRecorded,
            message: `retrace replay: ${a.tool} is not in the recording and no server was given for a live read`,
          }),
        );
      liveRecorder?.request(req);
      const res = await live.request(req.method, req.params ?? {});
      const mine = { ...res, id: req.id };
      liveRecorder?.response(mine);
      await liveRecorder?.settled();
      writeMessage(down.output, mine);
    };

    readMessages(
      down.input,
      (m) => {
        // requests are answered in the order they came; notifications need no answer
        if (isRequest(m)) queue = queue.then(() => one(m));
      },
      badLine(down.output),
      () => {
        void queue.then(async () => {
          await liveRecorder?.close();
          await live?.close();
          resolve();
        });
      },
    );
  });
}
