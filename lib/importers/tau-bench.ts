/**
 * tau-bench results (an array of `{task_id, trial, reward, info, traj}`) → one run per
 * record, `tau-<task_id>-<trial>-<8 hex of the record's SHA-256>`: two result files (another
 * model, another run of the benchmark) with the same task and trial are two runs, and the
 * same record imported again (also from a checkpoint file that has grown) keeps its id. `traj` is an OpenAI chat transcript: each assistant
 * message is a model call (prompt = the messages before it) in its own step, its tool
 * calls are executed by the `tool` messages that follow, user messages are inputs.
 * No times exist in the format: events get 1970-01-01T00:00:00.000Z + seq ms.
 */
import { canonicalJson } from "../canonical";
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import {
  asArray,
  compact,
  contentId,
  decodeJsonString,
  firstStr,
  isRecord,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import type { ImportOptions, ImportResult } from "./types";

function recordToRun(r: UnknownRecord, index: number, opts: ImportOptions, usedIds: Set<string>) {
  const info = isRecord(r.info) ? r.info : {};
  const task = isRecord(info.task) ? info.task : {};
  const traj = asArray(r.traj).filter(isRecord);
  const taskId = r.task_id !== undefined && r.task_id !== null ? String(r.task_id) : String(index);
  const trial = r.trial !== undefined && r.trial !== null ? String(r.trial) : "0";
  // the record's canonical JSON: the same record hashes alike whatever the file's layout
  const hash = contentId(canonicalJson(r)).slice(0, 8);
  let runId = makeRunId("tau", `${taskId}-${trial}-${hash}`);
  for (let n = 2; usedIds.has(runId); n++) runId = makeRunId("tau", `${taskId}-${trial}-${hash}-${n}`);
  usedIds.add(runId);

  const b = new JournalBuilder();
  let turn = 0;
  let openStep: string | undefined;
  const pendingCalls = new Map<string, string>();
  const closeStep = () => {
    if (openStep) b.add({ t: 0n, type: "step.end", step: openStep, parentKey: `s:${openStep}`, data: { status: "ok" } });
    openStep = undefined;
  };
  let input: unknown;
  traj.forEach((m, i) => {
    const role = str(m.role) ?? "unknown";
    if (role === "user") {
      closeStep();
      input ??= m.content;
      b.add({ t: 0n, type: "input", data: { source: "user", content: m.content ?? null, simulated: true } });
    } else if (role === "assistant") {
      closeStep();
      turn++;
      const sid = `turn-${turn}`;
      openStep = sid;
      const calls = asArray(m.tool_calls).filter(isRecord);
      const toolCalls = calls.map((c, j) => {
        const fn = isRecord(c.function) ? c.function : {};
        return { id: firstStr(c.id) ?? `${sid}-${j}`, name: firstStr(fn.name) ?? "unknown", args: decodeJsonString(fn.arguments ?? {}) };
      });
      b.add({
        t: 0n,
        type: "step.start",
        step: sid,
        key: `s:${sid}`,
        data: { name: toolCalls.length > 0 ? toolCalls.map((c) => c.name).join(", ") : "reply", kind: "agent" },
      });
      b.add({
        t: 0n,
        type: "model.request",
        step: sid,
        key: `m:${sid}`,
        parentKey: `s:${sid}`,
        data: { call: `m${turn}`, model: "unknown", messages: traj.slice(0, i) },
      });
      b.add({
        t: 0n,
        type: "model.response",
        step: sid,
        parentKey: `m:${sid}`,
        data: compact({
          call: `m${turn}`,
          output: compact({
            text: typeof m.content === "string" ? m.content : undefined,
            toolCalls: toolCalls.length > 0 ? toolCalls : undefined,
          }),
        }),
      });
      for (const c of toolCalls) {
        b.add({
          t: 0n,
          type: "tool.call",
          step: sid,
          key: `t:${c.id}`,
          parentKey: `s:${sid}`,
          data: { call: c.id, tool: c.name, args: c.args, ...inferEffect(c.name, c.args) },
        });
        pendingCalls.set(c.id, sid);
      }
    } else if (role === "tool") {
      const callId = str(m.tool_call_id) ?? `unmatched-${i}`;
      const sid = pendingCalls.get(callId) ?? openStep;
      pendingCalls.delete(callId);
      const content = m.content;
      const isError = typeof content === "string" && /^Error:/i.test(content);
      b.add({
        t: 0n,
        type: "tool.result",
        step: sid,
        parentKey: `t:${callId}`,
        data: compact({
          call: callId,
          status: isError ? "error" : "ok",
          result: decodeJsonString(content ?? null),
          error: isError ? content : undefined,
          tool: str(m.name),
        }),
      });
    } else if (role === "system") {
      b.add({ t: 0n, type: "context", data: { messages: [{ role: "system", content: m.content ?? "", source: "system" }] } });
    }
  });
  closeStep();
  const err = firstStr(info.error);
  if (err) b.add({ t: 0n, type: "error", data: compact({ message: err, code: "tau_bench_error", traceback: str(info.traceback) }) });

  const reward = toNumber(r.reward);
  const startData: Record<string, unknown> = {
    workflow: { name: firstStr(info.env, task.env) ?? "tau-bench" },
    tags: ["tau-bench"],
    source: compact({ format: "tau-bench", file: opts.fileName, taskId: r.task_id, trial: r.trial, taskSource: str(info.source) }),
    initiator: compact({ kind: "user-simulator", id: str(task.user_id) }),
    input: input ?? task.instruction ?? null,
  };
  if (task.instruction !== undefined) startData.instruction = task.instruction;
  const status = err ? "failed" : reward !== undefined && reward > 0 ? "succeeded" : "failed";
  const endData = compact({
    status,
    reward,
    expectedActions: task.actions,
    rewardInfo: info.reward_info ?? undefined,
    userCost: info.user_cost ?? undefined,
  });
  return { runId, events: b.build({ runId, synthetic: true, start: { data: startData }, end: { data: endData } }) };
}

export function importTauBench(value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings = ["tau-bench results have no timestamps: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds"];
  const records = (Array.isArray(value) ? value : [value]).filter(isRecord);
  const used = new Set<string>();
  const runs = records.map((r, i) => recordToRun(r, i, opts, used));
  return { format: "tau-bench", runs, warnings };
}
