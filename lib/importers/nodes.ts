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
import { asArray, compact, isRecord } from "./json-utils";
import { contentText } from "./messages";

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
  output?: { text?: string; reasoning?: string; toolCalls?: ToolCallRequest[] };
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
  /** Only the span's status said so (no exception of its own): an ancestor may just have inherited it. */
  fromStatus?: boolean;
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

interface NodeSummary {
  roots: StepNode[];
  /** Model calls kept after removing wrappers, in time order. */
  modelCalls: ModelCallInfo[];
  toolCalls: ToolCallInfo[];
  /** The earliest-starting root, the one whose status decides the run's. */
  mainRoot?: StepNode;
}

const byStart = (a: StepNode, b: StepNode) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const MS = 1_000_000n;

/**
 * Siblings in causal order: by start, then end. OpenTelemetry JS takes start times in whole
 * milliseconds but measures durations finer, so starts within one millisecond are ties
 * (compared by millisecond, which keeps the order transitive), decided by the end.
 */
export function causalCompare(a: StepNode, b: StepNode): number {
  const am = a.start / MS;
  const bm = b.start / MS;
  if (am !== bm) return am < bm ? -1 : 1;
  if (a.end !== b.end) return a.end < b.end ? -1 : 1;
  return byStart(a, b);
}

interface ArrangeOptions {
  /** Order siblings causally (causalCompare, then a tool after the sibling whose model requested it). */
  causal?: boolean;
}

/**
 * The call ids a subtree's model calls requested, the ones its tools executed, and the ones
 * its model calls were sent back (tool calls and results in their request messages).
 */
interface CallIds {
  requested: Set<string>;
  executed: Set<string>;
  consumed: Set<string>;
}

/** A tool that ran the call a later sibling's model asked for moves after that sibling. */
function afterRequesters(list: StepNode[], ids: Map<string, CallIds>): StepNode[] {
  const requester = new Map<string, number>();
  const executor = new Map<string, number>();
  list.forEach((n, i) => {
    for (const c of ids.get(n.id)?.requested ?? []) if (!requester.has(c)) requester.set(c, i);
    for (const c of ids.get(n.id)?.executed ?? []) if (!executor.has(c)) executor.set(c, i);
  });
  if (requester.size === 0) return list;
  const out: StepNode[] = [];
  const emitted = new Set<number>();
  const waiting = new Map<number, number[]>();
  const emit = (i: number) => {
    out.push(list[i]);
    emitted.add(i);
    const w = waiting.get(i);
    if (w) {
      waiting.delete(i);
      for (const j of w) emit(j);
    }
  };
  list.forEach((n, i) => {
    let wait: number | undefined;
    const after = (r: number | undefined) => {
      if (r !== undefined && r > i && !emitted.has(r) && (wait === undefined || r > wait)) wait = r;
    };
    for (const c of ids.get(n.id)?.executed ?? []) after(requester.get(c));
    // a model call sent a call's result comes after the request and the tool that ran it
    for (const c of ids.get(n.id)?.consumed ?? []) {
      after(requester.get(c));
      after(executor.get(c));
    }
    if (wait === undefined) emit(i);
    else waiting.set(wait, [...(waiting.get(wait) ?? []), i]);
  });
  for (const w of waiting.values()) for (const j of w) if (!emitted.has(j)) out.push(list[j]);
  return out;
}

/** What a model call was asked: role and text of each message (shapes differ between instrumentations). */
export function requestSignature(m: ModelCallInfo): string | undefined {
  if (!m.messages || m.messages.length === 0) return undefined;
  return JSON.stringify(m.messages.map((x) => (isRecord(x) ? [String(x.role ?? ""), contentText(x.content)] : [contentText(x)])));
}

/** Of two records of one call, the one to keep: the inner one in time, else the one with usage. */
function better(a: StepNode, b: StepNode): StepNode {
  const aIn = a.start >= b.start && a.end <= b.end;
  const bIn = b.start >= a.start && b.end <= a.end;
  if (aIn !== bIn) return aIn ? a : b;
  if (!!a.model?.usage !== !!b.model?.usage) return a.model?.usage ? a : b;
  return a;
}

/**
 * Sibling steps that describe one model call (a framework's span and a provider's, e.g.
 * OpenInference LangChain + OpenAI): the same messages at overlapping times. One keeps the
 * call, the other stays a step without it. A call repeated later (a retry) does not overlap.
 */
function dropSiblingDuplicates(list: StepNode[]): void {
  const seen: Array<{ node: StepNode; sig: string }> = [];
  for (const n of list) {
    if (!n.model) continue;
    const sig = requestSignature(n.model);
    if (sig === undefined) continue;
    const twin = seen.find((s) => s.sig === sig && s.node.model && s.node.start <= n.end && n.start <= s.node.end);
    if (!twin) {
      seen.push({ node: n, sig });
      continue;
    }
    const keep = better(twin.node, n);
    const drop = keep === n ? twin.node : n;
    drop.model = undefined;
    twin.node = keep;
  }
}

/**
 * Builds the tree (missing parents make extra roots) and drops wrapper model/tool calls.
 * A failure is kept once: an error that only the span's status gives (no exception of its
 * own) is dropped when a descendant failed, since the ancestor inherited it.
 */
export function arrangeNodes(nodes: StepNode[], opts: ArrangeOptions = {}): { roots: StepNode[]; children: Map<string, StepNode[]> } {
  const byId = new Map<string, StepNode>();
  for (const n of nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const children = new Map<string, StepNode[]>();
  let roots: StepNode[] = [];
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
  const cmp = opts.causal ? causalCompare : byStart;
  roots.sort(cmp);
  for (const list of children.values()) list.sort(cmp);
  dropSiblingDuplicates(roots);
  for (const list of children.values()) dropSiblingDuplicates(list);
  const ids = new Map<string, CallIds>();
  // Post-order: a step keeps its model/tool call only if no descendant has one.
  const visit = (n: StepNode): { model: boolean; tool: boolean; failed: boolean; calls: StepNode[] } => {
    let model = false;
    let tool = false;
    let failed = false;
    // the steps below that keep a model call (two are enough to know it is not one)
    const calls: StepNode[] = [];
    const mine: CallIds | undefined = opts.causal ? { requested: new Set(), executed: new Set(), consumed: new Set() } : undefined;
    for (const c of children.get(n.id) ?? []) {
      const r = visit(c);
      if (calls.length < 2) calls.push(...r.calls.slice(0, 2 - calls.length));
      model ||= r.model;
      tool ||= r.tool;
      failed ||= r.failed;
      const sub = ids.get(c.id);
      if (mine && sub) {
        for (const x of sub.requested) mine.requested.add(x);
        for (const x of sub.executed) mine.executed.add(x);
        for (const x of sub.consumed) mine.consumed.add(x);
      }
    }
    if (model && n.model) {
      // the one call inside recorded no answer (agno's provider span around the OpenAI
      // instrumentation's, which left the output out): it takes the wrapper's
      const inner = calls.length === 1 ? calls[0].model : undefined;
      if (inner && inner.output === undefined && n.model.output !== undefined) {
        inner.output = n.model.output;
        inner.finishReason ??= n.model.finishReason;
      }
      n.model = undefined;
    }
    if (tool && n.tool) n.tool = undefined;
    if (failed && n.errors.length > 0 && n.errors.every((e) => e.fromStatus)) n.errors = [];
    if (mine) {
      for (const tc of n.model?.output?.toolCalls ?? []) mine.requested.add(tc.id);
      if (n.tool) mine.executed.add(n.tool.call);
      for (const m of n.model?.messages ?? []) {
        if (!isRecord(m)) continue;
        if (typeof m.toolCallId === "string") mine.consumed.add(m.toolCallId);
        for (const tc of asArray(m.toolCalls)) if (isRecord(tc) && typeof tc.id === "string") mine.consumed.add(tc.id);
      }
      ids.set(n.id, mine);
    }
    return {
      model: model || !!n.model,
      tool: tool || !!n.tool,
      failed: failed || n.errors.length > 0,
      calls: n.model ? [n] : calls,
    };
  };
  for (const r of roots) visit(r);
  if (opts.causal) {
    roots = afterRequesters(roots, ids);
    for (const [k, list] of children) children.set(k, afterRequesters(list, ids));
  }
  return { roots, children };
}

/** Adds the events of every step to the builder, in tree order; returns what was found. */
export function addNodes(builder: JournalBuilder, nodes: StepNode[], opts: ArrangeOptions = {}): NodeSummary {
  const { roots, children } = arrangeNodes(nodes, opts);
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
        // the call it concerns: its failed result and this error are one failure (docs/journal-format.md)
        data: compact({ message: e.message, code: e.code, call: tc?.call ?? m?.call, ...e.extra }),
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
