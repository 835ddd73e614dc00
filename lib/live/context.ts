/**
 * Where a continuation starts (lib/live/README.md, "Continue and resume"): the original's
 * events up to the fork (the edited one replaced and marked `data.whatIf`), and the
 * context the agent would send next: the last recorded model.request's messages (its
 * `messages`, else its `context` event's), the assistant turn that answered it, and the
 * tool results of that turn up to the fork, the edited one substituted. Tool calls of that
 * turn with no result yet are `pending`: they are answered before the model is called again.
 */
import type { JournalEvent, JsonObject, JsonValue, RunPolicy } from "../journal/types";
import { buildForkPlan, ReplayError, type ForkOverride } from "../replay";
import { askedOf, assistantOf, fromContext, toolMessageContent, type AskedCall, type ChatMessage } from "./chat-wire";
import type { ContinueStart, ModelSetup } from "./continue-contract";
import { PlanError } from "./plan";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const isObj = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

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
  messages = pairRecordedCalls(
    messages,
    kept.filter((e) => e.seq < request.seq && e.type === "model.response" && e.data.error === undefined),
  );
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

/** A tool result no model call asked for, as a user message that says so. */
function unaskedResult(m: ChatMessage): string {
  return `[the result of ${m.name ?? "a tool"}, which the agent ran without a model's call]\n${m.content ?? ""}`;
}

/**
 * A recorded context's messages made whole again: an assistant message that carries no calls
 * is paired with a recorded model.response (from the last backwards, skipping responses whose
 * calls do not fit the tool messages after it) and gets that response's calls as `tool_calls`;
 * each tool message gets the id of a call of the assistant turn before it (the first unanswered
 * one of its tool's name, else the first unanswered one). An assistant message that says
 * nothing and called nothing is dropped, and so is a call of the history no tool message
 * answers. A tool message that answers no call (the agent's own code ran the tool) goes as a
 * user message that says whose result it is.
 */
export function pairRecordedCalls(messages: readonly ChatMessage[], responses: readonly JournalEvent[]): ChatMessage[] {
  const out = messages.map((m) => ({ ...m }));
  const toolsAfter = (i: number): ChatMessage[] => {
    const t: ChatMessage[] = [];
    for (let j = i + 1; j < out.length && out[j].role === "tool"; j++) t.push(out[j]);
    return t;
  };
  let r = responses.length - 1;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (m.role !== "assistant" || (m.tool_calls?.length ?? 0) > 0) continue;
    const tools = toolsAfter(i);
    if (tools.length === 0) continue;
    for (; r >= 0; r--) {
      const output = responses[r].data.output;
      const asked = askedOf(output);
      const names = asked.map((c) => c.name);
      if (asked.length >= tools.length && tools.every((t) => t.tool_call_id || !t.name || names.includes(t.name))) {
        const text = isObj(output) ? str(output.text) : undefined;
        out[i] = { ...assistantOf(m.content || text || null, asked), ...(m.name ? { name: m.name } : {}) };
        r--;
        break;
      }
    }
  }
  const kept: ChatMessage[] = [];
  let open: string[] = [];
  let callsOf = new Map<string, string>();
  let turn: ChatMessage | null = null;
  // a call of the history that no tool message answers is left out: a strict endpoint wants every call answered
  const closeTurn = () => {
    if (turn?.tool_calls && open.length > 0) turn.tool_calls = turn.tool_calls.filter((c) => !open.includes(c.id));
    if (turn?.tool_calls?.length === 0) delete turn.tool_calls;
    open = [];
    callsOf = new Map();
    turn = null;
  };
  for (const m of out) {
    if (m.role === "tool") {
      if (!m.tool_call_id || !open.includes(m.tool_call_id)) {
        const id = open.find((c) => callsOf.get(c) === m.name) ?? open[0];
        if (id === undefined) {
          // a result no recorded model call asked for (the agent's own code ran the tool): a
          // strict endpoint refuses a tool message without its call, so it goes as the text it was
          closeTurn();
          kept.push({ role: "user", content: unaskedResult(m) });
          continue;
        }
        m.tool_call_id = id;
      }
      open = open.filter((c) => c !== m.tool_call_id);
      kept.push(m);
      continue;
    }
    closeTurn();
    if (m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0) {
      for (const c of m.tool_calls!) callsOf.set(c.id, c.function.name);
      open = m.tool_calls!.map((c) => c.id);
      turn = m;
    } else if (m.role === "assistant" && !m.content) continue;
    kept.push(m);
  }
  closeTurn();
  return kept;
}
