/**
 * The recorder: an agent calls it around what it does, and it writes a journal (format v1)
 * with seq, ts and the chain hash on every event, keeping the run state and its hash itself.
 *
 * Rules it follows:
 * - Recording never throws into the agent and never waits on the network: misuse and sink
 *   trouble go to `onError`. Errors thrown by the agent's own model/tool/step functions are
 *   recorded and re-thrown unchanged, as if the recorder were not there.
 * - Each event is hashed when it is created, so the chain covers exactly what is sent.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { hashOf } from "../canonical";
import { toJson } from "../journal/to-json";
import type { EventType, JournalEvent, JsonObject, JsonValue, RunId, RunPolicy, Seq } from "../journal/types";
import { applyPatch } from "../state";
import { computeEventHash as chainHash } from "../journal/chain";
import { defaultReporter, type ErrorReporter, type Sink } from "./types";

export interface NameVersion {
  name: string;
  version?: string;
}

export interface RecorderOptions {
  runId?: string;
  workflow: NameVersion;
  agent?: NameVersion;
  versions?: {
    prompts?: Record<string, string>;
    policies?: Record<string, string>;
    tools?: Record<string, string>;
    models?: Record<string, string>;
  };
  environment?: string;
  initiator?: { kind: string; id?: string };
  policy?: RunPolicy;
  /** The run's input as recorded in `run.start`. */
  input?: unknown;
  tags?: string[];
  resumeOf?: { run: string; checkpoint?: string };
  sink: Sink;
  /** Epoch milliseconds; inject a fixed clock for reproducible journals. */
  clock?: () => number;
  onError?: ErrorReporter;
}

export interface ModelRequest {
  model: string;
  params?: Record<string, unknown>;
  /** seq of the `context` event sent (from `recorder.context`). */
  context?: number;
  messages?: unknown[];
  tools?: string[];
}

export interface ToolCallRequest {
  id: string;
  name: string;
  args: unknown;
}

/** What a model call produced, as the journal records it. */
export interface ModelOutcome {
  text?: string;
  toolCalls?: ToolCallRequest[];
  finishReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface ToolOptions {
  effect: "read" | "write";
  idempotencyKey?: string;
  target?: unknown;
  version?: string;
  /** Gives up waiting after this long: recorded as `timeout`, a `ToolTimeoutError` is thrown. */
  timeoutMs?: number;
  /** The id of the external operation the result stands for (payment id, PR number…). */
  externalId?: (result: unknown) => string | undefined;
  /** Call id to use instead of a generated one (e.g. the model's tool call id). */
  call?: string;
}

/** Thrown (or thrown by a tool) when waiting for a tool ended before it answered. */
export class ToolTimeoutError extends Error {
  constructor(message = "tool call timed out") {
    super(message);
    this.name = "ToolTimeoutError";
  }
}

/** Throw from a tool when it cannot tell whether its effect happened (connection lost…). */
export class ToolOutcomeUnknownError extends Error {
  constructor(message = "tool outcome unknown") {
    super(message);
    this.name = "ToolOutcomeUnknownError";
  }
}

type ToolStatus = "error" | "timeout" | "unknown";

/** Maps an error thrown by a tool to the journal's status. */
export function toolStatusOf(err: unknown): ToolStatus {
  const e = err as { name?: unknown; code?: unknown; outcome?: unknown } | null;
  if (err instanceof ToolTimeoutError || e?.name === "TimeoutError" || e?.code === "ETIMEDOUT" || e?.code === "UND_ERR_HEADERS_TIMEOUT")
    return "timeout";
  if (err instanceof ToolOutcomeUnknownError || e?.outcome === "unknown" || e?.code === "ECONNRESET" || e?.code === "EPIPE")
    return "unknown";
  return "error";
}

function errorJson(err: unknown): JsonObject {
  if (err instanceof Error) {
    const out: JsonObject = { message: err.message, name: err.name };
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" || typeof code === "number") out.code = code;
    return out;
  }
  return { message: String(err) };
}

/** Reads text, tool calls and usage from common model client results (OpenAI, Anthropic, plain). */
export function describeModelResult(r: unknown): ModelOutcome {
  if (r === null || typeof r !== "object") return typeof r === "string" ? { text: r } : {};
  const o = r as Record<string, unknown>;
  const usageIn = (o.usage ?? {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  const usage = {
    inputTokens: num(usageIn.inputTokens) ?? num(usageIn.input_tokens) ?? num(usageIn.prompt_tokens),
    outputTokens: num(usageIn.outputTokens) ?? num(usageIn.output_tokens) ?? num(usageIn.completion_tokens),
  };
  const out: ModelOutcome = {};
  if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) out.usage = usage;
  const choices = Array.isArray(o.choices) ? (o.choices as Array<Record<string, unknown>>) : undefined;
  if (choices && choices[0]) {
    const msg = (choices[0].message ?? {}) as Record<string, unknown>;
    if (typeof msg.content === "string") out.text = msg.content;
    const calls = Array.isArray(msg.tool_calls) ? (msg.tool_calls as Array<Record<string, unknown>>) : [];
    if (calls.length > 0) {
      out.toolCalls = calls.map((c, i) => {
        const fn = (c.function ?? {}) as Record<string, unknown>;
        let args: unknown = fn.arguments;
        if (typeof args === "string") {
          try {
            args = JSON.parse(args);
          } catch {
            // keep the text
          }
        }
        return { id: typeof c.id === "string" ? c.id : `tc_${i}`, name: String(fn.name ?? "unknown"), args: args ?? {} };
      });
    }
    if (typeof choices[0].finish_reason === "string") out.finishReason = choices[0].finish_reason;
    return out;
  }
  if (Array.isArray(o.content)) {
    const blocks = o.content as Array<Record<string, unknown>>;
    const texts = blocks.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
    if (texts.length > 0) out.text = texts.join("\n");
    const uses = blocks.filter((b) => b.type === "tool_use");
    if (uses.length > 0)
      out.toolCalls = uses.map((b, i) => ({ id: String(b.id ?? `tc_${i}`), name: String(b.name ?? "unknown"), args: b.input ?? {} }));
    if (typeof o.stop_reason === "string") out.finishReason = o.stop_reason;
    return out;
  }
  if (typeof o.text === "string") out.text = o.text;
  if (Array.isArray(o.toolCalls)) out.toolCalls = o.toolCalls as ToolCallRequest[];
  if (typeof o.finishReason === "string") out.finishReason = o.finishReason;
  return out;
}

export interface Recorder {
  readonly runId: string;
  /** seq the next event will get. */
  readonly nextSeq: number;
  readonly lastHash: string;
  /** The run state as recorded so far (starts as {}). */
  readonly currentState: JsonValue;
  readonly stateHash: string;
  input(content: unknown, source?: "user" | "system" | "event"): number;
  context(ctx: {
    messages: Array<{ role: string; content: unknown; source?: string }>;
    instructions?: string[];
    template?: { id: string; version?: string };
    tokens?: number;
  }): number;
  retrieval(
    query: unknown,
    documents: Array<{ id: string; version?: string; indexedAt?: string; uri?: string; content?: unknown }>,
  ): number;
  model<T>(req: ModelRequest, call: () => Promise<T>, describe?: (result: T) => ModelOutcome): Promise<T>;
  tool<A, R>(name: string, opts: ToolOptions, args: A, fn: (args: A) => Promise<R>): Promise<R>;
  state(patch: Array<{ op: string; path: string; value?: unknown; from?: string }>): boolean;
  setState(value: unknown): boolean;
  checkpoint(opts?: { id?: string; durable?: boolean }): string;
  approvalRequest(call: string, policy?: { id: string; version?: string }): string;
  approvalDecision(approval: string, decision: "approved" | "denied", by: unknown, reason?: string): number;
  decision(action: "continue" | "stop" | "branch", opts?: { reason?: string; stop?: { condition?: unknown; met?: boolean } }): number;
  error(message: string, opts?: { code?: string | number; retryable?: boolean }): number;
  reconcile(call: string, outcome: "succeeded" | "failed", opts?: { evidence?: unknown; by?: unknown }): number;
  step<T>(name: string, fn: () => Promise<T>, opts?: { kind?: string }): Promise<T>;
  note(text: string): number;
  /** Records `run.end` and waits (up to the timeout) for the sink to deliver everything. */
  end(status: "succeeded" | "failed" | "cancelled", opts?: { output?: unknown; error?: unknown; timeoutMs?: number }): Promise<boolean>;
}

/**
 * Fields added to an event's data as it is created (the replay marks what it answered with,
 * replay-recorder.ts). Called synchronously inside the agent's async context.
 */
export type Annotate = (type: EventType, data: Record<string, unknown>) => Record<string, unknown> | undefined;

export function createRecorder(opts: RecorderOptions): Recorder {
  return annotatedRecorder(opts);
}

/** A recorder whose events get `annotate`'s fields too (not exported by the package: the replay's). */
export function annotatedRecorder(opts: RecorderOptions, annotate?: Annotate): Recorder {
  const clock = opts.clock ?? Date.now;
  const report = opts.onError ?? defaultReporter;
  const runId = (opts.runId ??
    `run-${new Date(clock())
      .toISOString()
      .replace(/[^0-9]/g, "")
      .slice(0, 14)}-${randomBytes(4).toString("hex")}`) as RunId;
  const steps = new AsyncLocalStorage<string>();
  let seq = 0;
  let lastHash = "";
  let ended = false;
  let state: JsonValue = {};
  let stateHash = hashOf({});
  let stepCounter = 0;
  let checkpointCounter = 0;
  const callSeq = new Map<string, number>();
  const stepStartSeq = new Map<string, number>();

  const emit = (type: EventType, data: Record<string, unknown>, extra?: { parent?: number; step?: string | null }): number => {
    if (ended) {
      report(new Error(`run ${runId} has ended; a ${type} event was not recorded`));
      return -1;
    }
    const added = annotate?.(type, data);
    const event: JournalEvent = {
      run: runId,
      seq: seq as Seq,
      ts: new Date(clock()).toISOString(),
      type,
      data: toJson(added ? { ...data, ...added } : data) as JsonObject,
    };
    const step = extra?.step === null ? undefined : (extra?.step ?? steps.getStore());
    if (step !== undefined) event.step = step;
    if (extra?.parent !== undefined && extra.parent >= 0) event.parent = extra.parent as Seq;
    event.hash = chainHash(lastHash, event);
    lastHash = event.hash;
    seq++;
    if (type === "run.end") ended = true;
    try {
      opts.sink.write(event);
    } catch (e) {
      report(e instanceof Error ? e : new Error(String(e)));
    }
    return event.seq;
  };

  const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

  emit(
    "run.start",
    compact({
      workflow: opts.workflow,
      agent: opts.agent,
      versions: opts.versions,
      environment: opts.environment,
      initiator: opts.initiator,
      input: opts.input,
      policy: opts.policy,
      resumeOf: opts.resumeOf,
      tags: opts.tags,
    }),
  );

  const recorder: Recorder = {
    get runId() {
      return runId;
    },
    get nextSeq() {
      return seq;
    },
    get lastHash() {
      return lastHash;
    },
    get currentState() {
      return state;
    },
    get stateHash() {
      return stateHash;
    },

    input: (content, source = "user") => emit("input", { source, content }),
    context: (ctx) => emit("context", compact({ ...ctx })),
    retrieval: (query, documents) => emit("retrieval", { query, documents }),

    async model<T>(req: ModelRequest, call: () => Promise<T>, describe?: (result: T) => ModelOutcome): Promise<T> {
      const callId = `m_${seq}`;
      const requestSeq = emit("model.request", compact({ call: callId, ...req }));
      const t0 = clock();
      try {
        const result = await call();
        let outcome: ModelOutcome = {};
        try {
          outcome = describe ? describe(result) : describeModelResult(result);
        } catch (e) {
          report(new Error(`describing the model result failed: ${e instanceof Error ? e.message : String(e)}`));
        }
        const output = compact({ text: outcome.text, toolCalls: outcome.toolCalls });
        emit(
          "model.response",
          compact({
            call: callId,
            output,
            finishReason: outcome.finishReason,
            usage: outcome.usage,
            latencyMs: Math.max(0, clock() - t0),
            // the client's result as the agent got it: a replay answers the agent with it again
            result: result ?? null,
          }),
          { parent: requestSeq },
        );
        return result;
      } catch (err) {
        emit("model.response", { call: callId, error: errorJson(err), latencyMs: Math.max(0, clock() - t0) }, { parent: requestSeq });
        throw err;
      }
    },

    async tool<A, R>(name: string, o: ToolOptions, args: A, fn: (args: A) => Promise<R>): Promise<R> {
      const call = o.call ?? `t_${seq}`;
      const callEventSeq = emit(
        "tool.call",
        compact({
          call,
          tool: name,
          version: o.version,
          args: args ?? {},
          effect: o.effect,
          idempotencyKey: o.idempotencyKey,
          target: o.target,
        }),
      );
      callSeq.set(call, callEventSeq);
      const t0 = clock();
      let timer: NodeJS.Timeout | undefined;
      try {
        const work = fn(args);
        const result =
          o.timeoutMs === undefined
            ? await work
            : await Promise.race([
                work,
                new Promise<never>((_, reject) => {
                  timer = setTimeout(() => reject(new ToolTimeoutError(`${name} did not answer within ${o.timeoutMs} ms`)), o.timeoutMs);
                }),
              ]);
        let externalId: string | undefined;
        try {
          externalId = o.externalId?.(result);
        } catch (e) {
          report(new Error(`externalId() failed: ${e instanceof Error ? e.message : String(e)}`));
        }
        emit("tool.result", compact({ call, status: "ok", result: result ?? null, externalId, latencyMs: Math.max(0, clock() - t0) }), {
          parent: callEventSeq,
        });
        return result;
      } catch (err) {
        emit(
          "tool.result",
          { call, status: toolStatusOf(err), error: errorJson(err), latencyMs: Math.max(0, clock() - t0) },
          { parent: callEventSeq },
        );
        throw err;
      } finally {
        if (timer) clearTimeout(timer);
      }
    },

    state(patch) {
      const r = applyPatch(state, patch);
      if (!r.ok) {
        report(new Error(`state patch not applied (${r.error}); nothing was recorded`));
        return false;
      }
      state = r.state;
      stateHash = hashOf(state);
      emit("state", { patch, hash: stateHash });
      return true;
    },

    setState(value) {
      state = toJson(value);
      stateHash = hashOf(state);
      emit("state", { set: state, hash: stateHash });
      return true;
    },

    checkpoint(o = {}) {
      const id = o.id ?? `cp_${++checkpointCounter}`;
      emit("checkpoint", { id, state, hash: stateHash, durable: o.durable ?? false });
      return id;
    },

    approvalRequest(call, policy) {
      const approval = `ap_${seq}`;
      emit("approval.request", compact({ approval, call, policy, stateHash }), {
        parent: callSeq.get(call),
      });
      return approval;
    },

    approvalDecision: (approval, decision, by, reason) => emit("approval.decision", compact({ approval, decision, by, reason, stateHash })),
    decision: (action, o = {}) => emit("decision", compact({ action, reason: o.reason, stop: o.stop })),
    error: (message, o = {}) => emit("error", compact({ message, code: o.code, retryable: o.retryable })),
    reconcile: (call, outcome, o = {}) =>
      emit("reconcile", compact({ call, outcome, evidence: o.evidence, by: o.by }), { parent: callSeq.get(call) }),

    async step<T>(name: string, fn: () => Promise<T>, o: { kind?: string } = {}): Promise<T> {
      const id = `s${++stepCounter}`;
      // a nested step names its enclosing step's start, so a failure inside is counted once
      const outer = steps.getStore();
      const startSeq = emit("step.start", compact({ name, kind: o.kind }), {
        step: id,
        parent: outer !== undefined ? stepStartSeq.get(outer) : undefined,
      });
      stepStartSeq.set(id, startSeq);
      try {
        const result = await steps.run(id, fn);
        emit("step.end", { status: "ok" }, { step: id, parent: startSeq });
        return result;
      } catch (err) {
        emit("step.end", { status: "error", error: errorJson(err) }, { step: id, parent: startSeq });
        throw err;
      } finally {
        stepStartSeq.delete(id);
      }
    },

    note: (text) => emit("note", { text }),

    async end(status, o = {}) {
      emit(
        "run.end",
        compact({
          status,
          output: o.output,
          error: o.error === undefined ? undefined : o.error instanceof Error ? errorJson(o.error) : o.error,
        }),
        { step: null },
      );
      try {
        return await opts.sink.flush(o.timeoutMs ?? 10_000);
      } catch (e) {
        report(e instanceof Error ? e : new Error(String(e)));
        return false;
      }
    },
  };
  return recorder;
}
