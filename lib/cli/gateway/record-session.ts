/**
 * Record mode: every request forwarded to its API's origin and its answer passed through as
 * it arrives; once the answer is complete, model calls recorded as journal events, side requests (model lists, token
 * counts) kept as `x-gateway.side` so a replay can answer them too.
 */
import type http from "node:http";
import { OUTPUT_DELTA, routeOf, type ExchangeRecorder, type JournalWriter, type UpstreamApi } from "../../gateway";
import { asModelCall, readAnswer, recordRequest } from "./exchange";
import { forward, type IncomingCall } from "./http-edge";
import { handleMcpEndpoint } from "./mcp-endpoint";
import { pathWithoutCredentials } from "../../gateway";

export interface RecordSessionOptions {
  journal: JournalWriter;
  recorder: ExchangeRecorder;
  origins: Record<UpstreamApi, string>;
  /** Events from the live part of a replay carry this in their data. */
  extra?: Record<string, unknown>;
  /** the token MCP proxies in this session send to append their events (mcp-endpoint.ts) */
  mcpToken?: string;
}

export interface RecordSession {
  handle(call: IncomingCall, res: http.ServerResponse): Promise<void>;
  readonly modelCalls: number;
}

/** `HEAD /` and `GET /`: the probe Claude Code sends to its base URL first. */
export function answerProbe(call: IncomingCall, res: http.ServerResponse): boolean {
  const path = call.path.split("?")[0];
  if ((call.method === "HEAD" || call.method === "GET") && path === "/") {
    res.writeHead(200, { "content-type": "text/plain" }).end(call.method === "HEAD" ? undefined : "retrace gateway\n");
    return true;
  }
  return false;
}

export function recordSession(opts: RecordSessionOptions): RecordSession {
  let modelCalls = 0;
  return {
    get modelCalls() {
      return modelCalls;
    },
    async handle(call, res) {
      if (answerProbe(call, res)) return;
      if (opts.mcpToken !== undefined && handleMcpEndpoint(call, res, { token: opts.mcpToken, journal: opts.journal })) return;
      const route = routeOf(call.method, call.path, call.headers);
      // the answer first: the journal's work (parsing, redaction, hashing) is done after the
      // agent has it, so recording adds nothing to its wait but the forwarding itself
      const result = await forward(call, opts.origins[route.api], res, route.codec ? OUTPUT_DELTA[route.codec.format] : undefined);
      const parsed = asModelCall(call, route);
      if (!parsed) {
        opts.journal.append("x-gateway.side", {
          api: route.api,
          method: call.method,
          path: pathWithoutCredentials(call.path),
          answer: result.answer,
          latencyMs: Math.round(result.latencyMs),
          ...opts.extra,
        });
        return;
      }
      modelCalls++;
      const seqs = recordRequest(opts.recorder, call, parsed, opts.extra);
      const answer = readAnswer(parsed.route.codec, result.answer);
      opts.recorder.answer(
        seqs,
        answer,
        result.answer,
        {
          latencyMs: Math.round(result.latencyMs),
          firstChunkMs: result.firstChunkMs === undefined ? undefined : Math.round(result.firstChunkMs),
          firstTokenMs: result.firstTokenMs === undefined ? undefined : Math.round(result.firstTokenMs),
        },
        opts.extra,
      );
    },
  };
}
