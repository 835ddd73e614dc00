/**
 * OpenHands event stream (a JSON array of actions and observations) → one run
 * `openhands-<file stem, or a hash of the content>`. Each agent action is a step; the
 * model response that produced it (`tool_call_metadata.model_response`, which may drive
 * several actions) is recorded once; the observation whose `cause` is the action is the
 * tool result. The prompt itself is not in the file, so model requests carry no messages.
 */
import { hasOwn, setOwn } from "../journal/own-keys";
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
  isoToNanos,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import type { ImportOptions, ImportResult } from "./types";

// Actions that are not tool executions: conversation and bookkeeping.
const NON_TOOL_ACTIONS = new Set(["message", "finish", "change_agent_state", "system", "recall", "think", "null"]);

function usageOf(u: unknown): Record<string, number> | undefined {
  if (!isRecord(u)) return undefined;
  const details = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const out = compact({
    inputTokens: toNumber(u.prompt_tokens),
    outputTokens: toNumber(u.completion_tokens),
    totalTokens: toNumber(u.total_tokens),
    cacheReadTokens: toNumber(u.cache_read_input_tokens ?? details.cached_tokens),
    cacheCreationTokens: toNumber(u.cache_creation_input_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

function resultStatus(obs: UnknownRecord): "ok" | "error" | "timeout" {
  const extras = isRecord(obs.extras) ? obs.extras : {};
  const meta = isRecord(extras.metadata) ? extras.metadata : {};
  const exit = toNumber(meta.exit_code);
  // exit code -1: the command was still running when OpenHands stopped waiting.
  if (exit === -1) return "timeout";
  if (obs.observation === "error" || obs.success === false || (exit !== undefined && exit !== 0)) return "error";
  return "ok";
}

function argsOf(action: UnknownRecord): Record<string, unknown> {
  const args = isRecord(action.args) ? { ...action.args } : {};
  delete args.thought;
  return args;
}

/** What an evaluation output line (openhands-eval.ts) adds to one instance's history. */
interface OpenHandsRunOptions extends ImportOptions {
  runId?: string;
  /** Extra `run.start` fields (task, model, agent…), over the defaults. */
  start?: Record<string, unknown>;
  end?: Record<string, unknown>;
}

export function importOpenHands(value: unknown, text: string, opts: OpenHandsRunOptions = {}): ImportResult {
  const warnings: string[] = [];
  const events = asArray(value).filter(isRecord);
  const stem = fileStem(opts.fileName);
  const runId = opts.runId ?? makeRunId("openhands", stem ?? contentId(text));
  if (!stem && !opts.runId) warnings.push("the file has no session id and no file name was given: the run id was derived from the content");
  const times = events.map((e) => isoToNanos(e.timestamp));
  const known = times.filter((t): t is bigint => t !== undefined);
  if (known.length < events.length)
    warnings.push(`${events.length - known.length} event(s) have no readable timestamp; they take the time of the event before`);
  let last = known[0] ?? 0n;
  const tOf = times.map((t) => (last = t ?? last));

  const observationsByCause = new Map<string, UnknownRecord[]>();
  for (const e of events) {
    if (e.observation === undefined || e.cause === undefined || e.cause === null) continue;
    const key = String(e.cause);
    observationsByCause.set(key, [...(observationsByCause.get(key) ?? []), e]);
  }

  const b = new JournalBuilder();
  const seenResponses = new Set<string>();
  const models: Record<string, string> = {};
  let input: unknown;
  let status: "succeeded" | "failed" | "cancelled" = "succeeded";
  let output: unknown;
  let agentState: string | undefined;

  events.forEach((e, i) => {
    const t = tOf[i];
    const id = String(e.id ?? i);
    if (e.action !== undefined) {
      const action = String(e.action);
      const args = isRecord(e.args) ? e.args : {};
      if (action === "message" && e.source === "user") {
        const content = args.content ?? e.message;
        input ??= content;
        b.add({ t, type: "input", data: compact({ source: "user", content, eventId: id }) });
        return;
      }
      if (action === "change_agent_state") {
        b.add({ t, type: "note", data: { text: `agent state → ${str(args.agent_state) ?? "?"}`, eventId: id } });
        return;
      }
      const tcm = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
      const resp = tcm && isRecord(tcm.model_response) ? tcm.model_response : undefined;
      const sid = `ev-${id}`;
      b.add({
        t,
        type: "step.start",
        step: sid,
        key: `s${id}`,
        data: compact({ name: action, kind: "agent", source: str(e.source), eventId: id }),
      });
      if (resp) {
        const respId = firstStr(resp.id) ?? `resp-${id}`;
        if (!seenResponses.has(respId)) {
          seenResponses.add(respId);
          const model = firstStr(resp.model) ?? "unknown";
          if (!hasOwn(models, model)) setOwn(models, model, model);
          const choice = asArray(resp.choices).filter(isRecord)[0];
          const msg = choice && isRecord(choice.message) ? choice.message : {};
          const toolCalls = asArray(msg.tool_calls)
            .filter(isRecord)
            .map((c, j) => {
              const fn = isRecord(c.function) ? c.function : {};
              return {
                id: firstStr(c.id) ?? `${respId}-${j}`,
                name: firstStr(fn.name) ?? "unknown",
                args: decodeJsonString(fn.arguments ?? {}),
              };
            });
          b.add({
            t,
            type: "model.request",
            step: sid,
            key: `m${id}`,
            parentKey: `s${id}`,
            data: { call: respId, model, promptRecorded: false },
          });
          b.add({
            t,
            type: "model.response",
            step: sid,
            parentKey: `m${id}`,
            data: compact({
              call: respId,
              output: compact({
                text: typeof msg.content === "string" ? msg.content : undefined,
                toolCalls: toolCalls.length > 0 ? toolCalls : undefined,
              }),
              finishReason: choice ? str(choice.finish_reason) : undefined,
              usage: usageOf(resp.usage),
              totalCallsInResponse: toNumber(tcm?.total_calls_in_response),
            }),
          });
        }
      }
      const obs = observationsByCause.get(id) ?? [];
      if (action === "finish") {
        output =
          isRecord(args.outputs) && Object.keys(args.outputs).length > 0 ? args.outputs : (args.final_thought ?? args.thought ?? e.message);
      } else if (action === "message") {
        output = args.content ?? e.message;
        b.add({
          t,
          type: "note",
          step: sid,
          parentKey: `s${id}`,
          data: { text: String(args.content ?? e.message ?? ""), role: "assistant" },
        });
      } else if (!NON_TOOL_ACTIONS.has(action)) {
        const callId = firstStr(tcm?.tool_call_id) ?? `call-${id}`;
        b.add({
          t,
          type: "tool.call",
          step: sid,
          key: `t${id}`,
          parentKey: `s${id}`,
          data: compact({
            call: callId,
            tool: firstStr(tcm?.function_name) ?? action,
            args: argsOf(e),
            ...inferEffect(
              firstStr(tcm?.function_name) ?? action,
              argsOf(e),
              action === "edit" || action === "write" ? "write" : undefined,
            ),
            action,
            thought: str(args.thought),
          }),
        });
        const result = obs.find((o) => o.observation !== "null");
        if (result) {
          const rt = isoToNanos(result.timestamp) ?? t;
          const st = resultStatus(result);
          b.add({
            t: rt,
            type: "tool.result",
            step: sid,
            parentKey: `t${id}`,
            after: `t${id}`,
            data: compact({
              call: callId,
              status: st,
              result: result.content ?? null,
              error: st === "ok" ? undefined : str(result.message),
              latencyMs: rt >= t ? Number((rt - t) / 1000n) / 1000 : undefined,
              observation: str(result.observation),
              extras: isRecord(result.extras) ? result.extras : undefined,
            }),
          });
        }
      }
      const endT = obs.reduce((m, o) => {
        const ot = isoToNanos(o.timestamp);
        return ot !== undefined && ot > m ? ot : m;
      }, t);
      b.add({
        t: endT,
        type: "step.end",
        step: sid,
        parentKey: `s${id}`,
        after: `s${id}`,
        data: { status: obs.some((o) => resultStatus(o) !== "ok") ? "error" : "ok" },
      });
      return;
    }
    if (e.observation === "agent_state_changed") {
      const extras = isRecord(e.extras) ? e.extras : {};
      agentState = str(extras.agent_state) ?? agentState;
      b.add({ t, type: "note", data: { text: `agent state: ${agentState ?? "?"}`, eventId: id } });
      if (agentState === "error")
        b.add({ t, type: "error", data: { message: str(e.message) || "agent entered the error state", code: "agent_state_error" } });
      return;
    }
    if (e.observation === "error" && (e.cause === undefined || e.cause === null)) {
      b.add({
        t,
        type: "error",
        data: compact({ message: str(e.content) ?? str(e.message) ?? "error", code: "observation_error", eventId: id }),
      });
    }
  });

  if (agentState === "error") status = "failed";
  else if (agentState === "stopped") status = "cancelled";
  const { min, max } = b.span();
  const startData: Record<string, unknown> = {
    workflow: { name: "openhands" },
    agent: { name: "openhands" },
    tags: ["openhands"],
    source: compact({ format: "openhands", file: opts.fileName, events: events.length }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  Object.assign(startData, opts.start);
  const endData = compact({ status, output, finalAgentState: agentState, ...opts.end });
  return {
    format: "openhands",
    runs: [{ runId, events: b.build({ runId, start: { data: startData, t: min }, end: { data: endData, t: max } }) }],
    warnings,
  };
}
