/**
 * Replay mode: each model request matched against the recording (lib/playback) and answered
 * with the recorded answer, its recorded places mapped to the replay's; nothing goes
 * upstream unless `--on-divergence live` says so after a divergence. The branch journal
 * records the replay's own requests and answers, each marked with the recorded call it
 * stood for and whether it matched.
 */
import type http from "node:http";
import { mapStream, pathWithoutCredentials, routeOf, type ExchangeRecorder, type JournalWriter, type UpstreamApi } from "../../gateway";
import { mapPlaces, type RequestDivergence, type PlaceMap, type GatewayRecording, type RequestMatcher } from "../../playback";
import { RPC, type McpAnswer, type McpReplayer } from "../../mcp";
import { asModelCall, readAnswer, recordRequest } from "./exchange";
import { handleMcpEndpoint } from "./mcp-endpoint";
import { answerFromRecording, type IncomingCall } from "./http-edge";
import { answerProbe, recordSession, type RecordSession } from "./record-session";

export type OnDivergence = "stop" | "recorded" | "live";

export interface ReplaySessionOptions {
  recording: GatewayRecording;
  matcher: RequestMatcher;
  journal: JournalWriter;
  recorder: ExchangeRecorder;
  onDivergence: OnDivergence;
  origins: Record<UpstreamApi, string>;
  /** The recording's places → the replay's (for answers). */
  toReplay: PlaceMap;
  /** MCP proxies in this session: their token, and the replayer of each recorded server */
  mcp?: { token: string; replayerFor(server: string, liveReads: boolean): McpReplayer | null };
}

export interface ReplaySession {
  handle(call: IncomingCall, res: http.ServerResponse): Promise<void>;
  /** The first divergence, in the order requests arrived. */
  readonly divergence: RequestDivergence | null;
  /** Requests sent upstream (after a divergence with `live`). */
  readonly liveRequests: number;
}

function refusal(api: UpstreamApi, message: string): string {
  if (api === "anthropic") return JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } });
  if (api === "gemini") return JSON.stringify({ error: { code: 400, message, status: "FAILED_PRECONDITION" } });
  return JSON.stringify({ error: { message, type: "invalid_request_error", code: "retrace_divergence" } });
}

export function replaySession(opts: ReplaySessionOptions): ReplaySession {
  let divergence: RequestDivergence | null = null;
  let live: RecordSession | null = null;
  let liveRequests = 0;
  const sidesUsed = new Set<number>();
  const map = (t: string) => mapPlaces(t, opts.toReplay);

  const goLive = (at: RequestDivergence): RecordSession =>
    (live ??= recordSession({
      journal: opts.journal,
      recorder: opts.recorder,
      origins: opts.origins,
      extra: {
        live: {
          action: "continue",
          executor: "retrace-gateway",
          reason: `replay diverged at recorded seq ${at.seq} (${at.kind})`,
          at: new Date().toISOString(),
        },
      },
    }));

  const answerSide = (call: IncomingCall, res: http.ServerResponse, api: UpstreamApi): void => {
    const path = pathWithoutCredentials(call.path);
    const i = opts.recording.sides.findIndex((s, n) => !sidesUsed.has(n) && s.method === call.method && s.path === path);
    const j = i >= 0 ? i : opts.recording.sides.findIndex((s) => s.method === call.method && s.path === path);
    if (j >= 0) {
      sidesUsed.add(j);
      answerFromRecording(res, opts.recording.sides[j].answer, map);
    } else if (call.method === "GET" && /\/models\/?$/.test(path.split("?")[0])) {
      res.writeHead(200, { "content-type": "application/json" }).end(api === "gemini" ? '{"models":[]}' : '{"object":"list","data":[]}');
    } else {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(refusal(api, `retrace replay: ${call.method} ${path} was not recorded`));
    }
    opts.journal.append("x-gateway.side", { api, method: call.method, path, replayed: j >= 0 });
  };

  const answerMcp =
    (mcp: NonNullable<ReplaySessionOptions["mcp"]>) =>
    (server: string, method: string, params: Record<string, unknown>, liveReads: boolean): McpAnswer => {
      const replayer = mcp.replayerFor(server, liveReads);
      if (!replayer)
        return {
          kind: "error",
          error: { code: RPC.notRecorded, message: `retrace replay: the recording holds no MCP server named ${server}` },
        };
      const a = replayer.answer(method, params);
      if (a.kind === "error" && a.divergence) divergence ??= a.divergence;
      return a;
    };

  return {
    get divergence() {
      return divergence;
    },
    get liveRequests() {
      return liveRequests;
    },
    async handle(call, res) {
      if (answerProbe(call, res)) return;
      const mcp = opts.mcp;
      if (mcp && handleMcpEndpoint(call, res, { token: mcp.token, journal: opts.journal, answer: answerMcp(mcp) })) return;
      if (live) {
        liveRequests++;
        return live.handle(call, res);
      }
      const route = routeOf(call.method, call.path, call.headers);
      const parsed = asModelCall(call, route);
      if (!parsed) return answerSide(call, res, route.api);
      const m = opts.matcher.match(parsed.route.codec.format, pathWithoutCredentials(call.path), parsed.body);
      if (m.divergence) divergence ??= m.divergence;
      if (m.divergence && opts.onDivergence === "live") {
        liveRequests++;
        return goLive(m.divergence).handle(call, res);
      }
      const x = m.exchange;
      const mark = { replay: { recordedCall: x?.call ?? null, recordedSeq: x?.requestSeq ?? null, match: m.divergence === null } };
      const seqs = recordRequest(opts.recorder, call, parsed, mark);
      if (!x || !x.answer || (m.divergence && opts.onDivergence === "stop")) {
        const why = m.divergence
          ? `retrace replay: the request departs from the recording at seq ${m.divergence.seq} (${m.divergence.kind} ${m.divergence.path})`
          : "retrace replay: the recording has no answer for this request";
        const body = refusal(route.api, why);
        res.writeHead(400, { "content-type": "application/json" }).end(body);
        opts.recorder.answer(
          seqs,
          { text: "", toolCalls: [], error: why },
          { status: 400, contentType: "application/json", body },
          { latencyMs: 0 },
          mark,
        );
        return;
      }
      const answer = x.answer.chunks
        ? { ...x.answer, chunks: mapStream(x.format, x.answer.chunks, map) }
        : { ...x.answer, body: map(x.answer.body ?? "") };
      const started = performance.now();
      answerFromRecording(res, answer, (t) => t);
      opts.recorder.answer(
        seqs,
        readAnswer(parsed.route.codec, answer),
        answer,
        { latencyMs: Math.round(performance.now() - started) },
        mark,
      );
    },
  };
}
