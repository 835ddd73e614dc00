/**
 * OpenAI Agents SDK saved run state (`result.state.toString()`, a `RunState` JSON, or a whole
 * `RunResult` as JSON: `{state: RunState}`) → one run `openai-agents-<trace id | content hash>`.
 *
 * Each entry of `modelResponses` is a model call (usage; the model name when the provider's
 * `providerData.model` has it), placed where its output items appear in `generatedItems` and
 * asked with the items since the previous call. `tool_call_item` ↔ `tool_call_output_item`
 * (by `callId`) are tool calls; the SDK's tool error text ("An error occurred while running
 * the tool…") marks a failed call. Each agent's turns are an agent step; a handoff
 * (`handoff_call_item` → `handoff_output_item`) opens the target agent's step inside the
 * source agent's. A `tool_approval_item` is an `approval.request`, decided only when
 * `context.approvals` names its call. A state paused on approvals (`next_step_interruption`)
 * has no `run.end`: the run is waiting. The state records no times: events get synthetic
 * times in order (said in a warning), and no latency is given.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { asArray, compact, contentId, firstStr, isRecord, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { contentText, normalizeArgs, normalizeMessages, type JournalMessage } from "./messages";
import type { ImportOptions, ImportResult } from "./types";

/** What the SDK's default tool error function answers the model with. */
const TOOL_ERROR = /^An error occurred while running the tool/;

interface Response {
  index: number;
  raw: UnknownRecord;
  emitted: boolean;
}

/** The RunState inside a document: the state itself, or a RunResult's `state`. */
export function runStateOf(value: unknown): UnknownRecord | undefined {
  if (!isRecord(value)) return undefined;
  if (Array.isArray(value.modelResponses) && Array.isArray(value.generatedItems)) return value;
  return isRecord(value.state) ? runStateOf(value.state) : undefined;
}

function usageOf(u: unknown): Record<string, number | undefined> | undefined {
  if (!isRecord(u)) return undefined;
  return compact({
    inputTokens: toNumber(u.inputTokens ?? u.input_tokens),
    outputTokens: toNumber(u.outputTokens ?? u.output_tokens),
    totalTokens: toNumber(u.totalTokens ?? u.total_tokens),
  });
}

const callIdOf = (raw: UnknownRecord) => firstStr(raw.callId, raw.call_id, raw.id);

/** A function_call_result's output as text (`{type: "text", text}`, a string, or any value). */
function resultText(item: UnknownRecord, raw: UnknownRecord): string {
  if (typeof item.output === "string") return item.output;
  const o = raw.output;
  return isRecord(o) && typeof o.text === "string" ? o.text : contentText(o);
}

/** `context.approvals[tool]`: `{approved: true | callIds, rejected: true | callIds}`. */
function decisionOf(approvals: unknown, tool: string, callId: string): "approved" | "denied" | undefined {
  const a = isRecord(approvals) ? approvals[tool] : undefined;
  if (!isRecord(a)) return undefined;
  const has = (v: unknown) => v === true || asArray(v).includes(callId);
  if (has(a.rejected)) return "denied";
  if (has(a.approved)) return "approved";
  return undefined;
}

export function importOpenAIAgents(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const state = runStateOf(value);
  if (!state) return { format: "openai-agents", runs: [], warnings: ["no RunState (modelResponses, generatedItems) in the file"] };
  const warnings = ["a RunState records no times: events are in the order the state holds them, with synthetic times"];
  const b = new JournalBuilder();
  const trace = isRecord(state.trace) ? state.trace : {};
  const traceId = str(trace.id)?.replace(/^trace_/, "");
  const approvals = isRecord(state.context) ? state.context.approvals : undefined;

  const responses: Response[] = asArray(state.modelResponses)
    .filter(isRecord)
    .map((raw, index) => ({ index, raw, emitted: false }));
  const owner = new Map<string, Response>();
  for (const r of responses) for (const o of asArray(r.raw.output).filter(isRecord)) if (str(o.id)) owner.set(str(o.id)!, r);

  // request context: the original input, then what happened since the previous call
  let pending: unknown[] =
    typeof state.originalInput === "string" ? [{ role: "user", content: state.originalInput }] : asArray(state.originalInput);
  if (state.originalInput !== undefined) b.add({ t: 0n, type: "input", data: { source: "user", content: state.originalInput } });

  // agent steps: a stack, a handoff opens the target's step inside the source's
  const agentStack: Array<{ name: string; key: string }> = [];
  let agentSteps = 0;
  const openAgent = (name: string, nested: boolean) => {
    if (!nested) while (agentStack.length > 0) closeAgent();
    const id = `agent-${++agentSteps}`;
    const parent = agentStack[agentStack.length - 1];
    b.add({ t: 0n, type: "step.start", step: id, key: `s:${id}`, parentKey: parent?.key, data: { name, kind: "agent", agent: name } });
    agentStack.push({ name, key: `s:${id}` });
  };
  const closeAgent = () => {
    const a = agentStack.pop();
    if (a) b.add({ t: 0n, type: "step.end", step: a.key.slice(2), parentKey: a.key, data: { status: "ok" } });
  };
  const agentOf = (item: UnknownRecord) => firstStr(isRecord(item.agent) ? item.agent.name : undefined);

  let modelStep: string | undefined;
  let modelFailed = false;
  const closeModel = () => {
    if (modelStep)
      b.add({ t: 0n, type: "step.end", step: modelStep, parentKey: `s:${modelStep}`, data: { status: modelFailed ? "error" : "ok" } });
    modelStep = undefined;
    modelFailed = false;
  };
  const emitResponse = (r: Response, agent: string | undefined) => {
    closeModel();
    r.emitted = true;
    if (agent && agentStack[agentStack.length - 1]?.name !== agent) openAgent(agent, false);
    const step = `model-${r.index + 1}`;
    const provider = isRecord(r.raw.providerData) ? r.raw.providerData : {};
    const model = firstStr(provider.model) ?? "unknown";
    const call = firstStr(r.raw.responseId) ?? step;
    const out = normalizeMessages(asArray(r.raw.output), `${step}-`).filter((m) => m.role === "assistant");
    const toolCalls = out.flatMap((m) => m.toolCalls ?? []);
    const parent = agentStack[agentStack.length - 1]?.key;
    b.add({ t: 0n, type: "step.start", step, key: `s:${step}`, parentKey: parent, data: compact({ name: model, kind: "llm", agent }) });
    b.add({
      t: 0n,
      type: "model.request",
      step,
      key: `m:${step}`,
      parentKey: `s:${step}`,
      data: { call, model, messages: normalizeMessages(pending) },
    });
    b.add({
      t: 0n,
      type: "model.response",
      step,
      key: `r:${step}`,
      parentKey: `m:${step}`,
      data: compact({
        call,
        output: compact({
          text:
            out
              .map((m) => m.content)
              .filter((t) => t !== "")
              .join("\n") || undefined,
          reasoning: out.flatMap((m) => (m.reasoning ? [m.reasoning] : [])).join("\n") || undefined,
          toolCalls: toolCalls.length > 0 ? toolCalls : undefined,
        }),
        usage: usageOf(r.raw.usage),
      }),
    });
    pending = [];
    modelStep = step;
  };

  for (const item of asArray(state.generatedItems).filter(isRecord)) {
    const type = str(item.type) ?? "";
    const raw = isRecord(item.rawItem) ? item.rawItem : {};
    const r = str(raw.id) ? owner.get(str(raw.id)!) : undefined;
    if (r && !r.emitted) emitResponse(r, agentOf(item));
    const step = modelStep ?? agentStack[agentStack.length - 1]?.key.slice(2);
    const callId = callIdOf(raw) ?? `item-${b.size}`;
    const tool = firstStr(raw.name) ?? "unknown";
    if (type === "tool_call_item" || type === "handoff_call_item") {
      const args = normalizeArgs(raw.arguments);
      b.add({
        t: 0n,
        type: "tool.call",
        step,
        key: `t:${callId}`,
        parentKey: modelStep ? `r:${modelStep}` : undefined,
        data: { call: callId, tool, args: args, ...inferEffect(tool, args) },
      });
    } else if (type === "tool_call_output_item" || type === "handoff_output_item") {
      const content = resultText(item, raw);
      const failed = type === "tool_call_output_item" && TOOL_ERROR.test(content);
      if (failed) modelFailed = true;
      b.add({
        t: 0n,
        type: "tool.result",
        step,
        parentKey: `t:${callId}`,
        data: compact({
          call: callId,
          status: failed ? "error" : "ok",
          result: failed ? undefined : content,
          error: failed ? content : undefined,
        }),
      });
      pending.push({ role: "tool", content, toolCallId: callId, name: tool } satisfies JournalMessage);
      if (type === "handoff_output_item") {
        const target = firstStr(isRecord(item.targetAgent) ? item.targetAgent.name : undefined);
        if (target) {
          closeModel();
          openAgent(target, true);
        }
      }
    } else if (type === "tool_approval_item") {
      const tname = firstStr(item.toolName, raw.name) ?? "unknown";
      const approval = `approval-${callId}`;
      b.add({
        t: 0n,
        type: "approval.request",
        step,
        key: `a:${callId}`,
        parentKey: `t:${callId}`,
        data: { approval, call: callId, policy: { id: "openai-agents" } },
      });
      const decision = decisionOf(approvals, tname, callId);
      if (decision) b.add({ t: 0n, type: "approval.decision", step, parentKey: `a:${callId}`, data: { approval, decision, by: "user" } });
    } else if (type === "message_output_item" || type === "reasoning_item") {
      // part of its model call's output (model.response)
    } else if (type) {
      warnings.push(`generated item type ${type} is not read`);
    }
  }
  // responses whose items the state does not hold (a provider without item ids)
  for (const r of responses) if (!r.emitted) emitResponse(r, firstStr(isRecord(state.currentAgent) ? state.currentAgent.name : undefined));
  closeModel();
  while (agentStack.length > 0) closeAgent();

  const current = isRecord(state.currentStep) ? state.currentStep : {};
  const paused = current.type === "next_step_interruption";
  const runId = makeRunId("openai-agents", traceId ?? contentId(text));
  const currentAgent = firstStr(isRecord(state.currentAgent) ? state.currentAgent.name : undefined);
  const startData = compact({
    workflow: { name: firstStr(trace.workflow_name) ?? "openai-agents" },
    agent: currentAgent ? { name: currentAgent } : undefined,
    input: state.originalInput,
    tags: ["openai-agents"],
    source: compact({
      format: "openai-agents",
      file: opts.fileName,
      schemaVersion: str(state.$schemaVersion),
      traceId: str(trace.id),
      groupId: str(trace.group_id),
    }),
  });
  const output = current.type === "next_step_final_output" ? current.output : undefined;
  return {
    format: "openai-agents",
    runs: [
      {
        runId,
        events: b.build({
          runId,
          synthetic: true,
          start: { data: startData },
          end: paused ? null : { data: compact({ status: "succeeded", output }) },
        }),
      },
    ],
    warnings: paused ? [...warnings, "the run is paused on pending approvals: it has no run.end"] : warnings,
  };
}
