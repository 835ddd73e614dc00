/**
 * AutoGen AgentChat (0.4+) team state: the JSON `await team.save_state()` returns, written to
 * a file (`{"type": "TeamState", "version", "agent_states": {…}, "team_id"?}`). One run per
 * file, `autogen-<team_id | file stem>-<8 hex of the file's SHA-256>`.
 *
 * - The group chat manager's state (`RoundRobinManagerState`… : the entry with a
 *   `message_thread`) holds the team's conversation: AgentChat messages `{source,
 *   models_usage, content, type, created_at?}`. It is the run's timeline.
 * - A message with `models_usage` (`TextMessage`, `ToolCallRequestEvent`) is the speaker's
 *   model call, in a step of its own whose `agent` is the `source`; `models_usage` →
 *   usage. A `ToolCallRequestEvent`'s `FunctionCall`s are the response's tool calls; the
 *   `ToolCallExecutionEvent` that follows answers them by `call_id` (`is_error` → `error`).
 * - The request is read from the speaker's own state (`ChatAgentContainerState` →
 *   `agent_state.llm_context.messages`, the model context AssistantAgent keeps): the
 *   messages between its previous `AssistantMessage` and the one this call produced
 *   (`messagesSince` names the previous call). The thread's calls are matched to the
 *   context's last `AssistantMessage`s (a context may hold earlier runs the thread does
 *   not). The system message is not saved: it is missing.
 * - Other messages with no `models_usage`: the user's (a `source` with no model: absent from
 *   the state, or a `UserProxyAgent` whose container holds a bare `BaseState`) → `input`; a `ToolCallSummaryMessage` (the tool results an agent passes on
 *   without another model call) → `context`; any other type → `context` naming its type.
 * - Times: `created_at` (AgentChat 0.5+) when every message has one: a model call's
 *   response at its message's time, its request at the message before it (the team runs one
 *   speaker at a time), a tool call from its request to its execution message. Without
 *   them times are synthetic. No model name is saved: `unknown`.
 */
import { JournalBuilder } from "./builder";
import { ImportError } from "./import-error";
import {
  asArray,
  compact,
  contentId,
  fileStem,
  firstStr,
  isRecord,
  isoToNanos,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import { contentText, normalizeArgs, normalizeMessages, type MessageToolCall } from "./messages";
import { addModelCall, addStepToolCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

/** AutoGen's LLM messages (`UserMessage`, `AssistantMessage`, `FunctionExecutionResultMessage`) as OpenAI chat messages. */
function chatMessages(list: UnknownRecord[]): unknown[] {
  return list.flatMap((m): unknown[] => {
    const type = str(m.type);
    if (type === "FunctionExecutionResultMessage")
      return asArray(m.content)
        .filter(isRecord)
        .map((r) => ({ role: "tool", content: contentText(r.content), tool_call_id: str(r.call_id) }));
    if (type === "AssistantMessage") {
      const calls = Array.isArray(m.content) ? m.content.filter(isRecord) : [];
      return [
        compact({
          role: "assistant",
          name: str(m.source),
          content: Array.isArray(m.content) ? "" : contentText(m.content),
          reasoning_content: str(m.thought),
          tool_calls:
            calls.length > 0
              ? calls.map((c) => ({ id: str(c.id), type: "function", function: { name: str(c.name), arguments: c.arguments } }))
              : undefined,
        }),
      ];
    }
    if (type === "SystemMessage") return [{ role: "system", content: contentText(m.content) }];
    return [compact({ role: "user", name: str(m.source), content: contentText(m.content) })];
  });
}

function usageOf(v: unknown): Record<string, number> | undefined {
  if (!isRecord(v)) return undefined;
  return compact({ inputTokens: toNumber(v.prompt_tokens), outputTokens: toNumber(v.completion_tokens) }) as Record<string, number>;
}

function textOf(m: UnknownRecord): string {
  return typeof m.content === "string" ? m.content : contentText(m.content);
}

export function importAutogenTeamState(value: unknown, body: string, opts: ImportOptions = {}): ImportResult {
  const doc: UnknownRecord = isRecord(value) ? value : {};
  const states = isRecord(doc.agent_states) ? doc.agent_states : undefined;
  if (str(doc.type) !== "TeamState" || !states) throw new ImportError('an AutoGen team state needs `type: "TeamState"` and `agent_states`');
  const entries = Object.entries(states).filter((e): e is [string, UnknownRecord] => isRecord(e[1]));
  const manager = entries.find(([, s]) => Array.isArray(s.message_thread));
  if (!manager) throw new ImportError("the AutoGen team state has no group chat manager with a `message_thread`");
  const thread = asArray(manager[1].message_thread).filter(isRecord);
  // agent name → its LLM context (the key is "name" or "name/<team id>")
  const contexts = new Map<string, UnknownRecord[]>();
  /** agents with a model: their state is an AssistantAgentState (a UserProxyAgent's is a bare BaseState) */
  const modelAgents = new Set<string>();
  for (const [key, s] of entries) {
    if (str(s.type) !== "ChatAgentContainerState") continue;
    const agentState = isRecord(s.agent_state) ? s.agent_state : {};
    const llm = isRecord(agentState.llm_context) ? agentState.llm_context : {};
    contexts.set(key.split("/")[0], asArray(llm.messages).filter(isRecord));
    if (str(agentState.type) === "AssistantAgentState") modelAgents.add(key.split("/")[0]);
  }

  const warnings: string[] = [];
  const times = thread.map((m) => isoToNanos(m.created_at));
  const timed = thread.length > 0 && times.every((t) => t !== undefined);
  const at = (i: number): bigint => (timed ? (times[i] as bigint) : 0n);
  if (!timed)
    warnings.push(
      "the team state's messages carry no `created_at`: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds",
    );

  // the k-th model call of an agent ↔ its context's AssistantMessages, counted from the end
  const callsOf = new Map<string, number>();
  for (const m of thread) if (isRecord(m.models_usage)) callsOf.set(str(m.source) ?? "", (callsOf.get(str(m.source) ?? "") ?? 0) + 1);
  const requestOf = (agent: string, k: number): { messages: unknown[]; found: boolean } => {
    const ctx = contexts.get(agent);
    if (!ctx) return { messages: [], found: false };
    const assistant = ctx.flatMap((m, i) => (str(m.type) === "AssistantMessage" ? [i] : []));
    const offset = assistant.length - (callsOf.get(agent) ?? 0);
    const idx = offset + k;
    if (offset < 0 || idx < 0 || idx >= assistant.length) return { messages: [], found: false };
    const from = idx === 0 ? 0 : assistant[idx - 1] + 1;
    return { messages: chatMessages(ctx.slice(from, assistant[idx])), found: true };
  };

  const b = new JournalBuilder();
  let openStep: string | undefined;
  let openT = 0n;
  const closeStep = () => {
    if (openStep) b.add({ t: openT, type: "step.end", step: openStep, parentKey: `s:${openStep}`, data: { status: "ok" } });
    openStep = undefined;
  };
  const callCount = new Map<string, number>();
  const lastCallOf = new Map<string, string>();
  /** call_id → where its tool.call was written */
  const requested = new Map<string, { step: string; t: bigint }>();
  const agents: string[] = [];
  let calls = 0;
  let noContext = 0;
  const other = new Map<string, number>();
  let firstInput: string | undefined;
  let output: string | undefined;

  thread.forEach((m, i) => {
    const type = str(m.type) ?? "unknown";
    const source = str(m.source) ?? "unknown";
    const t = at(i);
    if (isRecord(m.models_usage)) {
      closeStep();
      calls++;
      const step = `turn-${calls}`;
      const callId = `m${calls}`;
      const k = callCount.get(source) ?? 0;
      callCount.set(source, k + 1);
      if (!agents.includes(source)) agents.push(source);
      const req = requestOf(source, k);
      if (!req.found) noContext++;
      const toolCalls: MessageToolCall[] =
        type === "ToolCallRequestEvent"
          ? asArray(m.content)
              .filter(isRecord)
              .map((c, j) => ({ id: str(c.id) ?? `${callId}-${j}`, name: str(c.name) ?? "unknown", args: normalizeArgs(c.arguments) }))
          : [];
      addModelCall(b, {
        step,
        t: i > 0 ? at(i - 1) : t,
        tResponse: t,
        name: source,
        stepData: { agent: source },
        call: callId,
        model: "unknown",
        messages: normalizeMessages(req.messages),
        request: { messagesSince: k > 0 ? lastCallOf.get(source) : undefined },
        text: type === "ToolCallRequestEvent" ? "" : textOf(m),
        toolCalls,
        response: { usage: usageOf(m.models_usage) },
      });
      for (const call of toolCalls) {
        addStepToolCall(b, { t, step, key: `t:${call.id}`, call });
        requested.set(call.id, { step, t });
      }
      lastCallOf.set(source, callId);
      openStep = step;
      openT = t;
      if (type !== "ToolCallRequestEvent") output = textOf(m);
      return;
    }
    if (type === "ToolCallExecutionEvent") {
      for (const r of asArray(m.content).filter(isRecord)) {
        const id = str(r.call_id) ?? "";
        const where = requested.get(id);
        if (!where) {
          warnings.push(`a tool result answers call ${id || "(no id)"}, which no ToolCallRequestEvent asked for: kept as context`);
          b.add({ t, type: "context", data: { messages: [{ role: "tool", content: contentText(r.content), source }] } });
          continue;
        }
        const failed = r.is_error === true;
        b.add({
          t,
          type: "tool.result",
          step: where.step,
          parentKey: `t:${id}`,
          after: `t:${id}`,
          data: compact({
            call: id,
            status: failed ? "error" : "ok",
            result: r.content,
            error: failed ? contentText(r.content) : undefined,
            latencyMs: timed ? Number(t - where.t) / 1e6 : undefined,
          }),
        });
      }
      if (openStep) openT = t;
      return;
    }
    // the user: a source with no model (not in the state, or a UserProxyAgent's container)
    const isAgent = modelAgents.has(source) || callsOf.has(source);
    if (!isAgent && type === "TextMessage") {
      closeStep();
      b.add({ t, type: "input", data: { source: "user", content: textOf(m), from: source } });
      firstInput ??= textOf(m);
      return;
    }
    if (type !== "ToolCallSummaryMessage") other.set(type, (other.get(type) ?? 0) + 1);
    b.add({
      t,
      type: "context",
      data: { messages: [compact({ role: isAgent ? "assistant" : "user", content: textOf(m), source, type })] },
    });
    if (isAgent) output = textOf(m);
  });
  closeStep();

  if (noContext > 0)
    warnings.push(
      `${noContext} model call(s) have no request messages: the speaker's saved LLM context does not hold as many replies as the thread`,
    );
  if (other.size > 0)
    warnings.push(
      `message types kept as context only (no sample to read them from): ${[...other].map(([k, n]) => `${k} ×${n}`).join(", ")}`,
    );

  const id = firstStr(doc.team_id) ?? fileStem(opts.fileName) ?? "team";
  const runId = makeRunId("autogen", `${id}-${contentId(body).slice(0, 8)}`);
  const managerState = manager[1];
  const startData = {
    workflow: { name: "autogen-agentchat" },
    agent: { name: agents.join(", ") || "autogen" },
    tags: ["autogen", "autogen-agentchat"],
    source: compact({
      format: "autogen-agentchat",
      file: opts.fileName,
      teamId: firstStr(doc.team_id),
      manager: str(managerState.type),
      stateVersion: str(doc.version),
    }),
    input: firstInput ?? null,
  };
  const events = b.build({
    runId,
    synthetic: !timed,
    start: { data: startData, t: timed ? at(0) : undefined },
    // a saved state says nothing of how the run ended: no stop reason, no error
    end: { data: compact({ status: "succeeded", output }), t: timed ? at(thread.length - 1) : undefined },
  });
  return { format: "autogen-agentchat", runs: [{ runId, events }], warnings };
}
