/**
 * A gateway recording read back for replay: each model call's request and raw answer with
 * the seqs of its events (its tool results, context, request, response), the side requests'
 * answers, and what the run says about where it ran.
 */
import type { JournalEvent } from "../journal/types";
import type { RawAnswer, UpstreamApi, WireFormat } from "../gateway/types";

export interface RecordedToolResult {
  seq: number;
  call: string;
  tool?: string;
}

/**
 * One recorded model request as the matcher reads it (model-request.ts): the gateway's
 * exchanges, and the recorder SDK's model calls (recorder-recording.ts).
 */
export interface RecordedRequest {
  /** Position among the run's model calls (request order). */
  index: number;
  call: string;
  /** How the body is read: a wire format, or `recorder` (the SDK's model.request and context). */
  format: string;
  method: string;
  path: string;
  /** The request body as recorded (redacted, credentials never in it). */
  body: unknown;
  model: string;
  contextSeq: number;
  requestSeq: number;
  responseSeq?: number;
  toolResults: RecordedToolResult[];
}

export interface RecordedExchange extends RecordedRequest {
  api: UpstreamApi;
  format: WireFormat;
  answer?: RawAnswer;
}

export interface RecordedSide {
  method: string;
  path: string;
  api: UpstreamApi;
  answer: RawAnswer;
}

export interface GatewayRecording {
  run: string;
  /** The hash of the run's last event (its chain head), when hashed. */
  head: string | null;
  command: string[] | null;
  /** Where it ran: `cwd`, `home`, and config folders (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`). */
  places: Record<string, string>;
  exchanges: RecordedExchange[];
  sides: RecordedSide[];
  /** seq of run.end, or one past the last event. */
  endSeq: number;
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function rawAnswer(v: unknown): RawAnswer | undefined {
  const r = rec(v);
  if (typeof r.status !== "number") return undefined;
  const out: RawAnswer = { status: r.status, contentType: typeof r.contentType === "string" ? r.contentType : "application/json" };
  if (typeof r.body === "string") out.body = r.body;
  if (Array.isArray(r.chunks)) out.chunks = r.chunks.map((c) => ({ atMs: Number(rec(c).atMs) || 0, text: String(rec(c).text ?? "") }));
  return out;
}

/** The gateway recording of one run's events (in any order); null when it has no model call recorded by the gateway. */
export function readGatewayRecording(events: readonly JournalEvent[]): GatewayRecording | null {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  if (sorted.length === 0) return null;
  const start = sorted.find((e) => e.type === "run.start");
  const gateway = rec(rec(start?.data).gateway);
  const toolNames = new Map<string, string>();
  const byContext = new Map<number, RecordedToolResult[]>();
  const byCall = new Map<string, RecordedExchange>();
  const exchanges: RecordedExchange[] = [];
  const sides: RecordedSide[] = [];
  let pending: RecordedToolResult[] = [];
  let endSeq = sorted[sorted.length - 1].seq + 1;
  for (const e of sorted) {
    const d = rec(e.data);
    if (e.type === "tool.call" && typeof d.call === "string" && typeof d.tool === "string") toolNames.set(d.call, d.tool);
    else if (e.type === "tool.result" && typeof d.call === "string")
      pending.push({ seq: e.seq, call: d.call, tool: toolNames.get(d.call) });
    else if (e.type === "context") {
      byContext.set(e.seq, pending);
      pending = [];
    } else if (e.type === "model.request" && d.raw !== undefined && typeof d.call === "string") {
      const raw = rec(d.raw);
      const x: RecordedExchange = {
        index: exchanges.length,
        call: d.call,
        api: d.api as UpstreamApi,
        format: d.format as WireFormat,
        method: typeof raw.method === "string" ? raw.method : "POST",
        path: typeof raw.path === "string" ? raw.path : "",
        body: raw.body,
        model: typeof d.model === "string" ? d.model : "",
        contextSeq: typeof d.context === "number" ? d.context : e.seq,
        requestSeq: e.seq,
        toolResults: typeof d.context === "number" ? (byContext.get(d.context) ?? []) : [],
      };
      exchanges.push(x);
      byCall.set(d.call, x);
    } else if (e.type === "model.response" && typeof d.call === "string") {
      const x = byCall.get(d.call);
      if (x && x.responseSeq === undefined) {
        x.responseSeq = e.seq;
        x.answer = rawAnswer(d.raw);
      }
    } else if (e.type === "x-gateway.side") {
      const answer = rawAnswer(d.answer);
      if (answer) sides.push({ method: String(d.method ?? "GET"), path: String(d.path ?? "/"), api: d.api as UpstreamApi, answer });
    } else if (e.type === "run.end") endSeq = e.seq;
  }
  if (exchanges.length === 0) return null;
  const last = sorted[sorted.length - 1];
  return {
    run: sorted[0].run,
    head: typeof last.hash === "string" ? last.hash : null,
    command: Array.isArray(gateway.command) ? gateway.command.map(String) : null,
    places: Object.fromEntries(Object.entries(rec(gateway.places)).filter((kv): kv is [string, string] => typeof kv[1] === "string")),
    exchanges,
    sides,
    endSeq,
  };
}

/** The seq of the first event of an exchange (its first tool result, else its context). */
export function firstSeqOf(x: RecordedRequest): number {
  return x.toolResults.length > 0 ? Math.min(x.contextSeq, ...x.toolResults.map((t) => t.seq)) : x.contextSeq;
}
