/**
 * LangSmith run payloads → one run per trace, `langsmith-<trace_id>`. Read: the SDK's
 * `{post: [run…], patch: [run…]}` batches (a run's create and update bodies merged by id,
 * or by the id at the end of `dotted_order` when the update has none), a JSON array of
 * runs, or one run with nested `child_runs`.
 *
 * Each LangSmith run is a step (`run_type` as its kind) under its `parent_run_id` (else the
 * parent named by `dotted_order`): `llm` runs carry the model call (messages from
 * `inputs.messages`, the completion and `usage_metadata` / `usage` from `outputs`, the model
 * from `extra.metadata.ls_model_name` or the request), `tool` runs the tool call (inputs as
 * arguments, outputs as result), `error` an error event. Streaming `events` are not kept.
 */
import { JournalBuilder } from "./builder";
import { asArray, compact, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { chatToolCalls, contentText, normalizeMessages } from "./messages";
import { addNodes, latencyMs, modelVersions, type StepNode } from "./nodes";
import type { ImportedRun, ImportOptions, ImportResult } from "./types";

const dottedIds = (d: unknown): string[] => (typeof d === "string" ? d.split(".").map((seg) => seg.slice(seg.indexOf("Z") + 1)) : []);

function timeOf(v: unknown): bigint | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return BigInt(Math.round(v * 1000)) * 1000n; // epoch ms (JS SDK)
  return isoToNanos(v);
}

/** The runs of a payload, create and update bodies merged, child runs flattened. */
function collectRuns(value: unknown): UnknownRecord[] {
  const byId = new Map<string, UnknownRecord>();
  const order: string[] = [];
  const add = (r: UnknownRecord) => {
    const id = firstStr(r.id) ?? dottedIds(r.dotted_order).pop();
    if (!id) return;
    const prev = byId.get(id);
    if (!prev) order.push(id);
    const merged: UnknownRecord = { ...(prev ?? {}) };
    for (const [k, v] of Object.entries(r))
      if (v !== null && v !== undefined && !(k === "outputs" && isRecord(v) && Object.keys(v).length === 0)) merged[k] = v;
    merged.id = id;
    byId.set(id, merged);
    for (const c of asArray(r.child_runs).filter(isRecord)) add({ parent_run_id: id, trace_id: r.trace_id, ...c });
  };
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.filter(isRecord).forEach(add);
    else if (isRecord(v) && ("post" in v || "patch" in v)) {
      asArray(v.post).filter(isRecord).forEach(add);
      asArray(v.patch).filter(isRecord).forEach(add);
    } else if (isRecord(v) && Array.isArray(v.runs)) v.runs.filter(isRecord).forEach(add);
    else if (isRecord(v)) add(v);
  };
  walk(value);
  return order.flatMap((id) => {
    const r = byId.get(id);
    return r ? [r] : [];
  });
}

function completion(outputs: UnknownRecord): {
  text?: string;
  toolCalls?: ReturnType<typeof chatToolCalls>;
  finish?: string;
  model?: string;
} {
  const choice = asArray(outputs.choices).filter(isRecord)[0];
  if (choice) {
    const msg = isRecord(choice.message) ? choice.message : {};
    const toolCalls = chatToolCalls(msg.tool_calls);
    return {
      text: str(msg.content),
      toolCalls: toolCalls.length > 0 ? toolCalls : undefined,
      finish: str(choice.finish_reason),
      model: str(outputs.model),
    };
  }
  const gen = asArray(asArray(outputs.generations)[0]).filter(isRecord)[0];
  if (gen) {
    const m = normalizeMessages(isRecord(gen.message) ? [gen.message] : [])[0];
    return { text: m?.content || str(gen.text), toolCalls: m?.toolCalls };
  }
  const text = firstStr(outputs.output, outputs.content, outputs.text);
  return text !== undefined ? { text } : {};
}

function usageOf(outputs: UnknownRecord): Record<string, number> | undefined {
  const um = isRecord(outputs.usage_metadata) ? outputs.usage_metadata : undefined;
  const u = isRecord(outputs.usage)
    ? outputs.usage
    : isRecord(outputs.llm_output) && isRecord(outputs.llm_output.token_usage)
      ? outputs.llm_output.token_usage
      : undefined;
  const out = compact({
    inputTokens: toNumber(um?.input_tokens ?? u?.prompt_tokens ?? u?.input_tokens),
    outputTokens: toNumber(um?.output_tokens ?? u?.completion_tokens ?? u?.output_tokens),
    totalTokens: toNumber(um?.total_tokens ?? u?.total_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

function nodeOf(r: UnknownRecord): StepNode {
  const id = String(r.id);
  const ids = dottedIds(r.dotted_order);
  const parentId = firstStr(r.parent_run_id) ?? (ids.length > 1 ? ids[ids.length - 2] : undefined);
  const start = timeOf(r.start_time) ?? 0n;
  const end = timeOf(r.end_time) ?? start;
  const kind = firstStr(r.run_type) ?? "chain";
  const inputs = isRecord(r.inputs) ? r.inputs : {};
  const outputs = isRecord(r.outputs) ? r.outputs : {};
  const extra = isRecord(r.extra) ? r.extra : {};
  const meta = isRecord(extra.metadata) ? extra.metadata : {};
  const error = r.error !== undefined && r.error !== null && r.error !== "" ? r.error : undefined;
  const node: StepNode = {
    id,
    parentId,
    name: firstStr(r.name) ?? kind,
    kind,
    start,
    end,
    status: error ? "error" : "ok",
    info: compact({ tags: asArray(r.tags).length > 0 ? r.tags : undefined, session: str(r.session_name), provider: str(meta.ls_provider) }),
    errors: error
      ? [{ t: end, message: typeof error === "string" ? error.split("\n")[0] : contentText(error), extra: { detail: error } }]
      : [],
    marks: [],
  };
  if (kind === "llm") {
    const c = completion(outputs);
    const model = firstStr(meta.ls_model_name, inputs.model, c.model) ?? "unknown";
    const messages = normalizeMessages(inputs.messages ?? inputs.prompts ?? inputs.input);
    const params = compact({
      temperature: toNumber(meta.ls_temperature ?? inputs.temperature),
      maxTokens: toNumber(meta.ls_max_tokens ?? inputs.max_tokens),
      stream: inputs.stream === true ? true : undefined,
    });
    node.model = {
      call: id,
      model,
      messages,
      params: Object.keys(params).length > 0 ? params : undefined,
      output: compact({ text: c.text, toolCalls: c.toolCalls }),
      finishReason: c.finish,
      usage: usageOf(outputs),
      latencyMs: latencyMs(start, end),
      error,
      responseModel: c.model,
    };
  } else if (kind === "tool") {
    node.tool = {
      call: id,
      tool: node.name,
      args: inputs,
      status: error ? "error" : r.end_time === undefined ? "unknown" : "ok",
      result: Object.keys(outputs).length > 0 ? ("output" in outputs ? outputs.output : outputs) : undefined,
      error,
      latencyMs: latencyMs(start, end),
    };
  }
  return node;
}

export function importLangSmith(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const runs = collectRuns(value);
  const traces = new Map<string, UnknownRecord[]>();
  for (const r of runs) {
    const trace = firstStr(r.trace_id) ?? dottedIds(r.dotted_order)[0] ?? String(r.id);
    const list = traces.get(trace) ?? [];
    list.push(r);
    traces.set(trace, list);
  }
  const out: ImportedRun[] = [];
  for (const [trace, list] of traces) {
    const runId = makeRunId("langsmith", trace);
    const nodes = list.map(nodeOf);
    const b = new JournalBuilder();
    const summary = addNodes(b, nodes);
    const root = summary.mainRoot;
    const rootRun = list.find((r) => String(r.id) === root?.id);
    const missingEnd = list.filter((r) => r.end_time === undefined).length;
    if (missingEnd > 0) warnings.push(`${runId}: ${missingEnd} run(s) have no end_time (no update payload)`);
    const versions = modelVersions(summary.modelCalls);
    const startData: Record<string, unknown> = compact({
      workflow: { name: root?.name ?? "langsmith" },
      agent: { name: root?.name ?? "langsmith" },
      tags: ["langsmith"],
      input: rootRun?.inputs ?? undefined,
      versions: versions ? { models: versions } : undefined,
      source: compact({ format: "langsmith", file: opts.fileName, traceId: trace, project: str(rootRun?.session_name) }),
    });
    const { min, max } = b.span();
    const failed = root?.status === "error";
    out.push({
      runId,
      events: b.build({
        runId,
        start: { data: startData, t: min },
        end: { data: compact({ status: failed ? "failed" : "succeeded", output: rootRun?.outputs ?? undefined }), t: max },
      }),
    });
  }
  return { format: "langsmith", runs: out, warnings };
}
