/**
 * ATIF trajectory (Harbor's Agent Trajectory Interchange Format, v1.5–1.7) → one run
 * `atif-<session_id>-<8 hex of the file's SHA-256>`: the session id alone is not unique
 * (Harbor's golden files all say `NORMALIZED_SESSION_ID`).
 *
 * - `user` steps are inputs (and the messages of the next model request), `system` steps
 *   notes; an `agent` step is a step with one model call (its `message`, `reasoning_content`,
 *   `tool_calls`, `metrics` as usage and cost) and a tool call per `tool_calls` entry whose
 *   result is the `observation.results` entry with its `source_call_id` (else the same
 *   position). An observation without calls (no function calling) is a note.
 * - `subagent_trajectory_ref` entries are kept as links (`trajectoryRefs` on a step of
 *   kind `agent`), not followed: the referenced files are separate imports.
 * - Steps without `timestamp` get synthetic times (1970 + seq ms), said in the warnings.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber } from "./json-utils";
import { contentText, normalizeArgs, type JournalMessage } from "./messages";
import type { ImportOptions, ImportResult } from "./types";

function usageOf(m: unknown): Record<string, number> | undefined {
  if (!isRecord(m)) return undefined;
  const out = compact({
    inputTokens: toNumber(m.prompt_tokens),
    outputTokens: toNumber(m.completion_tokens),
    cacheReadTokens: toNumber(m.cached_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

export function importAtif(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const root = isRecord(value) ? value : {};
  const agent = isRecord(root.agent) ? root.agent : {};
  const steps = asArray(root.steps).filter(isRecord);
  const session = firstStr(root.session_id) ?? "session";
  const runId = makeRunId("atif", `${session}-${contentId(text).slice(0, 8)}`);
  const synthetic = !steps.some((s) => isoToNanos(s.timestamp) !== undefined);
  if (synthetic) warnings.push("the trajectory has no timestamps: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds");
  let last = 0n;
  const tOf = steps.map((s) => (last = isoToNanos(s.timestamp) ?? last));

  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  steps.forEach((s, i) => {
    const t = tOf[i];
    const id = String(s.step_id ?? i + 1);
    const message = contentText(s.message);
    const results = asArray(isRecord(s.observation) ? s.observation.results : undefined).filter(isRecord);
    if (s.source === "user" || s.source === "system") {
      pending.push({ role: s.source, content: message });
      if (s.source === "user") {
        input ??= message;
        b.add({ t, type: "input", data: { source: "user", content: message, stepId: id } });
      }
      const refs = results.flatMap((r) => asArray(r.subagent_trajectory_ref).filter(isRecord));
      if (refs.length > 0) {
        const sid = `step-${id}`;
        const trajectoryRefs = refs.map((r) => compact({ sessionId: str(r.session_id), path: str(r.trajectory_path), extra: r.extra }));
        b.add({ t, type: "step.start", step: sid, key: `s${id}`, data: { name: "sub-trajectories", kind: "agent", trajectoryRefs } });
        b.add({ t, type: "note", step: sid, parentKey: `s${id}`, after: `s${id}`, data: { text: message, source: s.source } });
        b.add({ t, type: "step.end", step: sid, parentKey: `s${id}`, after: `s${id}`, data: { status: "ok" } });
      } else if (s.source === "system") {
        b.add({ t, type: "note", data: { text: message, source: "system", stepId: id } });
      }
      return;
    }
    const sid = `step-${id}`;
    const model = firstStr(s.model_name, agent.model_name) ?? "unknown";
    if (model !== "unknown") models[model] = model;
    const calls = asArray(s.tool_calls)
      .filter(isRecord)
      .map((c, j) => ({
        id: firstStr(c.tool_call_id) ?? `${sid}-call-${j}`,
        name: firstStr(c.function_name) ?? "unknown",
        args: normalizeArgs(c.arguments),
      }));
    const metrics = isRecord(s.metrics) ? s.metrics : {};
    b.add({ t, type: "step.start", step: sid, key: `s${id}`, data: { name: model, kind: "agent", stepId: id } });
    b.add({
      t,
      type: "model.request",
      step: sid,
      key: `m${id}`,
      parentKey: `s${id}`,
      after: `s${id}`,
      data: { call: `m${id}`, model, messages: pending },
    });
    pending = [];
    b.add({
      t,
      type: "model.response",
      step: sid,
      key: `r${id}`,
      parentKey: `m${id}`,
      after: `m${id}`,
      data: compact({
        call: `m${id}`,
        output: compact({
          text: message || undefined,
          reasoning: str(s.reasoning_content),
          toolCalls: calls.length > 0 ? calls : undefined,
        }),
        usage: usageOf(metrics),
        cost: toNumber(metrics.cost_usd),
      }),
    });
    if (message) output = message;
    calls.forEach((c, j) => {
      b.add({
        t,
        type: "tool.call",
        step: sid,
        key: `t${id}-${j}`,
        parentKey: `s${id}`,
        after: `r${id}`,
        data: { call: c.id, tool: c.name, args: c.args, ...inferEffect(c.name, c.args) },
      });
      const r =
        results.find((x) => x.source_call_id === c.id) ?? (results.every((x) => x.source_call_id === undefined) ? results[j] : undefined);
      if (r)
        b.add({
          t,
          type: "tool.result",
          step: sid,
          parentKey: `t${id}-${j}`,
          after: `t${id}-${j}`,
          data: { call: c.id, status: "ok", result: contentText(r.content) },
        });
      else warnings.push(`step ${id}: tool call ${c.id} has no observation`);
    });
    if (calls.length === 0)
      for (const r of results)
        b.add({
          t,
          type: "note",
          step: sid,
          parentKey: `s${id}`,
          after: `r${id}`,
          data: { text: contentText(r.content), kind: "observation" },
        });
    b.add({ t, type: "step.end", step: sid, parentKey: `s${id}`, after: `s${id}`, data: { status: "ok" } });
  });

  const fm = isRecord(root.final_metrics) ? root.final_metrics : {};
  const startData: Record<string, unknown> = {
    workflow: { name: firstStr(agent.name) ?? "atif" },
    agent: compact({ name: firstStr(agent.name) ?? "atif", version: str(agent.version) }),
    tags: ["atif"],
    source: compact({ format: "atif", file: opts.fileName, schemaVersion: str(root.schema_version), sessionId: session }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  const usage = compact({
    inputTokens: toNumber(fm.total_prompt_tokens),
    outputTokens: toNumber(fm.total_completion_tokens),
    cacheReadTokens: toNumber(fm.total_cached_tokens),
    cost: toNumber(fm.total_cost_usd),
  });
  const { min, max } = b.span();
  const endData = compact({ status: "succeeded", output, usage: Object.keys(usage).length > 0 ? usage : undefined });
  return {
    format: "atif",
    runs: [
      {
        runId,
        events: b.build({
          runId,
          synthetic,
          start: { data: startData, t: synthetic ? undefined : min },
          end: { data: endData, t: synthetic ? undefined : max },
        }),
      },
    ],
    warnings,
  };
}
