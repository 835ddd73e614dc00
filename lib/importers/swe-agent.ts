/**
 * SWE-agent `.traj` → one run `swe-<instance id or file stem>-<8 hex of the file's SHA-256>`. Each trajectory entry is a
 * step: the model call that chose the action, the action as a tool call, the observation
 * as its result. The file has no wall-clock times, so events get the synthetic time
 * 1970-01-01T00:00:00.000Z + seq ms (said in the warnings). Token usage exists only for the
 * whole run (`info.model_stats`) and is recorded on `run.end`.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import {
  asArray,
  compact,
  contentId,
  decodeJsonString,
  fileStem,
  firstStr,
  isRecord,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import type { ImportOptions, ImportResult } from "./types";

// SWE-agent's linter gate answers a rejected edit with this text; the edit was not applied.
const REJECTED_EDIT = /^\s*Your proposed edit has introduced new syntax error/;

function statusOf(exit: string | undefined): "succeeded" | "failed" | "cancelled" {
  if (!exit) return "failed";
  if (exit.startsWith("submitted")) return "succeeded";
  if (exit === "early_exit" || exit.includes("interrupt")) return "cancelled";
  return "failed";
}

export function importSweAgent(value: unknown, text: string, opts: ImportOptions = {}): ImportResult {
  const warnings = ["SWE-agent trajectories have no timestamps: times are 1970-01-01T00:00:00.000Z plus the event's seq in milliseconds"];
  const root = isRecord(value) ? value : {};
  const replay = decodeJsonString(root.replay_config);
  const config = isRecord(replay) ? replay : {};
  const agentCfg = isRecord(config.agent) ? config.agent : {};
  const modelCfg = isRecord(agentCfg.model) ? agentCfg.model : {};
  const problem = isRecord(config.problem_statement) ? config.problem_statement : {};
  const info = isRecord(root.info) ? root.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : {};
  const trajectory = asArray(root.trajectory).filter(isRecord);
  const history = asArray(root.history).filter(isRecord);
  const model = firstStr(modelCfg.name) ?? "unknown";

  const instanceId = firstStr(problem.id, root.instance_id) ?? fileStem(opts.fileName);
  if (!instanceId) warnings.push("no instance id or file name: the run id was derived from the file's content");
  // the file's hash is in the id: two configurations (or models) of one instance are two runs,
  // and importing the same file again gives the same id
  const runId = makeRunId("swe", instanceId ? `${instanceId}-${contentId(text).slice(0, 8)}` : contentId(text));

  // The i-th assistant message of the history is the model output behind trajectory step i.
  const assistantAt = history.flatMap((m, i) => (m.role === "assistant" && m.is_demo !== true ? [i] : []));
  if (assistantAt.length !== trajectory.length) {
    warnings.push(
      `history has ${assistantAt.length} assistant messages for ${trajectory.length} steps; prompts are left out where they cannot be matched`,
    );
  }
  const firstUser = history.find((m) => m.role === "user" && m.is_demo !== true);
  const input = firstStr(problem.text) ?? (firstUser ? firstUser.content : undefined);

  const b = new JournalBuilder();
  if (input !== undefined) b.add({ t: 0n, type: "input", data: { source: "user", content: input } });
  trajectory.forEach((step, i) => {
    const sid = `step-${i + 1}`;
    const action = typeof step.action === "string" ? step.action : "";
    const command = action.trim().split(/\s+/)[0] || "action";
    const hIndex = assistantAt.length === trajectory.length ? assistantAt[i] : undefined;
    const assistant: UnknownRecord | undefined = hIndex !== undefined ? history[hIndex] : undefined;
    const fnCall = assistant ? asArray(assistant.tool_calls).filter(isRecord)[0] : undefined;
    const fn = fnCall && isRecord(fnCall.function) ? fnCall.function : undefined;
    const callId = firstStr(fnCall?.id) ?? `t${i + 1}`;
    const tool = firstStr(fn?.name) ?? command;
    const args = fn ? decodeJsonString(fn.arguments ?? {}) : { command: action };
    const observation = step.observation;
    const rejected = typeof observation === "string" && REJECTED_EDIT.test(observation);
    const execMs = toNumber(step.execution_time);

    b.add({
      t: 0n,
      type: "step.start",
      step: sid,
      key: `s${i}`,
      data: compact({ name: command, kind: "agent", state: decodeJsonString(step.state) }),
    });
    b.add({
      t: 0n,
      type: "model.request",
      step: sid,
      key: `m${i}`,
      parentKey: `s${i}`,
      data: compact({ call: `m${i + 1}`, model, messages: hIndex !== undefined ? history.slice(0, hIndex) : undefined }),
    });
    const thought = firstStr(step.thought);
    b.add({
      t: 0n,
      type: "model.response",
      step: sid,
      parentKey: `m${i}`,
      data: compact({
        call: `m${i + 1}`,
        output: { text: firstStr(step.response, assistant?.content) ?? "", toolCalls: [{ id: callId, name: tool, args }] },
        thought,
      }),
    });
    b.add({
      t: 0n,
      type: "tool.call",
      step: sid,
      key: `t${i}`,
      parentKey: `s${i}`,
      data: {
        call: callId,
        tool,
        args,
        ...inferEffect(tool, isRecord(args) && Object.keys(args).length > 0 ? args : { command: action }),
        command: action,
      },
    });
    b.add({
      t: 0n,
      type: "tool.result",
      step: sid,
      parentKey: `t${i}`,
      data: compact({
        call: callId,
        status: rejected ? "error" : "ok",
        result: observation ?? null,
        error: rejected && typeof observation === "string" ? observation.split(/\r?\n\r?\n/)[0] : undefined,
        latencyMs: execMs !== undefined ? Math.round(execMs * 1_000_000) / 1000 : undefined,
      }),
    });
    b.add({ t: 0n, type: "step.end", step: sid, parentKey: `s${i}`, data: { status: rejected ? "error" : "ok" } });
  });

  const exit = str(info.exit_status);
  const usage = compact({
    inputTokens: toNumber(stats.tokens_sent),
    outputTokens: toNumber(stats.tokens_received),
    apiCalls: toNumber(stats.api_calls),
    cost: toNumber(stats.instance_cost),
  });
  const startData: Record<string, unknown> = {
    workflow: { name: "swe-agent" },
    agent: { name: "swe-agent" },
    tags: ["swe-agent"],
    source: compact({ format: "swe-agent", file: opts.fileName, environment: str(root.environment) }),
  };
  if (model !== "unknown") startData.versions = { models: { [model]: model } };
  if (instanceId) startData.task = instanceId;
  if (input !== undefined) startData.input = input;
  const endData = compact({
    status: statusOf(exit),
    exitStatus: exit,
    output: info.submission ?? undefined,
    usage: Object.keys(usage).length > 0 ? usage : undefined,
  });
  return {
    format: "swe-agent",
    runs: [{ runId, events: b.build({ runId, synthetic: true, start: { data: startData }, end: { data: endData } }) }],
    warnings,
  };
}
