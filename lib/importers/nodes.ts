/**
 * A format-neutral tree of steps (spans, observations) with what each step did: a model
 * call, a tool call, a retrieval, errors. Span-based importers fill `StepNode`s and
 * `addNodes` writes the journal events for them, so every format maps the same way.
 *
 * Several instrumentations often wrap one model call (Google ADK `call_llm` → GenAI
 * `generate_content` → OpenLLMetry `openai.chat`). Counting each would triple the calls
 * and the tokens, so a model (or tool) call is kept only on the innermost step that has
 * one; the wrappers stay visible as steps with their attributes.
 */
import { hasOwn, setOwn } from "../journal/own-keys";
import type { EventType } from "../journal/types";
import type { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { compact } from "./json-utils";

export interface ToolCallRequest {
  id: string;
  name: string;
  args: unknown;
}

export interface ModelCallInfo {
  call: string;
  model: string;
  messages?: unknown[];
  params?: Record<string, unknown>;
  tools?: string[];
  output?: { text?: string; toolCalls?: ToolCallRequest[] };
  finishReason?: string;
  usage?: Record<string, number>;
  latencyMs?: number;
  error?: unknown;
  /** Extra fields for `model.request` / `model.response` (provider, response id, cost…). */
  requestExtra?: Record<string, unknown>;
  responseExtra?: Record<string, unknown>;
  /** Model name as the provider reported it (recorded in `versions.models`). */
  responseModel?: string;
}

export interface ToolCallInfo {
  call: string;
  tool: string;
  args: unknown;
  status: "ok" | "error" | "timeout" | "unknown";
  result?: unknown;
  error?: unknown;
  latencyMs?: number;
  callExtra?: Record<string, unknown>;
  resultExtra?: Record<string, unknown>;
}

export interface RetrievalInfo {
  query: unknown;
  documents: Array<Record<string, unknown> & { id: string }>;
}

export interface ErrorInfo {
  t: bigint;
  message: string;
  code?: string;
  extra?: Record<string, unknown>;
}

export interface StepNode {
  id: string;
  parentId?: string;
  name: string;
  kind: string;
  start: bigint;
  end: bigint;
  status: "ok" | "error";
  /** Extra `step.start` fields (service, span kind…). */
  info: Record<string, unknown>;
  /** All attributes of the step, and the keys whose content the events below carry. */
  attributes?: Record<string, unknown>;
  contentKeys?: Set<string>;
  model?: ModelCallInfo;
  tool?: ToolCallInfo;
  retrieval?: RetrievalInfo;
  errors: ErrorInfo[];
  /** Other timed events of the step (span events that are not exceptions). */
  marks: Array<{ t: bigint; type: EventType; data: Record<string, unknown> }>;
  /** Extra `step.end` fields. */
  endInfo?: Record<string, unknown>;
}

export interface NodeSummary {
  roots: StepNode[];
  /** Model calls kept after removing wrappers, in time order. */
  modelCalls: ModelCallInfo[];
  toolCalls: ToolCallInfo[];
  /** The earliest-starting root, the one whose status decides the run's. */
  mainRoot?: StepNode;
}

const byStart = (a: StepNode, b: StepNode) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Builds the tree (missing parents make extra roots) and drops wrapper model/tool calls. */
export function arrangeNodes(nodes: StepNode[]): { roots: StepNode[]; children: Map<string, StepNode[]> } {
  const byId = new Map<string, StepNode>();
  for (const n of nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const children = new Map<string, StepNode[]>();
  const roots: StepNode[] = [];
  for (const n of byId.values()) {
    if (n.end < n.start) n.end = n.start;
    let p = n.parentId !== undefined && n.parentId !== n.id ? byId.get(n.parentId) : undefined;
    // A parent chain that loops back to this node cannot be drawn as a tree; cut it here.
    if (p) {
      const seen = new Set<string>([n.id]);
      for (let q: StepNode | undefined = p; q; q = q.parentId !== undefined ? byId.get(q.parentId) : undefined) {
        if (seen.has(q.id)) {
          p = undefined;
          break;
        }
        seen.add(q.id);
      }
    }
    if (!p) {
      roots.push(n);
      continue;
    }
    const list = children.get(p.id) ?? [];
    list.push(n);
    children.set(p.id, list);
  }
  roots.sort(byStart);
  for (const list of children.values()) list.sort(byStart);
  // Post-order: a step keeps its model/tool call only if no descendant has one.
  const visit = (n: StepNode): { model: boolean; tool: boolean } => {
    let model = false;
    let tool = false;
    for (const c of children.get(n.id) ?? []) {
      const r = visit(c);
      model ||= r.model;
      tool ||= r.tool;
    }
    if (model && n.model) n.model = undefined;
    if (tool && n.tool) n.tool = undefined;
    return { model: model || !!n.model, tool: tool || !!n.tool };
  };
  for (const r of roots) visit(r);
  return { roots, children };
}

/** Adds the events of every step to the builder, in tree order; returns what was found. */
export function addNodes(builder: JournalBuilder, nodes: StepNode[]): NodeSummary {
  const { roots, children } = arrangeNodes(nodes);
  const modelCalls: ModelCallInfo[] = [];
  const toolCalls: ToolCallInfo[] = [];
  const walk = (n: StepNode, parent?: StepNode) => {
    const sk = `s:${n.id}`;
    const pk = parent ? `s:${parent.id}` : undefined;
    let attributes = n.attributes;
    if (attributes && n.contentKeys && (n.model || n.tool || n.retrieval)) {
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(attributes)) if (!n.contentKeys.has(k)) setOwn(kept, k, v);
      attributes = kept;
    }
    builder.add({
      t: n.start,
      type: "step.start",
      step: n.id,
      key: sk,
      parentKey: pk,
      after: pk,
      data: compact({
        name: n.name,
        kind: n.kind,
        ...n.info,
        attributes: attributes && Object.keys(attributes).length > 0 ? attributes : undefined,
      }),
    });
    const m = n.model;
    if (m) {
      modelCalls.push(m);
      builder.add({
        t: n.start,
        type: "model.request",
        step: n.id,
        key: `mq:${n.id}`,
        parentKey: sk,
        after: sk,
        data: compact({ call: m.call, model: m.model, params: m.params, messages: m.messages, tools: m.tools, ...m.requestExtra }),
      });
    }
    const tc = n.tool;
    if (tc) {
      toolCalls.push(tc);
      builder.add({
        t: n.start,
        type: "tool.call",
        step: n.id,
        key: `tc:${n.id}`,
        parentKey: sk,
        after: sk,
        data: compact({ call: tc.call, tool: tc.tool, args: tc.args ?? {}, ...inferEffect(tc.tool, tc.args), ...tc.callExtra }),
      });
    }
    for (const c of children.get(n.id) ?? []) walk(c, n);
    for (const mk of n.marks) builder.add({ t: mk.t, type: mk.type, step: n.id, parentKey: sk, after: sk, data: mk.data });
    for (const e of n.errors) {
      builder.add({
        t: e.t,
        type: "error",
        step: n.id,
        parentKey: sk,
        after: sk,
        data: compact({ message: e.message, code: e.code, ...e.extra }),
      });
    }
    if (n.retrieval) {
      builder.add({
        t: n.end,
        type: "retrieval",
        step: n.id,
        parentKey: sk,
        after: sk,
        data: { query: n.retrieval.query ?? null, documents: n.retrieval.documents },
      });
    }
    if (tc) {
      builder.add({
        t: n.end,
        type: "tool.result",
        step: n.id,
        parentKey: `tc:${n.id}`,
        after: `tc:${n.id}`,
        data: compact({ call: tc.call, status: tc.status, result: tc.result, error: tc.error, latencyMs: tc.latencyMs, ...tc.resultExtra }),
      });
    }
    if (m) {
      builder.add({
        t: n.end,
        type: "model.response",
        step: n.id,
        parentKey: `mq:${n.id}`,
        after: `mq:${n.id}`,
        data: compact({
          call: m.call,
          output: m.output,
          finishReason: m.finishReason,
          usage: m.usage,
          latencyMs: m.latencyMs,
          error: m.error,
          ...m.responseExtra,
        }),
      });
    }
    builder.add({ t: n.end, type: "step.end", step: n.id, parentKey: sk, after: sk, data: { status: n.status, ...n.endInfo } });
  };
  for (const r of roots) walk(r);
  return { roots, modelCalls, toolCalls, mainRoot: roots[0] };
}

/** `versions.models` of `run.start`: each model name → the version the provider reported. */
export function modelVersions(calls: ModelCallInfo[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const c of calls) if (!hasOwn(out, c.model)) setOwn(out, c.model, c.responseModel ?? c.model);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Nanoseconds between two times, as milliseconds with microsecond resolution. */
export function latencyMs(start: bigint, end: bigint): number {
  const d = end - start;
  return d > 0n ? Number(d / 1000n) / 1000 : 0;
}
