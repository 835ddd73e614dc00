/**
 * A recorder whose `model()` and `tool()` answer from a recorded run (lib/playback) while it
 * records the replay as a branch journal. Every other method records as usual.
 *
 * - `model()`: the request (model, params, tools, the context event it names) is matched
 *   against the recorded requests with lib/playback's RequestMatcher. `recorded` mode
 *   answers with the recorded result (the client's result as the agent got it) even when
 *   the request differs, and marks it (`replay.match: false`), as the gateway's `recorded`
 *   mode does; `model-live` asks the caller's model instead and marks the answer `live`.
 * - `tool()`: the call is matched in recorded order (lib/playback ToolCallSequence). A
 *   recorded call answers as it was recorded: its result, or its error thrown again
 *   (`timeout` as ToolTimeoutError, `unknown` as ToolOutcomeUnknownError), never turned
 *   into a success or a failure; such an answer is flagged `replay.unresolved`. The agent's
 *   own tool function is never called for it. A call the recording does not have (or, in
 *   `model-live`, one whose arguments differ) is not answered: a write is blocked
 *   (WriteBlockedError, `replay.blocked`), a read throws ReplayDivergenceError unless
 *   `liveReads` lets it run for real (marked `live`).
 * - Before a tool call is matched, the policy guard (lib/playback PolicyGuard) judges it by
 *   the declared policy on the replay's own events so far (the branch as this recorder
 *   writes it): a call that breaks a contract's args schema or an invariant is refused,
 *   neither answered from the recording nor executed (PolicyRefusedError, `replay.refused`),
 *   and is a divergence of kind `policy` naming the rule.
 * - The first divergence (in the order calls are made) is kept; at `end()` a recorded
 *   model or tool call never made is one too (`missing-request`, `tool-call`). `run.end`
 *   carries `replay {match, divergence}`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { EventType, JournalEvent, JsonObject, JsonValue } from "../journal/types";
import { toJson } from "../journal/to-json";
import {
  PolicyGuard,
  recorderReading,
  recorderRequestBody,
  RecordedRequestMatcher,
  ToolCallSequence,
  RECORDER_FORMAT,
  type PolicyDivergence,
  type RecordedModelCall,
  type RecorderRecording,
  type RequestDivergence,
} from "../playback";
import {
  annotatedRecorder,
  ToolOutcomeUnknownError,
  ToolTimeoutError,
  toolStatusOf,
  type ModelRequest,
  type Recorder,
  type RecorderOptions,
} from "./recorder";

export type ReplayMode = "recorded" | "model-live";

/** What a `model-live` replay asks the caller's model: the request, its context, and the agent's own call. */
export interface LiveModelCall {
  request: ModelRequest;
  /** The `context` event the request names (messages, instructions, template), null when none. */
  context: JsonObject | null;
  /** The agent's own model call, if the caller wants it made. */
  call: () => Promise<unknown>;
}

/** The model a `model-live` replay answers from; its result goes to the agent as a client's would. */
export type LiveModel = (ask: LiveModelCall) => Promise<unknown>;

/** Thrown to the agent for a call the recording cannot answer; `divergence` says where it departs. */
export class ReplayDivergenceError extends Error {
  constructor(
    message: string,
    readonly divergence: RequestDivergence | null,
  ) {
    super(message);
    this.name = "ReplayDivergenceError";
  }
}

/** Thrown to the agent for a write the replay did not answer from the recording: it is never executed. */
export class WriteBlockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WriteBlockedError";
  }
}

/**
 * Thrown to the agent for a tool call that breaks the declared policy: it is neither answered
 * from the recording nor executed; `divergence` names the rule, the invariant and the evidence.
 */
export class PolicyRefusedError extends Error {
  constructor(
    message: string,
    readonly divergence: PolicyDivergence,
  ) {
    super(message);
    this.name = "PolicyRefusedError";
  }
}

export interface ReplayRecorderOptions {
  recording: RecorderRecording;
  mode: ReplayMode;
  /** Required in `model-live`. */
  model?: LiveModel;
  /** In `model-live`: a read the recording cannot answer runs for real (marked live) instead of failing. */
  liveReads?: boolean;
  /**
   * The declared policy tool calls are judged by (the JSON of run.start.data.policy),
   * replacing the recording's run.start policy; undefined: the recording's.
   */
  policy?: JsonValue;
  /** Fields for the branch's `run.start` (replayOf, mode, components…). */
  header: Record<string, unknown>;
  recorder: RecorderOptions;
}

export interface ReplayRecorder {
  recorder: Recorder;
  /** The first divergence so far (a missing call counts once the agent has ended). */
  readonly divergence: RequestDivergence | null;
  readonly ended: boolean;
  readonly requests: { recorded: number; replayed: number };
  readonly tools: { recorded: number; replayed: number };
}

type Marks = Partial<Record<EventType, Record<string, unknown>>>;

function describeDivergence(d: RequestDivergence): string {
  return `recorded seq ${d.seq}: ${d.kind}${d.path ? ` at ${d.path}` : ""}`;
}

function errorOf(v: JsonValue | undefined): { message: string; name?: string } {
  const o = v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
  return {
    message: typeof o.message === "string" ? o.message : typeof v === "string" ? v : "recorded error",
    ...(typeof o.name === "string" ? { name: o.name } : {}),
  };
}

/** The recorded model answer given to the agent again (a copy: the agent may change it). */
function recordedModelAnswer(x: RecordedModelCall | null, divergence: RequestDivergence | null): unknown {
  if (x === null)
    throw new ReplayDivergenceError(
      `retrace replay: the recording has no model call here (${describeDivergence(divergence!)})`,
      divergence,
    );
  const r = x.response;
  if (r === null) throw new ReplayDivergenceError(`retrace replay: recorded model call ${x.call} has no answer`, divergence);
  if (r.error !== undefined && r.error !== null) {
    const e = errorOf(r.error);
    const err = new Error(e.message);
    if (e.name) err.name = e.name;
    throw err;
  }
  if (r.result !== undefined) return structuredClone(r.result);
  // recorded before the recorder kept results: the outcome in the plain shape describeModelResult reads
  const output = (r.output ?? {}) as JsonObject;
  return { text: output.text, toolCalls: output.toolCalls, finishReason: r.finishReason, usage: r.usage };
}

/** The recorded tool answer given again: its result, or its error thrown with the recorded status. */
function recordedToolAnswer(result: JsonObject | null): unknown {
  const status = result?.status;
  if (status === "ok") return structuredClone(result!.result ?? null);
  const e = errorOf(result?.error);
  if (status === "timeout") throw new ToolTimeoutError(e.message);
  if (status === "error") {
    const err = new Error(e.message);
    if (e.name) err.name = e.name;
    // the name must not make the recorder call it a timeout or an unknown outcome
    if (toolStatusOf(err) !== "error") err.name = "Error";
    throw err;
  }
  throw new ToolOutcomeUnknownError(result === null ? "the recording has no outcome for this call" : e.message);
}

export function replayRecorder(opts: ReplayRecorderOptions): ReplayRecorder {
  const { recording, mode } = opts;
  if (mode === "model-live" && typeof opts.model !== "function")
    throw new TypeError("replayAgainst: mode model-live needs a model (options.model)");
  const clock = opts.recorder.clock ?? Date.now;
  const marks = new AsyncLocalStorage<Marks>();
  // the guard folds the branch as it is written, its run.start first
  const guard = new PolicyGuard(opts.policy !== undefined ? opts.policy : recording.start.policy);
  const sink = opts.recorder.sink;
  const observed = {
    write: (e: JournalEvent) => (sink.write(e), guard.observe(e)),
    flush: (t?: number) => sink.flush(t),
    close: (t?: number) => sink.close(t),
  };
  const base = annotatedRecorder({ ...opts.recorder, sink: observed }, (type) =>
    type === "run.start" ? opts.header : marks.getStore()?.[type],
  );
  const matcher = new RecordedRequestMatcher(recording, {}, recorderReading);
  const tools = new ToolCallSequence(recording.tools, recording.endSeq);
  const contexts = new Map<number, JsonObject>();
  let first: RequestDivergence | null = null;
  let ended = false;
  const note = (d: RequestDivergence | null) => {
    if (d !== null && first === null) first = d;
  };
  const liveMark = (reason: string) => ({ action: "continue", executor: "replay", reason, at: new Date(clock()).toISOString() });

  const recorder: Recorder = {
    get runId() {
      return base.runId;
    },
    get nextSeq() {
      return base.nextSeq;
    },
    get lastHash() {
      return base.lastHash;
    },
    get currentState() {
      return base.currentState;
    },
    get stateHash() {
      return base.stateHash;
    },
    input: (content, source) => base.input(content, source),
    context(ctx) {
      const seq = base.context(ctx);
      if (seq >= 0) contexts.set(seq, toJson(ctx) as JsonObject);
      return seq;
    },
    retrieval: (query, documents) => base.retrieval(query, documents),

    async model(req, call, describe) {
      const context = req.context !== undefined ? (contexts.get(req.context) ?? null) : null;
      const m = matcher.match(RECORDER_FORMAT, "", recorderRequestBody(toJson(req) as JsonObject, context));
      note(m.divergence);
      const replay = {
        recordedCall: m.exchange?.call ?? null,
        recordedSeq: m.exchange?.requestSeq ?? null,
        match: m.divergence === null,
        ...(m.divergence ? { divergence: m.divergence } : {}),
      };
      if (mode === "model-live") {
        const live = liveMark("model-live replay: the caller's model answers");
        return marks.run({ "model.request": { replay }, "model.response": { replay, live } }, () =>
          base.model(req, async () => (await opts.model!({ request: req, context, call })) as Awaited<ReturnType<typeof call>>, describe),
        );
      }
      return marks.run({ "model.request": { replay }, "model.response": { replay } }, () =>
        base.model(req, async () => recordedModelAnswer(m.exchange, m.divergence) as Awaited<ReturnType<typeof call>>, describe),
      );
    },

    async tool(name, o, args, fn) {
      // never a timer on an answer from the recording, nor on a refused call
      const options = { ...o, timeoutMs: undefined };
      const asked = toJson(args ?? {});
      const refused = guard.judge(name, asked, tools, o.effect === undefined ? {} : { effect: o.effect });
      if (refused !== null) {
        note(refused);
        const mark = { replay: { recordedCall: null, recordedSeq: refused.seq, match: false, divergence: refused, refused: refused.rule } };
        return marks.run({ "tool.call": mark, "tool.result": mark }, () =>
          base.tool(name, options, args, async () => {
            throw new PolicyRefusedError(`retrace replay: ${name} refused, never executed: ${refused.message}`, refused);
          }),
        );
      }
      const step = tools.ask(name, asked);
      note(step.divergence);
      const x = step.recorded;
      const replay = {
        recordedCall: x?.call ?? null,
        recordedSeq: x?.seq ?? null,
        match: step.divergence === null,
        ...(step.divergence ? { divergence: step.divergence } : {}),
      };
      if (x !== null && (mode === "recorded" || step.divergence === null)) {
        const status = x.result?.status;
        const unresolved = status !== "ok" && status !== "error";
        const resultMark = { replay: { ...replay, ...(unresolved ? { unresolved: true, outcome: status ?? "unknown" } : {}) } };
        return marks.run({ "tool.call": { replay }, "tool.result": resultMark }, () =>
          base.tool(name, options, args, async () => recordedToolAnswer(x.result) as Awaited<ReturnType<typeof fn>>),
        );
      }
      const write = o.effect === "write" || x?.effect === "write" || recording.tools.some((t) => t.tool === name && t.effect === "write");
      const why = step.divergence ? describeDivergence(step.divergence) : "not in the recording";
      if (write) {
        const blocked = { replay: { ...replay, blocked: true } };
        return marks.run({ "tool.call": blocked, "tool.result": blocked }, () =>
          base.tool(name, options, args, async () => {
            throw new WriteBlockedError(`retrace replay: write ${name} blocked, never executed (${why})`);
          }),
        );
      }
      if (mode === "model-live" && opts.liveReads) {
        const live = liveMark(`a read the recording does not answer (${why})`);
        return marks.run({ "tool.call": { replay, live }, "tool.result": { replay, live } }, () => base.tool(name, o, args, fn));
      }
      return marks.run({ "tool.call": { replay }, "tool.result": { replay } }, () =>
        base.tool(name, options, args, async () => {
          throw new ReplayDivergenceError(`retrace replay: ${name} cannot be answered from the recording (${why})`, step.divergence);
        }),
      );
    },

    state: (patch) => base.state(patch),
    setState: (value) => base.setState(value),
    checkpoint: (o) => base.checkpoint(o),
    approvalRequest: (call, policy) => base.approvalRequest(call, policy),
    approvalDecision: (approval, decision, by, reason) => base.approvalDecision(approval, decision, by, reason),
    decision: (action, o) => base.decision(action, o),
    error: (message, o) => base.error(message, o),
    reconcile: (call, outcome, o) => base.reconcile(call, outcome, o),
    step: (name, fn, o) => base.step(name, fn, o),
    note: (text) => base.note(text),

    async end(status, o) {
      if (!ended) {
        ended = true;
        const missing = [matcher.missing(), tools.missing()]
          .filter((d): d is RequestDivergence => d !== null)
          .sort((a, b) => a.seq - b.seq);
        note(missing[0] ?? null);
      }
      return marks.run({ "run.end": { replay: { match: first === null, divergence: first } } }, () => base.end(status, o));
    },
  };

  return {
    recorder,
    get divergence() {
      return first;
    },
    get ended() {
      return ended;
    },
    get requests() {
      return { recorded: recording.exchanges.length, replayed: matcher.replayed };
    },
    get tools() {
      return { recorded: tools.recorded, replayed: tools.replayed };
    },
  };
}
