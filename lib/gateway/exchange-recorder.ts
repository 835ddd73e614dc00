/**
 * One model call as journal events. For a request: a `tool.result` for each result of an
 * earlier answer's tool call that the agent now sends back (status `error` when the API's
 * error flag says so), an `input` (`source: user`) for each user message no earlier
 * request of the session sent at the same place in its conversation (what the user said:
 * the declared policy's `confirmed-by-input` and `arg-from-input` read it), the `context`
 * (system, messages and tools as sent, in the one
 * message shape) and the `model.request` (model, params, tool names, the API, the raw
 * request without credentials). For its answer: the `model.response` (text, tool calls with
 * object arguments, usage, finish reason, latency, time to first chunk, the raw answer) and
 * a `tool.call` for each tool call, its effect inferred as the importers infer it.
 */
import { inferEffect } from "../importers/effects";
import type { JournalWriter } from "./journal-writer";
import type { JournalMessage } from "../importers/messages";
import type { ModelCallAnswer, ModelCallRequest, RawAnswer, RawRequest, UpstreamApi } from "./types";

export interface RequestSeqs {
  call: string;
  context: number;
  request: number;
  toolResults: number[];
}

export interface AnswerTiming {
  latencyMs: number;
  /** Time to the first chunk of a streamed answer. */
  firstChunkMs?: number;
  /** Time to its first chunk with model output (a text or tool-call delta). */
  firstTokenMs?: number;
}

interface OpenToolCall {
  seq: number;
  name: string;
}

export class ExchangeRecorder {
  private calls = 0;
  /** Tool calls whose result has not come back yet, by id. */
  private readonly open = new Map<string, OpenToolCall>();
  /**
   * The conversations sent so far, each the JSON of its messages as last sent: a request
   * continues the one it shares the longest prefix with, and the messages past that prefix
   * are new (an agent resends the whole conversation each time; a sub-agent's conversation
   * is another one). Plain string equality: hashing each message of each request with the
   * canonical hash cost 49 ms a request on a 400 kB conversation, JSON.stringify 0.5 ms.
   */
  private readonly conversations: string[][] = [];

  constructor(private readonly journal: JournalWriter) {}

  /** Records a model request; `extra` goes into `model.request`'s data (a replay's marks). */
  request(api: UpstreamApi, req: ModelCallRequest, raw: RawRequest, extra: Record<string, unknown> = {}): RequestSeqs {
    const call = `m${++this.calls}`;
    const toolResults: number[] = [];
    for (const m of req.messages) {
      if (m.role !== "tool") continue;
      const id = this.openCallFor(m.toolCallId, m.name);
      if (id === undefined) continue;
      const opened = this.open.get(id)!;
      this.open.delete(id);
      toolResults.push(
        this.journal.append("tool.result", { call: id, status: m.isError ? "error" : "ok", result: m.content, ...extra }, opened.seq),
      );
    }
    for (const i of this.newMessages(req.messages))
      if (req.messages[i].role === "user") this.journal.append("input", { source: "user", content: req.messages[i].content, ...extra });
    const messages = req.messages.map((m) => ({ ...m }));
    const context = this.journal.append("context", {
      messages: req.system === null ? messages : [{ role: "system", content: req.system }, ...messages],
      system: req.system,
      tools: req.tools.map((t) => ({ ...t })),
    });
    const request = this.journal.append("model.request", {
      call,
      model: req.model,
      params: req.params,
      context,
      tools: req.tools.map((t) => t.name),
      api,
      format: req.format,
      stream: req.stream,
      raw,
      ...extra,
    });
    return { call, context, request, toolResults };
  }

  /** Records the answer to `seqs`'s request; returns the `model.response` seq. */
  answer(seqs: RequestSeqs, answer: ModelCallAnswer, raw: RawAnswer, timing: AnswerTiming, extra: Record<string, unknown> = {}): number {
    // Gemini function calls before Gemini 3 have no id: name them after the answer
    const toolCalls = answer.toolCalls.map((c, i) => ({ ...c, id: c.id !== "" ? c.id : `${seqs.call}-${i}` }));
    const output: Record<string, unknown> = { text: answer.text };
    if (toolCalls.length > 0) output.toolCalls = toolCalls;
    const data: Record<string, unknown> = {
      call: seqs.call,
      output,
      finishReason: answer.finishReason,
      usage: answer.usage,
      latencyMs: timing.latencyMs,
      firstChunkMs: timing.firstChunkMs,
      firstTokenMs: timing.firstTokenMs,
      error: answer.error,
      raw,
      ...extra,
    };
    for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
    const response = this.journal.append("model.response", data, seqs.request);
    for (const c of toolCalls) {
      const effect = inferEffect(c.name, c.args);
      const seq = this.journal.append(
        "tool.call",
        { call: c.id, tool: c.name, args: c.args, effect: effect.effect, effectInferred: effect.effectInferred, ...extra },
        response,
      );
      this.open.set(c.id, { seq, name: c.name });
    }
    return response;
  }

  /** Indexes of the messages no earlier request sent at their place in a conversation. */
  private newMessages(messages: readonly JournalMessage[]): number[] {
    const sent = messages.map((m) => JSON.stringify(m));
    let best = -1;
    let shared = 0;
    this.conversations.forEach((c, k) => {
      let n = 0;
      while (n < c.length && n < sent.length && c[n] === sent[n]) n++;
      if (n > shared) [best, shared] = [k, n];
    });
    if (best < 0) this.conversations.push(sent);
    else this.conversations[best] = sent.length >= this.conversations[best].length ? sent : this.conversations[best];
    return sent.map((_, i) => i).slice(shared);
  }

  /** The open call a result answers: by id, else (Gemini) the oldest open call of that tool. */
  private openCallFor(id: string | undefined, name: string | undefined): string | undefined {
    if (id !== undefined && this.open.has(id)) return id;
    if (name === undefined) return undefined;
    for (const [openId, c] of this.open) if (c.name === name) return openId;
    return undefined;
  }
}
