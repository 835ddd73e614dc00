/**
 * One model call as its own step, the way the session importers write it: `step.start`
 * (kind `llm`), `model.request` and `model.response`, keyed `s:`, `m:` and `r:` plus the
 * step id, so the step's tool calls can follow `r:STEP` and end it with `s:STEP`.
 */
import type { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { compact } from "./json-utils";
import type { JournalMessage, MessageToolCall } from "./messages";

export interface ModelCall {
  step: string;
  /** the request's time; the response's is `tResponse`, else the same */
  t: bigint;
  tResponse?: bigint;
  /** the step's name (the model) and any other step.start data (the agent) */
  name: string;
  stepData?: Record<string, unknown>;
  /** key of the enclosing step's `step.start` (a sub-agent's call under the agent's step) */
  parentKey?: string;
  call: string;
  model: string;
  messages: JournalMessage[];
  /** model.request's other fields: messagesSince, params (undefined ones left out) */
  request?: Record<string, unknown>;
  text: string;
  reasoning?: string;
  toolCalls: MessageToolCall[];
  /** model.response's other fields: usage, finishReason, cost, latencyMs (undefined ones left out) */
  response?: Record<string, unknown>;
}

export function addModelCall(b: JournalBuilder, c: ModelCall): void {
  const s = c.step;
  b.add({
    t: c.t,
    type: "step.start",
    step: s,
    key: `s:${s}`,
    parentKey: c.parentKey,
    after: c.parentKey,
    data: compact({ name: c.name, kind: "llm", ...c.stepData }),
  });
  b.add({
    t: c.t,
    type: "model.request",
    step: s,
    key: `m:${s}`,
    parentKey: `s:${s}`,
    after: `s:${s}`,
    data: compact({ call: c.call, model: c.model, messages: c.messages, ...c.request }),
  });
  b.add({
    t: c.tResponse ?? c.t,
    type: "model.response",
    step: s,
    key: `r:${s}`,
    parentKey: `m:${s}`,
    after: `m:${s}`,
    data: compact({
      call: c.call,
      output: compact({
        text: c.text || undefined,
        reasoning: c.reasoning || undefined,
        toolCalls: c.toolCalls.length > 0 ? c.toolCalls : undefined,
      }),
      ...c.response,
    }),
  });
}

/**
 * A tool call the model call of step `step` asked for, written after its `model.response`
 * (`r:STEP`) inside the step, under `key`, its effect inferred from the tool's name and
 * arguments (lib/importers/effects.ts).
 */
export function addStepToolCall(b: JournalBuilder, c: { t: bigint; step: string; key: string; call: MessageToolCall }): void {
  const { t, step, key, call } = c;
  b.add({
    t,
    type: "tool.call",
    step,
    key,
    parentKey: `s:${step}`,
    after: `r:${step}`,
    data: { call: call.id, tool: call.name, args: call.args, ...inferEffect(call.name, call.args) },
  });
}
