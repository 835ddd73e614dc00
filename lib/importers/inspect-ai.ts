/**
 * Inspect AI eval log (JSON, version 2) → one run per sample and epoch,
 * `inspect-<eval.run_id>-<sample id>-<epoch>`. Spans (`span_begin`/`span_end`) become
 * steps; model and tool events become calls; `attachment://…` references are resolved
 * from the sample's attachments first, so the journal holds the real text.
 */
import { setOwn } from "../journal/own-keys";
import { JournalBuilder } from "./builder";
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { inferEffect } from "./effects";
import { normalizeMessages, type JournalMessage } from "./messages";
import { modelVersions, type ModelCallInfo } from "./nodes";
import type { ImportOptions, ImportResult } from "./types";

function resolveAttachments(v: unknown, attachments: UnknownRecord, depth = 0): unknown {
  if (typeof v === "string") {
    if (!v.startsWith("attachment://")) return v;
    const hit = attachments[v.slice("attachment://".length)];
    return typeof hit === "string" ? hit : v;
  }
  if (depth > 60 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => resolveAttachments(x, attachments, depth + 1));
  const out: UnknownRecord = {};
  for (const [k, x] of Object.entries(v)) setOwn(out, k, resolveAttachments(x, attachments, depth + 1));
  return out;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts = content.flatMap((p) => (isRecord(p) && typeof p.text === "string" ? [p.text] : []));
    return parts.length > 0 ? parts.join("\n") : undefined;
  }
  return undefined;
}

function usageOf(u: unknown): Record<string, number> | undefined {
  if (!isRecord(u)) return undefined;
  const out = compact({
    inputTokens: toNumber(u.input_tokens),
    outputTokens: toNumber(u.output_tokens),
    totalTokens: toNumber(u.total_tokens),
    cacheReadTokens: toNumber(u.input_tokens_cache_read),
    cacheCreationTokens: toNumber(u.input_tokens_cache_write),
    reasoningTokens: toNumber(u.reasoning_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

function runStatus(logStatus: string | undefined, sampleError: unknown): "succeeded" | "failed" | "cancelled" {
  if (sampleError) return "failed";
  if (logStatus === "success") return "succeeded";
  if (logStatus === "error") return "failed";
  return "cancelled";
}

/** Model and tool calls read off a message list: each assistant message answers the messages before it. */
function fromMessages(b: JournalBuilder, messages: JournalMessage[], calls: ModelCallInfo[], model: string) {
  let n = 0;
  let since = 0;
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      b.add({
        t: 0n,
        type: "tool.result",
        parentKey: `t:${m.toolCallId ?? ""}`,
        after: `t:${m.toolCallId ?? ""}`,
        data: compact({ call: m.toolCallId ?? `result-${i}`, status: m.isError ? "error" : "ok", result: m.content }),
      });
      return;
    }
    if (m.role !== "assistant") return;
    const call = `msg-model-${++n}`;
    calls.push({ call, model });
    b.add({ t: 0n, type: "model.request", key: `m:${call}`, data: { call, model, messages: messages.slice(since, i) } });
    since = i + 1;
    b.add({
      t: 0n,
      type: "model.response",
      key: `r:${call}`,
      parentKey: `m:${call}`,
      after: `m:${call}`,
      data: compact({ call, output: compact({ text: m.content || undefined, reasoning: m.reasoning, toolCalls: m.toolCalls }) }),
    });
    for (const tc of m.toolCalls ?? []) {
      b.add({
        t: 0n,
        type: "tool.call",
        key: `t:${tc.id}`,
        parentKey: `r:${call}`,
        after: `r:${call}`,
        data: { call: tc.id, tool: tc.name, args: tc.args, ...inferEffect(tc.name, tc.args) },
      });
    }
  });
}

const OMIT = new Set(["event", "timestamp", "span_id", "working_start", "pending", "uuid"]);

function sampleToRun(log: UnknownRecord, sample: UnknownRecord, opts: ImportOptions, fileHash: string, warnings: string[]) {
  const evalInfo = isRecord(log.eval) ? log.eval : {};
  const attachments = isRecord(sample.attachments) ? sample.attachments : {};
  const s = resolveAttachments(sample, attachments) as UnknownRecord;
  const sampleId = String(s.id ?? "0");
  const epoch = String(s.epoch ?? 1);
  const runKey = firstStr(evalInfo.run_id, evalInfo.eval_id) ?? fileHash;
  const runId = makeRunId("inspect", `${runKey}-${sampleId}-${epoch}`);
  const b = new JournalBuilder();
  const spans = new Set<string>();
  const calls: ModelCallInfo[] = [];
  let last: bigint | undefined;
  let nModel = 0;
  const stepStack: string[] = [];

  const stepOf = (e: UnknownRecord): string | undefined => {
    const sid = str(e.span_id);
    if (sid && spans.has(sid)) return sid;
    return stepStack[stepStack.length - 1];
  };

  const visit = (e: UnknownRecord) => {
    const t = isoToNanos(e.timestamp) ?? last ?? 0n;
    last = t;
    const kind = str(e.event) ?? "unknown";
    const step = stepOf(e);
    const under = step ? `s:${step}` : undefined;
    const done = isoToNanos(e.completed) ?? t;
    switch (kind) {
      case "span_begin": {
        const id = str(e.id) ?? `span-${b.size}`;
        const parent = str(e.parent_id);
        const pk = parent && spans.has(parent) ? `s:${parent}` : undefined;
        spans.add(id);
        b.add({
          t,
          type: "step.start",
          step: id,
          key: `s:${id}`,
          parentKey: pk,
          after: pk,
          data: compact({ name: str(e.name) ?? "span", kind: str(e.type) ?? "span" }),
        });
        return;
      }
      case "span_end": {
        const id = str(e.id);
        if (!id || !spans.has(id)) return;
        b.add({ t, type: "step.end", step: id, parentKey: `s:${id}`, after: `s:${id}`, data: { status: "ok" } });
        return;
      }
      case "step": {
        // Logs before spans existed mark steps with begin/end events.
        const name = str(e.name) ?? "step";
        if (e.action === "begin") {
          const id = `step-${b.size}-${name}`;
          stepStack.push(id);
          b.add({
            t,
            type: "step.start",
            step: id,
            key: `s:${id}`,
            parentKey: under,
            after: under,
            data: compact({ name, kind: str(e.type) ?? "step" }),
          });
        } else {
          const id = stepStack.pop();
          if (id) b.add({ t, type: "step.end", step: id, parentKey: `s:${id}`, after: `s:${id}`, data: { status: "ok" } });
        }
        return;
      }
      case "sample_init": {
        const sm = isRecord(e.sample) ? e.sample : {};
        b.add({
          t,
          type: "input",
          step,
          parentKey: under,
          after: under,
          data: { source: "user", content: (sm.input ?? s.input ?? null) as unknown },
        });
        return;
      }
      case "model": {
        nModel++;
        const call = firstStr(e.uuid) ?? `m${nModel}`;
        const output = isRecord(e.output) ? e.output : {};
        const choice = asArray(output.choices).filter(isRecord)[0];
        const msg = choice && isRecord(choice.message) ? choice.message : {};
        const toolCalls = asArray(msg.tool_calls)
          .filter(isRecord)
          .map((c, j) => ({ id: firstStr(c.id) ?? `${call}-${j}`, name: firstStr(c.function) ?? "unknown", args: c.arguments ?? {} }));
        const config = isRecord(e.config) ? e.config : {};
        const tools = asArray(e.tools).flatMap((x) => (isRecord(x) && typeof x.name === "string" ? [x.name] : []));
        const info: ModelCallInfo = {
          call,
          model: firstStr(e.model) ?? "unknown",
          responseModel: firstStr(output.model),
          usage: usageOf(output.usage),
        };
        calls.push(info);
        const key = `m:${call}`;
        b.add({
          t,
          type: "model.request",
          step,
          key,
          parentKey: under,
          after: under,
          data: compact({
            call,
            model: info.model,
            messages: normalizeMessages(asArray(e.input), `${call}-`),
            params: Object.keys(config).length > 0 ? config : undefined,
            tools: tools.length > 0 ? tools : undefined,
            toolChoice: e.tool_choice ?? undefined,
          }),
        });
        const workingMs = toNumber(e.working_time);
        const error = e.error ?? (str(output.error) ? output.error : undefined);
        b.add({
          t: done,
          type: "model.response",
          step,
          parentKey: key,
          after: key,
          data: compact({
            call,
            output: compact({ text: textOf(msg.content), toolCalls: toolCalls.length > 0 ? toolCalls : undefined }),
            finishReason: choice ? str(choice.stop_reason) : undefined,
            usage: info.usage,
            latencyMs: workingMs !== undefined ? Math.round(workingMs * 1_000_000) / 1000 : undefined,
            error: error ?? undefined,
            responseModel: info.responseModel,
          }),
        });
        if (error)
          b.add({
            t: done,
            type: "error",
            step,
            parentKey: key,
            after: key,
            // names the call: its failed response and this error are one failure
            data: { message: typeof error === "string" ? error : JSON.stringify(error), code: "model_error", call },
          });
        return;
      }
      case "tool": {
        const call = firstStr(e.id) ?? `tool-${b.size}`;
        const key = `t:${call}`;
        b.add({
          t,
          type: "tool.call",
          step,
          key,
          parentKey: under,
          after: under,
          data: compact({
            call,
            tool: firstStr(e.function) ?? "tool",
            args: e.arguments ?? {},
            ...inferEffect(firstStr(e.function) ?? "tool", e.arguments),
            toolType: str(e.type),
          }),
        });
        for (const child of asArray(e.events).filter(isRecord)) visit(child);
        const err = isRecord(e.error) ? e.error : undefined;
        const workingMs = toNumber(e.working_time);
        b.add({
          t: done,
          type: "tool.result",
          step,
          parentKey: key,
          after: key,
          data: compact({
            call,
            status: err ? (err.type === "timeout" ? "timeout" : "error") : "ok",
            result: e.result ?? null,
            error: err ? (str(err.message) ?? str(err.type) ?? "error") : undefined,
            latencyMs: workingMs !== undefined ? Math.round(workingMs * 1_000_000) / 1000 : undefined,
          }),
        });
        return;
      }
      case "error": {
        const err = isRecord(e.error) ? e.error : {};
        b.add({
          t,
          type: "error",
          step,
          parentKey: under,
          after: under,
          data: compact({ message: firstStr(err.message, e.message) ?? "error", code: "sample_error", traceback: str(err.traceback) }),
        });
        return;
      }
      default: {
        const data: UnknownRecord = {};
        for (const [k, v] of Object.entries(e)) if (!OMIT.has(k)) setOwn(data, k, v);
        const type = `x-inspect-${kind.replace(/[^A-Za-z0-9._:-]/g, "_")}` as const;
        b.add({ t, type, step, parentKey: under, after: under, data });
      }
    }
  };
  for (const e of asArray(s.events).filter(isRecord)) visit(e);
  // a sample without events (older logs, or events left out): its messages are the run
  if (asArray(s.events).length === 0) {
    fromMessages(
      b,
      normalizeMessages(s.messages, "msg-"),
      calls,
      firstStr(isRecord(s.output) ? s.output.model : undefined, evalInfo.model) ?? "unknown",
    );
    if (asArray(s.messages).length > 0)
      warnings.push(`sample ${sampleId}: no events; model and tool calls were read from its messages (no times)`);
  }

  const error = s.error ?? undefined;
  if (error && !asArray(s.events).some((e) => isRecord(e) && e.event === "error")) {
    const err = isRecord(error) ? error : { message: String(error) };
    b.add({
      t: last ?? 0n,
      type: "error",
      data: compact({ message: firstStr(err.message) ?? "sample error", code: "sample_error", traceback: str(err.traceback) }),
    });
  }
  const { min, max } = b.span();
  const stats = isRecord(log.stats) ? log.stats : {};
  const plan = isRecord(log.plan) ? log.plan : {};
  const solvers = asArray(plan.steps).flatMap((p) => (isRecord(p) && typeof p.solver === "string" ? [p.solver] : []));
  const task = firstStr(evalInfo.task) ?? "inspect-task";
  const startData: Record<string, unknown> = {
    workflow: compact({ name: task, version: evalInfo.task_version !== undefined ? String(evalInfo.task_version) : undefined }),
    tags: ["inspect-ai", task],
    source: compact({
      format: "inspect-ai",
      file: opts.fileName,
      evalId: str(evalInfo.eval_id),
      runId: str(evalInfo.run_id),
      sampleId: s.id,
      epoch: s.epoch,
      uuid: str(s.uuid),
    }),
    input: s.input ?? null,
  };
  if (solvers.length > 0) startData.agent = { name: solvers.join(" → ") };
  const models = modelVersions(calls);
  if (models) startData.versions = { models };
  if (s.target !== undefined && s.target !== "") startData.target = s.target;
  const logStatus = str(log.status);
  if (logStatus === "started") warnings.push(`sample ${sampleId}: the log is still "started" (incomplete); the run is marked cancelled`);
  const output = isRecord(s.output) ? s.output : {};
  const endData = compact({
    status: runStatus(logStatus, error),
    output: firstStr(output.completion) ?? undefined,
    scores: isRecord(s.scores) ? s.scores : undefined,
    error: error ?? undefined,
    logStatus,
  });
  const startT = isoToNanos(stats.started_at);
  return {
    runId,
    events: b.build({
      runId,
      start: { data: startData, t: startT !== undefined && min !== undefined && startT <= min ? startT : min },
      end: { data: endData, t: max },
    }),
  };
}

export function importInspect(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const log = isRecord(value) ? value : {};
  const samples = asArray(log.samples).filter(isRecord);
  if (samples.length === 0) warnings.push("the eval log has no samples (header-only log?): nothing to import");
  const fileHash = contentId(text);
  const runs = samples.map((s) => sampleToRun(log, s, opts, fileHash, warnings));
  if (isRecord(log.error) && samples.length > 0) warnings.push(`the eval ended with an error: ${str(log.error.message) ?? "unknown"}`);
  return { format: "inspect-ai", runs, warnings };
}
