/**
 * Codex CLI rollout (`~/.codex/sessions/…/rollout-*.jsonl`) → one run `codex-<session id>`.
 * Lines are `{timestamp, type, payload}`; the model's side is OpenAI Responses items.
 * Both shapes seen are read: 0.5x (`shell` tool, output JSON `{output, metadata.exit_code}`,
 * a `turn_context` per request) and 0.12x (`exec_command`/`write_stdin`, `exec_command_end`
 * events with the exit code, `task_started`/`task_complete` around each task).
 *
 * - A model call is a run of consecutive assistant items (reasoning, assistant message,
 *   function / custom tool / web search calls); its usage is the `token_count` after it
 *   (`last_token_usage`; 0.5x writes each twice, the repeat is skipped). The request
 *   carries the items since the previous call as messages (`messagesSince`).
 * - Each tool call is a step; its result is the `function_call_output` with its `call_id`,
 *   an error when its command exited non-zero (`exec_command_end`, or 0.5x metadata).
 *   A `write_stdin` poll is not charged with the exit code of the process it polls.
 * - A 0.12x task is a step holding its calls; `user_message` events are the inputs.
 * - Lost: encrypted reasoning, rate limits, ghost snapshots, duplicate `agent_message` text.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import {
  asArray,
  compact,
  decodeJsonString,
  firstStr,
  isRecord,
  isoToNanos,
  makeRunId,
  str,
  toNumber,
  type UnknownRecord,
} from "./json-utils";
import { linesOfText, type JsonLinesFile } from "./lines";
import { contentText, normalizeArgs, normalizeMessage, type JournalMessage, type MessageToolCall } from "./messages";
import { latencyMs } from "./nodes";
import type { ImportOptions, ImportResult } from "./types";

const ASSISTANT_ITEMS = new Set(["reasoning", "function_call", "custom_tool_call", "web_search_call", "local_shell_call"]);

const isAssistantItem = (p: UnknownRecord) => ASSISTANT_ITEMS.has(String(p.type)) || (p.type === "message" && p.role === "assistant");

function usageOf(info: unknown): Record<string, number> | undefined {
  if (!isRecord(info) || !isRecord(info.last_token_usage)) return undefined;
  const u = info.last_token_usage;
  const out = compact({
    inputTokens: toNumber(u.input_tokens),
    outputTokens: toNumber(u.output_tokens),
    cacheReadTokens: toNumber(u.cached_input_tokens),
    reasoningTokens: toNumber(u.reasoning_output_tokens),
    totalTokens: toNumber(u.total_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

interface Group {
  n: number;
  items: UnknownRecord[];
  t0: bigint;
  t1: bigint;
  usage?: Record<string, number>;
  model: string;
  messages: JournalMessage[];
  since?: string;
  scope?: string;
}

export function importCodex(text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  return importCodexLines(linesOfText(text, warnings), opts, warnings);
}

/** `importCodex` of a file already split into lines (`warnings`: what reading them noticed). */
export function importCodexLines(file: JsonLinesFile, opts: ImportOptions = {}, warnings: string[] = []): ImportResult {
  const lines = file.records;
  const meta = lines.find((l) => l.type === "session_meta");
  const m = meta && isRecord(meta.payload) ? meta.payload : {};
  const sessionId = firstStr(m.id);
  if (!sessionId) warnings.push("no session_meta id: the run id was derived from the content");
  const runId = makeRunId("codex", sessionId ?? file.contentId());

  // what the events say about each call: exit codes and patch outcomes
  const execEnd = new Map<string, UnknownRecord>();
  const patchEnd = new Map<string, UnknownRecord>();
  for (const l of lines) {
    const p = isRecord(l.payload) ? l.payload : {};
    if (l.type !== "event_msg" || typeof p.call_id !== "string") continue;
    if (p.type === "exec_command_end") execEnd.set(p.call_id, p);
    if (p.type === "patch_apply_end") patchEnd.set(p.call_id, p);
  }

  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let model = "unknown";
  let params: Record<string, unknown> | undefined;
  let lastT = isoToNanos(meta?.timestamp) ?? 0n;
  let group: Group | undefined;
  let groups = 0;
  let lastCall: string | undefined;
  let pending: JournalMessage[] = [];
  const base = isRecord(m.base_instructions) ? str(m.base_instructions.text) : str(m.instructions);
  if (base) pending.push({ role: "system", content: base });
  const calls = new Map<string, { step: string; tool: string; t: bigint; group: string }>();
  let lastUsageTotal: string | undefined;
  // the tool call each assistant item asked for, as the response lists them
  const requested = new Map<UnknownRecord, MessageToolCall>();
  let task: { id: string; key: string } | undefined;
  let input: unknown;
  let output: string | undefined;

  const closeGroup = () => {
    const g = group;
    if (!g) return;
    group = undefined;
    const sid = `model-${g.n}`;
    const call = `m${g.n}`;
    const text = g.items
      .filter((p) => p.type === "message")
      .map((p) => contentText(p.content))
      .join("\n");
    const reasoning = g.items
      .filter((p) => p.type === "reasoning")
      .flatMap((p) => asArray(p.summary).map((s) => (isRecord(s) ? String(s.text ?? "") : String(s))))
      .filter(Boolean)
      .join("\n");
    const encrypted = g.items.filter((p) => p.type === "reasoning" && typeof p.encrypted_content === "string").length;
    const toolCalls = g.items.flatMap((p) => {
      const c = requested.get(p);
      return c ? [c] : [];
    });
    b.add({
      t: g.t0,
      type: "step.start",
      step: sid,
      key: `s:${sid}`,
      parentKey: g.scope,
      after: g.scope,
      data: { name: g.model, kind: "llm" },
    });
    b.add({
      t: g.t0,
      type: "model.request",
      step: sid,
      key: `m:${sid}`,
      parentKey: `s:${sid}`,
      after: `s:${sid}`,
      data: compact({ call, model: g.model, params, messages: g.messages, messagesSince: g.since }),
    });
    b.add({
      t: g.t1,
      type: "model.response",
      step: sid,
      key: `r:${sid}`,
      parentKey: `m:${sid}`,
      after: `m:${sid}`,
      data: compact({
        call,
        output: compact({
          text: text || undefined,
          reasoning: reasoning || undefined,
          toolCalls: toolCalls.length > 0 ? toolCalls : undefined,
        }),
        usage: g.usage,
        // no latency: a rollout stamps the items as they are written, never when the request
        // was sent, so the span between them is not the model's time
        encryptedReasoning: encrypted > 0 ? encrypted : undefined,
      }),
    });
    b.add({ t: g.t1, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `m:${sid}`, data: { status: "ok" } });
    if (text) output = text;
    lastCall = call;
  };

  for (const l of lines) {
    const t = isoToNanos(l.timestamp) ?? lastT;
    const p = isRecord(l.payload) ? l.payload : {};
    if (l.type === "turn_context") {
      model = firstStr(p.model) ?? model;
      params = compact({
        effort: str(p.effort),
        approvalPolicy: str(p.approval_policy),
        sandboxPolicy: p.sandbox_policy,
        summary: str(p.summary),
      });
    } else if (l.type === "event_msg") {
      if (p.type === "token_count" && group && isRecord(p.info)) {
        const total = JSON.stringify(p.info.total_token_usage ?? null);
        if (total !== lastUsageTotal) {
          group.usage ??= usageOf(p.info);
          group.t1 = t;
          lastUsageTotal = total;
        }
      } else if (p.type === "user_message") {
        closeGroup();
        const content = str(p.message) ?? "";
        input ??= content;
        b.add({ t, type: "input", data: { source: "user", content }, parentKey: task?.key, after: task?.key });
      } else if (p.type === "task_started") {
        closeGroup();
        const id = firstStr(p.turn_id) ?? `task-${t}`;
        task = { id, key: `s:task-${id}` };
        b.add({ t, type: "step.start", step: `task-${id}`, key: task.key, data: { name: "task", kind: "agent", turnId: id } });
      } else if (p.type === "task_complete" || p.type === "turn_aborted") {
        closeGroup();
        const id = firstStr(p.turn_id) ?? task?.id;
        if (task && id === task.id) {
          b.add({
            t,
            type: "step.end",
            step: `task-${id}`,
            parentKey: task.key,
            after: task.key,
            data: { status: p.type === "turn_aborted" ? "error" : "ok" },
          });
          task = undefined;
        }
      }
    } else if (l.type === "response_item") {
      if (p.type === "ghost_snapshot") {
        // a snapshot of the worktree, not part of the conversation
      } else if (isAssistantItem(p)) {
        if (!group) {
          groups++;
          group = { n: groups, items: [], t0: lastT, t1: t, model, messages: pending, since: lastCall, scope: task?.key };
          pending = [];
          if (model !== "unknown") models[model] = model;
        }
        group.items.push(p);
        group.t1 = t;
        if (p.type === "function_call" || p.type === "custom_tool_call" || p.type === "web_search_call" || p.type === "local_shell_call") {
          const nm = normalizeMessage(p)[0]?.toolCalls?.[0];
          const call = firstStr(p.call_id, p.id) ?? `ws-${groups}-${group.items.length}`;
          const tool = p.type === "web_search_call" ? "web_search" : (nm?.name ?? firstStr(p.name) ?? "unknown");
          const args = p.type === "web_search_call" ? normalizeArgs(p.action) : (nm?.args ?? {});
          const sid = `tool-${call}`;
          requested.set(p, { id: call, name: tool, args });
          // the call follows the response that asked for it, though its line comes before the usage
          const mkey = `r:model-${group.n}`;
          b.add({
            t,
            type: "step.start",
            step: sid,
            key: `s:${sid}`,
            parentKey: task?.key,
            after: mkey,
            data: { name: tool, kind: "tool" },
          });
          b.add({
            t,
            type: "tool.call",
            step: sid,
            key: `t:${call}`,
            parentKey: `s:${sid}`,
            after: `s:${sid}`,
            data: { call, tool, args, ...inferEffect(tool, args) },
          });
          calls.set(call, { step: sid, tool, t, group: mkey });
          if (p.type === "web_search_call") {
            b.add({
              t,
              type: "tool.result",
              step: sid,
              parentKey: `t:${call}`,
              after: `t:${call}`,
              data: { call, status: p.status === "failed" ? "error" : "ok" },
            });
            b.add({
              t,
              type: "step.end",
              step: sid,
              parentKey: `s:${sid}`,
              after: `t:${call}`,
              data: { status: p.status === "failed" ? "error" : "ok" },
            });
            calls.delete(call);
          }
        }
      } else {
        closeGroup();
        pending.push(...normalizeMessage(p));
        if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
          const call = String(p.call_id ?? "");
          const c = calls.get(call);
          if (!c) warnings.push(`an output answers call ${call || "(no id)"}, which no call in the file made`);
          else {
            calls.delete(call);
            const decoded = decodeJsonString(p.output);
            const metadata = isRecord(decoded) && isRecord(decoded.metadata) ? decoded.metadata : undefined;
            const end = execEnd.get(call);
            const patch = patchEnd.get(call);
            const exit = toNumber(end?.exit_code) ?? toNumber(metadata?.exit_code);
            const failed = (exit !== undefined && exit !== 0) || patch?.success === false;
            const result = isRecord(decoded) && "output" in decoded ? decoded.output : p.output;
            const durationS = toNumber(metadata?.duration_seconds);
            b.add({
              t,
              type: "tool.result",
              step: c.step,
              parentKey: `t:${call}`,
              after: `t:${call}`,
              data: compact({
                call,
                status: failed ? "error" : "ok",
                result: result ?? null,
                error: failed ? (exit !== undefined ? `exit code ${exit}` : str(patch?.stderr) || "the patch failed") : undefined,
                exitCode: exit,
                latencyMs: durationS !== undefined ? Math.round(durationS * 1000) : latencyMs(c.t, t),
              }),
            });
            b.add({
              t,
              type: "step.end",
              step: c.step,
              parentKey: `s:${c.step}`,
              after: `t:${call}`,
              data: { status: failed ? "error" : "ok" },
            });
          }
        }
      }
    }
    lastT = t;
  }
  closeGroup();
  for (const [call, c] of calls) {
    warnings.push(`tool call ${call} (${c.tool}) has no output in the file`);
    b.add({ t: lastT, type: "step.end", step: c.step, parentKey: `s:${c.step}`, after: `t:${call}`, data: { status: "ok" } });
  }
  if (task) b.add({ t: lastT, type: "step.end", step: `task-${task.id}`, parentKey: task.key, after: task.key, data: { status: "ok" } });

  const { min, max } = b.span();
  const git = isRecord(m.git) ? m.git : undefined;
  const startData: Record<string, unknown> = {
    workflow: { name: "codex" },
    agent: compact({ name: firstStr(m.originator) ?? "codex", version: str(m.cli_version) }),
    tags: ["codex"],
    source: compact({
      format: "codex",
      file: opts.fileName,
      sessionId,
      cwd: str(m.cwd),
      provider: str(m.model_provider),
      git,
      source: m.source,
    }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  return {
    format: "codex",
    runs: [
      {
        runId,
        events: b.build({ runId, start: { data: startData, t: min }, end: { data: compact({ status: "succeeded", output }), t: max } }),
      },
    ],
    warnings,
  };
}
