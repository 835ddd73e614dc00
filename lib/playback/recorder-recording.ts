/**
 * A run recorded with the recorder SDK (lib/recorder) read back for replay: each model call
 * as a request the matcher (model-request.ts) compares, with its recorded answer, and every
 * tool call in seq order (tool-sequence.ts answers them).
 *
 * A recorder request is compared as one body, built the same way from the recording and from
 * the replay (`recorderRequestBody`):
 *
 *   { model, params, tools, context: { messages, instructions, template }, messages }
 *
 * `context` is the `context` event the request names (its seq differs between runs, so the
 * event's content stands in for it); `messages` are those given in the request itself.
 * Where a difference lies (`classifyRecorderRequest`): `/model` the model, `/params` its
 * params, `/tools` the tools; in the context, a `system` message, the instructions and the
 * template are the system prompt, a `tool` message (or one whose `source` is `tool:NAME`) a
 * tool result, any other message the messages.
 *
 * A message whose content is JSON text (a tool result the agent stringified) is compared by
 * its canonical JSON (RFC 8785): a result answered from the journal has its keys in the
 * journal's canonical order, not in the order the tool first produced them.
 */
import { canonicalJson } from "../canonical";
import type { PartOfRequest } from "../gateway/apis/codec";
import type { JournalEvent, JsonObject } from "../journal/types";
import type { RecordedRequest, RecordedToolResult } from "./gateway-recording";
import type { RequestClassifier, RequestReading } from "./model-request";
import { indexRecording, type RecordedTool } from "./recording";

/** The body format of a recorder request, as the matcher names it. */
export const RECORDER_FORMAT = "recorder";

/** A recorded model call: the request as compared, and the `model.response` data it got. */
export interface RecordedModelCall extends RecordedRequest {
  /** The `model.response` data (`result`: the client's result as the agent received it; `output`, `error`…), null when none came. */
  response: JsonObject | null;
}

export interface RecorderRecording {
  run: string;
  /** The hash of the run's last event (its chain head), when hashed. */
  head: string | null;
  /** The `run.start` data. */
  start: JsonObject;
  /** The model calls in request order (RequestMatcher reads `exchanges` and `endSeq`). */
  exchanges: RecordedModelCall[];
  /** Every recorded tool call (the call ledger's, lib/playback indexRecording), in seq order. */
  tools: RecordedTool[];
  /** seq of run.end, or one past the last event. */
  endSeq: number;
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** JSON text in its canonical form; any other text as it is. */
function canonicalText(s: string): string {
  if (!/^\s*[[{]/.test(s)) return s;
  try {
    return canonicalJson(JSON.parse(s));
  } catch {
    return s;
  }
}

function comparedMessages(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((m) => {
    const r = rec(m);
    return typeof r.content === "string" ? { ...r, content: canonicalText(r.content) } : m;
  });
}

/** The body a recorder request is compared as (see the file comment). */
export function recorderRequestBody(request: Record<string, unknown>, context: Record<string, unknown> | null): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model ?? null };
  if (request.params !== undefined) body.params = request.params;
  if (request.tools !== undefined) body.tools = request.tools;
  if (context !== null) {
    const ctx: Record<string, unknown> = { messages: comparedMessages(context.messages ?? []) };
    if (context.instructions !== undefined) ctx.instructions = context.instructions;
    if (context.template !== undefined) ctx.template = context.template;
    body.context = ctx;
  }
  if (request.messages !== undefined) body.messages = comparedMessages(request.messages);
  return body;
}

function messagePart(message: unknown): PartOfRequest {
  const m = rec(message);
  const source = typeof m.source === "string" ? m.source : "";
  if (m.role === "system" || m.role === "developer") return { part: "system" };
  if (m.role === "tool" || source.startsWith("tool:")) {
    const id = m.toolCallId ?? m.tool_call_id ?? m.call;
    return {
      part: "tool-result",
      ...(typeof id === "string" ? { toolCallId: id } : {}),
      ...(source.startsWith("tool:") ? { toolName: source.slice(5) } : typeof m.name === "string" ? { toolName: m.name } : {}),
    };
  }
  return { part: "messages" };
}

/** Where in a recorder request body a difference lies (see the file comment). */
export const classifyRecorderRequest: RequestClassifier = (_format, pointer, body) => {
  const [top, second, index] = pointer;
  const b = rec(body);
  if (top === "model") return { part: "model" };
  if (top === "tools") return { part: "tools" };
  if (top === "context") {
    if (second !== "messages") return { part: "system" };
    const messages = rec(b.context).messages;
    return Array.isArray(messages) && index !== undefined ? messagePart(messages[Number(index)]) : { part: "messages" };
  }
  if (top === "messages") {
    const messages = b.messages;
    return Array.isArray(messages) && second !== undefined ? messagePart(messages[Number(second)]) : { part: "messages" };
  }
  return { part: "params" };
};

/**
 * How the matcher reads recorder requests (RecordedRequestMatcher). A request never made is
 * reported at its context (else its model.request): the tool results before it are the
 * agent's own events, matched as tool calls.
 */
export const recorderReading: RequestReading = { classify: classifyRecorderRequest, firstSeq: (x) => x.contextSeq };

/** The recorder recording of one run's events (in any order); null when the run has no events. */
export function readRecorderRecording(events: readonly JournalEvent[]): RecorderRecording | null {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  if (sorted.length === 0) return null;
  const contexts = new Map<number, Record<string, unknown>>();
  const toolNames = new Map<string, string>();
  const byContext = new Map<number, RecordedToolResult[]>();
  const byCall = new Map<string, RecordedModelCall>();
  const models: RecordedModelCall[] = [];
  let pending: RecordedToolResult[] = [];
  let endSeq = sorted[sorted.length - 1].seq + 1;
  let start: JsonObject = {};
  for (const e of sorted) {
    const d = e.data;
    if (e.type === "run.start") start = d;
    else if (e.type === "tool.call" && typeof d.call === "string" && typeof d.tool === "string") toolNames.set(d.call, d.tool);
    else if (e.type === "tool.result" && typeof d.call === "string")
      pending.push({ seq: e.seq, call: d.call, tool: toolNames.get(d.call) });
    else if (e.type === "context") {
      contexts.set(e.seq, d);
      byContext.set(e.seq, pending);
      pending = [];
    } else if (e.type === "model.request" && typeof d.call === "string") {
      const contextSeq = typeof d.context === "number" && contexts.has(d.context) ? d.context : null;
      const x: RecordedModelCall = {
        index: models.length,
        call: d.call,
        format: RECORDER_FORMAT,
        method: "",
        path: "",
        body: recorderRequestBody(d, contextSeq === null ? null : contexts.get(contextSeq)!),
        model: typeof d.model === "string" ? d.model : "",
        contextSeq: contextSeq ?? e.seq,
        requestSeq: e.seq,
        toolResults: contextSeq === null ? pending.splice(0) : (byContext.get(contextSeq) ?? []),
        response: null,
      };
      models.push(x);
      byCall.set(d.call, x);
    } else if (e.type === "model.response" && typeof d.call === "string") {
      const x = byCall.get(d.call);
      if (x && x.responseSeq === undefined) {
        x.responseSeq = e.seq;
        x.response = d;
      }
    } else if (e.type === "run.end") endSeq = e.seq;
  }
  const tools = [...indexRecording(sorted).byTool.values()].flat().sort((a, b) => a.seq - b.seq);
  const last = sorted[sorted.length - 1];
  return {
    run: sorted[0].run,
    head: typeof last.hash === "string" ? last.hash : null,
    start,
    exchanges: models,
    tools,
    endSeq,
  };
}
