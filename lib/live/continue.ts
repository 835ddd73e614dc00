/**
 * The continuation engine (pure): from a point of a recorded run, with a what-if edit
 * applied or none, go on as the agent would have, a model turn at a time. It decides what
 * to ask and records what came back; every outside call goes through the ports it is given
 * (the server passes HTTP to the project's executors, tests pass fakes), so nothing here
 * does I/O and a simulated replay (lib/replay) never reaches this file.
 *
 * Contract (used by "continue a fork live" and by "resume from a checkpoint"):
 *
 *   const start = continuationStart(events, { seq, override? })   // throws PlanError
 *   const out = await runContinuation({ start, recording: events, policy, ports, mark })
 *   const journal = continuationJournal({ branchRun, original, start, outcome: out, ts })
 *
 * - `continuationStart` keeps the original's events up to the fork (the edited one
 *   replaced and marked `data.whatIf`), and assembles the context the agent would send
 *   next: the last recorded model.request's messages (its `messages`, else its `context`
 *   event's), the assistant turn that answered it, and the tool results of that turn up to
 *   the fork, the edited one substituted. Tool calls of that turn with no result yet are
 *   `pending`: they are answered before the model is called again.
 * - `runContinuation` loops: answer the pending tool calls, then call the model (at most
 *   `policy.maxTurns` times), until the model answers with no tool call or a stop:
 *   * a read call (the recording says `effect: read`, and the tool is not gated by the
 *     policy's requireApproval) is answered from the recording when a recorded call of the
 *     same tool has canonically equal arguments (lib/canonical) and a result, otherwise by
 *     `ports.readTool` (the read executor); no read executor: stop `read-needs-executor`;
 *   * a write call (or a tool never recorded, or a gated one) is never sent: with
 *     `policy.reuseConfirmedWrites` (resume) a write canonically equal to a recorded one
 *     confirmed by an ok result or a `succeeded` reconcile is answered from that; else with
 *     `policy.writes = "block"` (sandbox-only) the agent gets an error result and goes on;
 *     with `"stop"` the call is recorded as pending and the continuation stops
 *     (`write-needs-confirmation`) for a separate, confirmed live action;
 *   * the stop reason is one of STOP_REASONS and is recorded (a `decision` and `run.end`).
 * - Every event it adds carries `data.live` (`mark` plus where an answer came from), so the
 *   branch's frames read as recorded (copied), simulated (`data.whatIf`) or live.
 *
 * `branchReconciles` (LiveBranch reconciles of the recording's calls) count as its own
 * reconciles for `reuseConfirmedWrites`. `ports` may throw; a model port that throws stops with `model-error`, a read port that
 * throws gives the agent an `unknown` result (as a failed executor request is recorded).
 */
import { canonicalJson, canonicallyEqual, sha256Hex } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue, RunPolicy } from "../journal/types";
import { buildForkPlan, ReplayError } from "../replay/plan";
import type { ForkOverride } from "../replay/types";
import { callLedger } from "../semantics";
import { PlanError } from "./plan";
import type { BranchReconcile } from "./types";

import { frameMode, type FrameMode } from "./mode";

export { frameMode, type FrameMode };

/** An OpenAI chat-completions message. */
export interface ChatMessage {
  role: string;
  content: string | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: ChatToolCall[];
}
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool call the model asked for. */
export interface AskedCall {
  id: string;
  name: string;
  args: JsonValue;
}

export interface ModelSetup {
  model: string;
  params: JsonObject;
  tools: string[];
  /**
   * The instruction ids of the last recorded context before the fork: the agent assembles
   * its next contexts with the same ones, so a live context without them would be reported
   * as context.instruction-omitted for something the agent never dropped.
   */
  instructions?: string[];
}

export interface ContinueStart {
  original: string;
  /** the seq the branch forks at (forkOf.seq) */
  forkSeq: number;
  /** the last original seq the branch keeps */
  upTo: number;
  /** the original's events up to `upTo`, the edited ones replaced (and marked `data.whatIf`) */
  kept: JournalEvent[];
  /** seqs the what-if edited */
  edited: number[];
  /** the branch's policy (the run's, with the fork's policy laid over it) */
  policy: RunPolicy | null;
  messages: ChatMessage[];
  pending: AskedCall[];
  setup: ModelSetup;
  override: ForkOverride | null;
}

export const STOP_REASONS = ["final-answer", "write-needs-confirmation", "read-needs-executor", "max-turns", "model-error"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface ContinuePolicy {
  /** model calls at most (a bound on the loop) */
  maxTurns: number;
  /** what a write call does: stop for a separate confirmation, or get an error result (sandbox-only mode) */
  writes: "stop" | "block";
  /** resume: a write equal to a recorded one confirmed by result or reconcile is answered from the recording */
  reuseConfirmedWrites: boolean;
  /** answer read calls from the recording when the arguments are canonically equal (else the read executor answers them all) */
  reuseReads: boolean;
}

export const DEFAULT_POLICY: ContinuePolicy = { maxTurns: 4, writes: "stop", reuseConfirmedWrites: false, reuseReads: true };

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  params: JsonObject;
  tools: string[];
}

export interface ModelAnswer {
  text: string | null;
  toolCalls: AskedCall[];
  finishReason: string | null;
  usage: { inputTokens?: number; outputTokens?: number } | null;
  latencyMs?: number;
}

export interface ToolAnswer {
  status: "ok" | "error" | "timeout" | "unknown";
  result?: JsonValue;
  error?: JsonValue;
  externalId?: string;
}

export interface ContinuePorts {
  model(req: ModelRequest): Promise<ModelAnswer>;
  /** the read executor; null when the project has none the caller may use */
  readTool: ((call: { tool: string; args: JsonValue; call: string; seq: number }) => Promise<ToolAnswer>) | null;
}

/** The fields every live event carries (docs/journal-format.md, "Live events"). */
export type ContinueMark = JsonObject & {
  action: string;
  executor: string;
  environment: string;
  actor: string;
  reason: string;
  at: string;
};

export interface AddedEvent {
  seq: number;
  type: string;
  data: JsonObject;
  parent?: number;
}

export interface ContinueOutcome {
  added: AddedEvent[];
  stop: StopReason;
  /** said in words, for the log and the decision event */
  stopDetail: string;
  modelCalls: number;
  readsFromRecording: number;
  readsFromExecutor: number;
  writesReused: number;
  writesBlocked: number;
  /** the write the continuation stopped at */
  pendingWrite: { seq: number; call: string; tool: string; args: JsonValue } | null;
  finalText: string | null;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const isObj = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function jsonText(v: JsonValue | undefined): string {
  try {
    return JSON.stringify(v ?? null, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
  } catch {
    return "null";
  }
}

/** What the agent reads back from a tool result: its value when ok, else its status and error. */
export function toolMessageContent(data: JsonObject): string {
  return data.status === "ok" ? jsonText(data.result) : jsonText({ status: data.status ?? "unknown", error: data.error ?? null });
}

/** A recorded context message as a chat message (`source: "tool:NAME"` names the tool). */
function fromContext(m: JsonValue): ChatMessage {
  const o = isObj(m) ? m : {};
  const content = typeof o.content === "string" ? o.content : o.content === undefined || o.content === null ? "" : jsonText(o.content);
  const out: ChatMessage = { role: str(o.role) ?? "user", content };
  const source = str(o.source);
  if (source?.startsWith("tool:")) out.name = source.slice(5);
  else if (str(o.name)) out.name = str(o.name);
  if (str(o.tool_call_id)) out.tool_call_id = str(o.tool_call_id);
  if (Array.isArray(o.tool_calls)) out.tool_calls = o.tool_calls as unknown as ChatToolCall[];
  return out;
}

function askedOf(output: JsonValue | undefined): AskedCall[] {
  const calls = isObj(output) && Array.isArray(output.toolCalls) ? output.toolCalls : [];
  return calls.filter(isObj).map((c, i) => ({ id: str(c.id) ?? `call-${i}`, name: str(c.name) ?? "", args: c.args ?? null }));
}

function assistantOf(text: string | null, calls: AskedCall[]): ChatMessage {
  const m: ChatMessage = { role: "assistant", content: text ?? (calls.length > 0 ? null : "") };
  if (calls.length > 0)
    m.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: jsonText(c.args) } }));
  return m;
}

/**
 * Where a continuation starts: the original's events kept (the edit applied), the context
 * the agent would send next and the tool calls still to answer. Throws PlanError (a fork
 * the engine cannot continue: an approval override, no model call before the fork, …).
 */
export function continuationStart(events: readonly JournalEvent[], fork: { seq: number; override?: ForkOverride | null }): ContinueStart {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const original = sorted[0]?.run ?? "";
  const override = fork.override ?? null;
  if (override?.approval !== undefined)
    throw new PlanError("an approval override cannot be continued live yet: continue from the gated call's result instead");
  let replacements = new Map<number, { data: JsonObject; fields: string[]; note: string }>();
  let upTo = fork.seq;
  if (override) {
    try {
      const plan = buildForkPlan(sorted, { seq: fork.seq, override });
      replacements = new Map([...plan.replacements].map(([s, r]) => [s, { data: r.event.data, fields: r.fields, note: r.note }]));
      upTo = Math.max(fork.seq, ...replacements.keys());
    } catch (e) {
      if (e instanceof ReplayError) throw new PlanError(e.message);
      throw e;
    }
  }
  if (!sorted.some((e) => e.seq === fork.seq)) throw new PlanError(`the run has no event with seq ${fork.seq}`, 404);
  const kept: JournalEvent[] = [];
  for (const e of sorted) {
    if (e.seq > upTo) break;
    if (e.type === "run.end") throw new PlanError(`seq ${e.seq} ends the run: fork before it to continue`);
    const r = replacements.get(e.seq);
    kept.push(r ? { ...e, data: { ...r.data, whatIf: { fields: r.fields, note: r.note, original: e.data } as unknown as JsonObject } } : e);
  }
  if (override?.state !== undefined || override?.statePatch !== undefined) {
    // the fork's state, right after the fork's event, as the run would have recorded it
    const last = kept[kept.length - 1];
    kept.push({
      run: original,
      seq: (last.seq + 1) as JournalEvent["seq"],
      ts: last.ts,
      type: "state",
      data: {
        ...(override.state !== undefined ? { set: override.state } : { patch: override.statePatch as JsonValue }),
        whatIf: { fields: [override.state !== undefined ? "set" : "patch"], note: "state replaced by the fork" },
      },
    } as JournalEvent);
  }
  const startEv = kept[0];
  if (!startEv || startEv.type !== "run.start") throw new PlanError("the run has no run.start to branch from", 409);
  const basePolicy = isObj(startEv.data.policy) ? (startEv.data.policy as RunPolicy) : null;
  const policy = override?.policy ? { ...(basePolicy ?? {}), ...override.policy } : basePolicy;

  const request = [...kept].reverse().find((e) => e.type === "model.request");
  if (!request) throw new PlanError(`there is no model call at or before seq ${fork.seq}: nothing tells what the agent would ask next`);
  const rd = request.data;
  let messages: ChatMessage[];
  if (Array.isArray(rd.messages)) messages = rd.messages.map(fromContext);
  else {
    const ctxSeq = typeof rd.context === "number" ? rd.context : null;
    const ctx = ctxSeq === null ? undefined : kept.find((e) => e.seq === ctxSeq && e.type === "context");
    if (!ctx || !Array.isArray(ctx.data.messages))
      throw new PlanError(`the model call at seq ${request.seq} has no recorded messages or context: its context cannot be assembled`);
    messages = ctx.data.messages.map(fromContext);
  }
  const lastContext = [...kept].reverse().find((e) => e.type === "context" && Array.isArray(e.data.instructions));
  const setup: ModelSetup = {
    model: str(rd.model) ?? "",
    params: isObj(rd.params) ? rd.params : {},
    tools: Array.isArray(rd.tools) ? rd.tools.filter((t): t is string => typeof t === "string") : [],
    ...(lastContext && Array.isArray(lastContext.data.instructions)
      ? { instructions: lastContext.data.instructions.filter((t): t is string => typeof t === "string") }
      : {}),
  };
  const call = str(rd.call);
  const response = kept.find((e) => e.seq > request.seq && e.type === "model.response" && e.data.call === call);
  const pending: AskedCall[] = [];
  if (response && response.data.error === undefined) {
    const asked = askedOf(response.data.output);
    const out = isObj(response.data.output) ? response.data.output : {};
    messages.push(assistantOf(str(out.text) ?? null, asked));
    // the recorded content of this turn's tool messages, when the run's next context has them (what the agent really sent)
    const next = sorted.find((e) => e.seq > response.seq && e.type === "context");
    const nextMsgs = next && Array.isArray(next.data.messages) ? next.data.messages : [];
    const base = messages.length;
    asked.forEach((c, i) => {
      const result = kept.find((e) => e.seq > response.seq && e.type === "tool.result" && e.data.call === c.id);
      if (!result) return void pending.push(c);
      const recordedMsg = nextMsgs[base + i];
      const useRecorded =
        !replacements.has(result.seq) && isObj(recordedMsg) && recordedMsg.role === "tool" && recordedMsg.source === `tool:${c.name}`;
      messages.push({
        role: "tool",
        name: c.name,
        tool_call_id: c.id,
        content: useRecorded ? fromContext(recordedMsg).content : toolMessageContent(result.data),
      });
    });
  }
  return { original, forkSeq: fork.seq, upTo, kept, edited: [...replacements.keys()], policy, messages, pending, setup, override };
}

interface RecordedTool {
  seq: number;
  effect: string;
  args: JsonValue;
  result: JsonObject | null;
  reconciled: "succeeded" | "failed" | null;
  /** The recorded call's idempotency key (null: none). */
  key: string | null;
}

/**
 * Every recorded tool call by tool name, with its arguments, latest result and reconcile:
 * the call ledger's reading of the calls (lib/semantics), which re-execute, reconcile and resume use too.
 */
function recordedTools(events: readonly JournalEvent[], branchReconciles: readonly BranchReconcile[]): Map<string, RecordedTool[]> {
  const bySeq = new Map<number, JournalEvent>();
  for (const e of events) if (e.type === "tool.call" || e.type === "tool.result") bySeq.set(e.seq, e);
  const byTool = new Map<string, RecordedTool[]>();
  for (const c of callLedger(events, branchReconciles)) {
    const call = bySeq.get(c.seq);
    if (typeof call?.data.tool !== "string") continue;
    const outcome = c.reconciled?.outcome;
    byTool.set(c.tool, [
      ...(byTool.get(c.tool) ?? []),
      {
        seq: c.seq,
        effect: c.effect,
        args: call.data.args ?? null,
        result: c.resultSeq === null ? null : (bySeq.get(c.resultSeq)?.data ?? null),
        reconciled: outcome === "succeeded" || outcome === "failed" ? outcome : null,
        key: c.key === "" ? null : c.key,
      },
    ]);
  }
  return byTool;
}

/** `ask`'s id, or one made unique among the call ids the branch already has. */
function uniqueCall(id: string, taken: Set<string>, seq: number): string {
  const out = taken.has(id) ? `${id}.live-${seq}` : id;
  taken.add(out);
  return out;
}

/** The bound a policy puts on a turn count: at most 20, at least 1. */
export function clampTurns(n: number): number {
  return Math.max(1, Math.min(20, Math.floor(Number.isFinite(n) ? n : DEFAULT_POLICY.maxTurns)));
}

/** Runs the loop (see the contract at the top of the file). */
export async function runContinuation(opts: {
  start: ContinueStart;
  /** what counts as "the recording" for read answers and confirmed writes (the original's events; a resume passes the run's) */
  recording: readonly JournalEvent[];
  policy: ContinuePolicy;
  ports: ContinuePorts;
  mark: ContinueMark;
  /** the model name to send (the executor's), default the recorded one */
  model?: string;
  /** reconciles of the recording's calls made on branch runs (they confirm writes like the journal's own) */
  branchReconciles?: readonly BranchReconcile[];
}): Promise<ContinueOutcome> {
  const { start, policy, ports } = opts;
  const maxTurns = clampTurns(policy.maxTurns);
  const recorded = recordedTools(opts.recording, opts.branchReconciles ?? []);
  const gated = new Set(start.policy?.requireApproval ?? []);
  const taken = new Set(start.kept.filter((e) => typeof e.data.call === "string").map((e) => e.data.call as string));
  const added: AddedEvent[] = [];
  let seq = start.kept[start.kept.length - 1].seq;
  const add = (type: string, data: JsonObject, parent?: number): number => {
    seq++;
    added.push({ seq, type, data, ...(parent !== undefined ? { parent } : {}) });
    return seq;
  };
  const live = (extra: JsonObject = {}): JsonObject => ({ ...opts.mark, ...extra });
  const messages = [...start.messages];
  let pending = [...start.pending];
  const out: ContinueOutcome = {
    added,
    stop: "final-answer",
    stopDetail: "",
    modelCalls: 0,
    readsFromRecording: 0,
    readsFromExecutor: 0,
    writesReused: 0,
    writesBlocked: 0,
    pendingWrite: null,
    finalText: null,
  };
  const stop = (reason: StopReason, detail: string): ContinueOutcome => {
    out.stop = reason;
    out.stopDetail = detail;
    add("decision", { action: "stop", reason: detail, live: live({ stop: reason }) });
    const status = reason === "final-answer" ? "succeeded" : reason === "model-error" ? "failed" : "cancelled";
    add("run.end", {
      status,
      ...(out.finalText !== null ? { output: out.finalText } : {}),
      ...(status !== "succeeded" ? { error: { message: detail } } : {}),
      live: live({ stop: reason }),
    });
    return out;
  };

  for (;;) {
    for (const ask of pending) {
      const history = recorded.get(ask.name) ?? [];
      const effect = history.length === 0 || gated.has(ask.name) ? "write" : history.some((h) => h.effect === "write") ? "write" : "read";
      const callSeq = seq + 1;
      const callId = uniqueCall(ask.id, taken, callSeq);
      const callData = (source: JsonObject): JsonObject => ({
        call: callId,
        tool: ask.name,
        args: ask.args,
        effect,
        live: live({ source }),
      });
      const answer = (a: ToolAnswer, source: JsonObject, callAt: number) => {
        const data: JsonObject = {
          call: callId,
          status: a.status,
          ...(a.result !== undefined ? { result: a.result } : {}),
          ...(a.error !== undefined ? { error: a.error } : {}),
          ...(a.externalId !== undefined ? { externalId: a.externalId } : {}),
          live: live({ source }),
        };
        add("tool.result", data, callAt);
        messages.push({ role: "tool", name: ask.name, tool_call_id: ask.id, content: toolMessageContent(data) });
      };
      const fromRecording = (r: RecordedTool): ToolAnswer => {
        const d = r.result ?? {};
        const status = (["ok", "error", "timeout", "unknown"] as const).find((s) => s === d.status) ?? "unknown";
        return {
          status: r.reconciled === "succeeded" && status !== "ok" ? "ok" : status,
          ...(d.result !== undefined ? { result: d.result } : {}),
          ...(d.error !== undefined && r.reconciled !== "succeeded" ? { error: d.error } : {}),
          ...(typeof d.externalId === "string" ? { externalId: d.externalId } : {}),
        };
      };
      // a call with neither a result nor a reconcile says nothing to answer from
      const equal = history.filter((h) => (h.result !== null || h.reconciled !== null) && canonicallyEqual(h.args, ask.args));
      if (effect === "read") {
        const hit = policy.reuseReads ? equal[equal.length - 1] : undefined;
        if (hit) {
          const at = add("tool.call", callData({ kind: "recording", seq: hit.seq }));
          answer(fromRecording(hit), { kind: "recording", seq: hit.seq }, at);
          out.readsFromRecording++;
          continue;
        }
        if (!ports.readTool) {
          add("tool.call", { ...callData({ kind: "none" }), ...{ live: live({ source: { kind: "none" }, pending: true }) } });
          return stop(
            "read-needs-executor",
            `${ask.name} was asked with arguments the recording does not have, and no read executor was given`,
          );
        }
        const at = add("tool.call", callData({ kind: "executor" }));
        let a: ToolAnswer;
        try {
          a = await ports.readTool({ tool: ask.name, args: ask.args, call: callId, seq: at });
        } catch (e) {
          a = { status: "unknown", error: { message: e instanceof Error ? e.message : "the read executor failed" } };
        }
        answer(a, { kind: "executor" }, at);
        out.readsFromExecutor++;
        continue;
      }
      const confirmed = equal.filter((h) => h.result?.status === "ok" || h.reconciled === "succeeded");
      if (policy.reuseConfirmedWrites && confirmed.length > 0) {
        const hit = confirmed[confirmed.length - 1];
        // the recorded operation, confirmed: its idempotency key is the branch call's too
        const at = add("tool.call", {
          ...callData({ kind: "recording", seq: hit.seq, confirmed: true }),
          ...(hit.key !== null ? { idempotencyKey: hit.key } : {}),
        });
        answer(fromRecording(hit), { kind: "recording", seq: hit.seq, confirmed: true }, at);
        out.writesReused++;
        continue;
      }
      const why = history.length === 0 ? "a tool the recording never called" : gated.has(ask.name) ? "gated by the policy" : "a write";
      if (policy.writes === "block") {
        const at = add("tool.call", callData({ kind: "blocked" }));
        answer(
          {
            status: "error",
            error: { message: `blocked: ${ask.name} is ${why}, and this continuation is sandbox-only; nothing was sent` },
          },
          { kind: "blocked" },
          at,
        );
        out.writesBlocked++;
        continue;
      }
      const at = add("tool.call", { ...callData({ kind: "none" }), live: live({ source: { kind: "none" }, pending: true }) });
      out.pendingWrite = { seq: at, call: callId, tool: ask.name, args: ask.args };
      return stop(
        "write-needs-confirmation",
        `${ask.name} is ${why}: it was not sent; re-execute #${at} on this branch to send it, with its own confirmation`,
      );
    }
    pending = [];
    if (out.modelCalls >= maxTurns)
      return stop("max-turns", `stopped after ${maxTurns} model turn${maxTurns === 1 ? "" : "s"} (the bound)`);

    const req: ModelRequest = {
      model: opts.model ?? start.setup.model,
      messages: [...messages],
      params: start.setup.params,
      tools: start.setup.tools,
    };
    const ctxSeq = add("context", {
      messages: req.messages.map((m) => ({
        role: m.role,
        content: m.content ?? "",
        ...(m.role === "tool" && m.name ? { source: `tool:${m.name}` } : {}),
      })),
      ...(start.setup.instructions ? { instructions: start.setup.instructions } : {}),
      live: live(),
    });
    const callId = uniqueCall(`live-m-${seq + 1}`, taken, seq + 1);
    const reqSeq = add("model.request", {
      call: callId,
      model: req.model,
      params: req.params,
      context: ctxSeq,
      messages: req.messages as unknown as JsonValue,
      tools: req.tools,
      live: live(),
    });
    out.modelCalls++;
    let a: ModelAnswer;
    try {
      a = await ports.model(req);
    } catch (e) {
      const message = e instanceof Error ? e.message : "the model executor failed";
      add("model.response", { call: callId, error: { message }, live: live() }, reqSeq);
      return stop("model-error", `the model executor gave no answer: ${message}`);
    }
    // a call id the branch already has (a model numbering its calls from 1 again) is renamed
    // everywhere at once: journal, assistant message and tool messages stay consistent
    const respSeq = seq + 1;
    const inAnswer = new Set<string>();
    const asked = a.toolCalls.map((c, i) => {
      const id = taken.has(c.id) || inAnswer.has(c.id) ? `${c.id}.live-${respSeq}-${i}` : c.id;
      inAnswer.add(id);
      return { ...c, id };
    });
    add(
      "model.response",
      {
        call: callId,
        output: {
          ...(a.text !== null ? { text: a.text } : {}),
          ...(asked.length > 0 ? { toolCalls: asked.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
        },
        ...(a.finishReason ? { finishReason: a.finishReason } : {}),
        ...(a.usage ? { usage: a.usage } : {}),
        ...(a.latencyMs !== undefined ? { latencyMs: a.latencyMs } : {}),
        live: live(),
      },
      reqSeq,
    );
    messages.push(assistantOf(a.text, asked));
    if (asked.length === 0) {
      out.finalText = a.text ?? "";
      return stop("final-answer", "the model answered with no tool call");
    }
    pending = asked;
  }
}

/** The chat-completions body a model executor gets (OpenAI-compatible). */
export function chatCompletionsBody(req: ModelRequest): JsonObject {
  return {
    ...req.params,
    model: req.model,
    messages: req.messages as unknown as JsonValue,
    ...(req.tools.length > 0
      ? { tools: req.tools.map((t) => ({ type: "function", function: { name: t, parameters: { type: "object" } } })) }
      : {}),
  };
}

/** A chat-completions answer read as the engine's ModelAnswer; throws on a shape it cannot read. */
export function parseChatCompletion(v: unknown): ModelAnswer {
  if (!isObj(v) || !Array.isArray(v.choices) || !isObj(v.choices[0]) || !isObj(v.choices[0].message))
    throw new Error("the model executor's answer is not a chat completion (no choices[0].message)");
  const choice = v.choices[0];
  const msg = choice.message as JsonObject;
  const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls.filter(isObj) : [];
  const usage = isObj(v.usage) ? v.usage : null;
  return {
    text: typeof msg.content === "string" ? msg.content : null,
    toolCalls: calls.map((c, i) => {
      const f = isObj(c.function) ? c.function : {};
      let args: JsonValue = null;
      try {
        args = typeof f.arguments === "string" ? (JSON.parse(f.arguments) as JsonValue) : (f.arguments ?? null);
      } catch {
        args = { unparsed: String(f.arguments) };
      }
      return { id: str(c.id) ?? `call-${i}`, name: str(f.name) ?? "", args };
    }),
    finishReason: str(choice.finish_reason) ?? null,
    usage: usage
      ? {
          ...(typeof usage.prompt_tokens === "number" ? { inputTokens: usage.prompt_tokens } : {}),
          ...(typeof usage.completion_tokens === "number" ? { outputTokens: usage.completion_tokens } : {}),
        }
      : null,
  };
}

/**
 * The branch run's journal: the kept events under the branch's id (without the recorder's
 * hashes; run.start with `forkOf`, the branch's policy and `mode: "live"`), then the added
 * events, whose seqs already follow the kept ones.
 */
export function continuationJournal(opts: {
  branchRun: string;
  start: ContinueStart;
  outcome: ContinueOutcome;
  ts: string;
  /** run.start fields naming what made the branch (forkOf by default; a resume passes resumeOf) */
  origin?: JsonObject;
}): JournalEvent[] {
  const out: JournalEvent[] = opts.start.kept.map((e, i) => {
    const { hash: _hash, ...rest } = e;
    void _hash;
    const ev = { ...rest, run: opts.branchRun } as JournalEvent;
    if (i === 0)
      ev.data = {
        ...e.data,
        ...(opts.start.policy ? { policy: opts.start.policy as unknown as JsonObject } : {}),
        ...(opts.origin ?? { forkOf: { run: opts.start.original, seq: opts.start.forkSeq } }),
        mode: "live",
      };
    return ev;
  });
  for (const a of opts.outcome.added) {
    const ev = { run: opts.branchRun, seq: a.seq, ts: opts.ts, type: a.type, data: a.data } as JournalEvent;
    if (a.parent !== undefined) ev.parent = a.parent as JournalEvent["seq"];
    out.push(ev);
  }
  return out;
}

/** Ties a confirmation to what the preview showed: the fork, the first request, the executors and the bound. */
export function continueDigest(v: {
  run: string;
  seq: number;
  override: ForkOverride | null;
  first: ModelRequest;
  executor: string;
  readExecutor: string | null;
  policy: ContinuePolicy;
}): string {
  return sha256Hex(canonicalJson(v as unknown as JsonValue));
}

/** One row of a branch run beside its original, aligned by seq. */
export interface SideBySideRow {
  seq: number;
  original: { type: string } | null;
  branch: { type: string; mode: FrameMode } | null;
  /** the two events differ here (what a live action or the what-if wrote is not compared by its marks) */
  differs: boolean;
}

/** An event's data as compared across a branch and its original: without the marks a branch adds. */
function comparable(e: JournalEvent): string {
  const { live: _l, whatIf: _w, ...rest } = e.data;
  void _l;
  void _w;
  if (e.type === "run.start") {
    const { forkOf: _f, mode: _m, ...start } = rest;
    void _f;
    void _m;
    return canonicalJson({ type: e.type, data: start });
  }
  return canonicalJson({ type: e.type, data: rest });
}

/**
 * A branch run beside its original from a little before the fork: rows aligned by seq and
 * the first seq where they differ (null: none in the window). Both lists sorted by seq.
 */
export function sideBySide(
  original: readonly JournalEvent[],
  branch: readonly JournalEvent[],
): { rows: SideBySideRow[]; firstDivergence: number | null } {
  const o = new Map(original.map((e) => [e.seq as number, e]));
  const b = new Map(branch.map((e) => [e.seq as number, e]));
  const seqs = [...new Set([...o.keys(), ...b.keys()])].sort((x, y) => x - y);
  let firstDivergence: number | null = null;
  const rows = seqs.map((seq) => {
    const oe = o.get(seq);
    const be = b.get(seq);
    const differs = !oe || !be || comparable(oe) !== comparable(be);
    if (differs && firstDivergence === null) firstDivergence = seq;
    return {
      seq,
      original: oe ? { type: oe.type } : null,
      branch: be ? { type: be.type, mode: frameMode(be) } : null,
      differs,
    };
  });
  return { rows, firstDivergence };
}
