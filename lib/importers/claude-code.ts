/**
 * Claude Code session (`~/.claude/projects/<project>/<session>.jsonl`) → one run
 * `claude-<sessionId>`. Each line is an event of the conversation tree (`uuid`,
 * `parentUuid`); assistant lines are Anthropic Messages API objects, and one API response
 * may be split over several lines sharing `message.id`.
 *
 * - every API response is a step (kind `llm`) with one model call: the model, the usage
 *   and stop reason of its last line, its text, `thinking` (as `output.reasoning`) and
 *   `tool_use` blocks; the request carries the messages added since the previous response
 *   of the same conversation (`messagesSince`), so a long session is not quadratic; the
 *   request's time is its `api-request` line's (2.1.3xx writes one as it sends), else the
 *   time of the line it answers;
 * - every `tool_use` is a step (kind `tool`) whose `tool.result` is the `tool_result`
 *   block with its id (status `error` when `is_error`), `toolUseResult` kept as `details`;
 * - sub-agent traffic (`isSidechain: true`) is a step (kind `agent`) under the step of the
 *   `Task` / `Agent` call that started it: the call whose result's `toolUseResult.agentId`
 *   is the sidechain's `agentId`, else the one whose `prompt` is the sidechain's first
 *   message, else the latest not yet answered. 2.1.x writes a sub-agent's lines to a file of
 *   its own (claude-subagents.ts): given with the session (`subagents`), they are read as if
 *   written inline, just before the result of the call that started them; a sub-agent's file
 *   alone is a run of its own, `claude-<sessionId>-agent-<agentId>`, with a warning; a
 *   session whose sub-agents' files are not given says so in a warning; a sub-agent run in
 *   the background (result "Async agent launched", `toolUseResult.isAsync`) keeps its call's
 *   step open until its last line, and the `<task-notification>` that later tells the main
 *   agent it finished is an `input` with source `event`;
 * - user prompts are `input` events, `summary` lines and compaction summaries
 *   (`isCompactSummary`) notes, `system` lines notes;
 * - the bookkeeping lines Claude Code writes beside the conversation (`SKIPPED`: file
 *   history, hook `progress`, queue operations, the last prompt, titles, permission modes,
 *   hook attachments) are left out by name; a line type this importer does not know is left
 *   out too, and named in one warning, never a reason to refuse the file.
 */
import { JournalBuilder, type ProtoEvent } from "./builder";
import { subagentCalls, subagentOf } from "./claude-subagents";
import { inferEffect } from "./effects";
import { asArray, compact, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { linesOfText, type JsonLinesFile } from "./lines";
import { contentText, normalizeMessage, type JournalMessage } from "./messages";
import { latencyMs } from "./nodes";
import type { ImportOptions, ImportResult } from "./types";

interface Response {
  id: string;
  lines: UnknownRecord[];
  /** The line before the response's first one (the request's time). */
  before?: UnknownRecord;
  /** The `api-request` line Claude Code (2.1.3xx) wrote when it sent the request. */
  sent?: UnknownRecord;
  sidechain?: string;
}

function usageOf(u: unknown): Record<string, number> | undefined {
  if (!isRecord(u)) return undefined;
  const out = compact({
    inputTokens: toNumber(u.input_tokens),
    outputTokens: toNumber(u.output_tokens),
    cacheReadTokens: toNumber(u.cache_read_input_tokens),
    cacheCreationTokens: toNumber(u.cache_creation_input_tokens),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

const blocksOf = (line: UnknownRecord): UnknownRecord[] => {
  const m = isRecord(line.message) ? line.message : {};
  return asArray(m.content).filter(isRecord);
};

/** Line types Claude Code (up to 2.1.x) writes that hold nothing of the conversation. */
const SKIPPED = new Set([
  "file-history-snapshot",
  "file-history-delta",
  "progress",
  "queue-operation",
  "last-prompt",
  "custom-title",
  "ai-title",
  "agent-name",
  "permission-mode",
  "attachment",
  "pr-link",
  "tag",
  // 2.1.3xx: request bookkeeping (`api-request` is read for the time a request was sent)
  "api-request",
  "api-request-route",
  "api-request-shape",
  "api-request-blob",
  "atis-latch",
  "tools-used",
  "cost-state",
]);
const READ = new Set(["user", "assistant", "summary", "system"]);

export function importClaudeCode(text: string, opts: ImportOptions = {}, subagents: string[] = []): ImportResult {
  const warnings: string[] = [];
  const files = subagents.map((t) => linesOfText(t, warnings));
  return importClaudeCodeLines(linesOfText(text, warnings), opts, warnings, files);
}

/** The session's lines with each sub-agent file's lines put just before the result of the call that started it. */
function withSubagents(
  main: UnknownRecord[],
  subagents: JsonLinesFile[],
  warnings: string[],
): { lines: UnknownRecord[]; agentOf: Map<UnknownRecord, string> } {
  const agentOf = new Map<UnknownRecord, string>();
  if (subagents.length === 0) return { lines: main, agentOf };
  const calls = subagentCalls(main);
  const before = new Map<number, UnknownRecord[]>();
  const tail: UnknownRecord[] = [];
  for (const f of subagents) {
    const agentId = subagentOf(f.records)?.agentId;
    if (agentId === undefined) {
      warnings.push("a file given as a sub-agent's transcript is not one (no agentId on its sidechain lines): left out");
      continue;
    }
    for (const l of f.records) agentOf.set(l, agentId);
    const call = calls.get(agentId);
    const at = call === undefined ? -1 : main.findIndex((l) => blocksOf(l).some((x) => x.type === "tool_result" && x.tool_use_id === call));
    if (at < 0) {
      warnings.push(`sub-agent ${agentId}: no Agent call in the session names it; its calls are put at the end`);
      tail.push(...f.records);
    } else before.set(at, [...(before.get(at) ?? []), ...f.records]);
  }
  return { lines: [...main.flatMap((l, i) => [...(before.get(i) ?? []), l]), ...tail], agentOf };
}

/** `importClaudeCode` of a file already split into lines (`warnings`: what reading them noticed). */
export function importClaudeCodeLines(
  file: JsonLinesFile,
  opts: ImportOptions = {},
  warnings: string[] = [],
  subagents: JsonLinesFile[] = [],
): ImportResult {
  const alone = subagents.length === 0 ? subagentOf(file.records) : undefined;
  const { lines, agentOf } = withSubagents(file.records, subagents, warnings);
  const calls = subagentCalls(lines);
  const unknownTypes = new Map<string, number>();
  for (const l of lines) {
    const type = typeof l.type === "string" ? l.type : "(none)";
    if (!READ.has(type) && !SKIPPED.has(type)) unknownTypes.set(type, (unknownTypes.get(type) ?? 0) + 1);
  }
  if (unknownTypes.size > 0) {
    const named = [...unknownTypes].slice(0, 5).map(([t, n]) => `${n} line(s) of type ${JSON.stringify(t.slice(0, 40))}`);
    const more = unknownTypes.size > 5 ? ` and ${unknownTypes.size - 5} more type(s)` : "";
    warnings.push(`left out ${named.join(", ")}${more}: not a type this importer reads`);
  }
  const sessionId = firstStr(...lines.map((l) => l.sessionId));
  if (!sessionId) warnings.push("no sessionId in the file: the run id was derived from the content");
  if (alone)
    warnings.push(
      `this is the transcript of sub-agent ${alone.agentId} without its parent session${sessionId ? ` ${sessionId}` : ""}: imported as a run of its own; import the project folder (or a zip of it) to see it under the call that started it`,
    );
  const seen = new Set([...lines].map((l) => l.agentId).filter((a) => typeof a === "string"));
  const missing = [...calls.keys()].filter((a) => !seen.has(a));
  if (missing.length > 0)
    warnings.push(
      `the session started ${missing.length} sub-agent(s) whose transcripts are not in the import (${missing.map((a) => `subagents/agent-${a}.jsonl`).join(", ")}): their calls are missing; import the project folder (or a zip of it) to include them`,
    );
  const runId = makeRunId("claude", alone ? `${sessionId ?? file.contentId()}-agent-${alone.agentId}` : (sessionId ?? file.contentId()));
  const byUuid = new Map<string, UnknownRecord>();
  for (const l of lines) if (typeof l.uuid === "string") byUuid.set(l.uuid, l);

  // times: a line without one (summaries) takes the time of the line before
  let lastT = 0n;
  const tOf = new Map<UnknownRecord, bigint>();
  for (const l of lines) {
    const t = isoToNanos(l.timestamp);
    if (t !== undefined && lastT === 0n) lastT = t;
    tOf.set(l, (lastT = t ?? lastT));
  }
  for (const l of lines) if (tOf.get(l) === 0n) tOf.set(l, lastT);
  const time = (l: UnknownRecord | undefined) => (l ? (tOf.get(l) ?? 0n) : 0n);

  // sidechain roots: a sidechain line whose parent is not a sidechain line
  const sidechainOf = new Map<UnknownRecord, string>();
  for (const l of lines) {
    const agent = agentOf.get(l);
    if (agent !== undefined) {
      sidechainOf.set(l, `agent-${agent}`);
      continue;
    }
    if (l.isSidechain !== true || alone) continue;
    const p = typeof l.parentUuid === "string" ? byUuid.get(l.parentUuid) : undefined;
    sidechainOf.set(l, p && p.isSidechain === true ? (sidechainOf.get(p) ?? String(l.uuid)) : String(l.uuid ?? `sc-${sidechainOf.size}`));
  }

  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  const toolStep = new Map<string, { step: string; key: string; name: string; prompt?: string; answered: boolean }>();
  const sidechains = new Map<string, { first: UnknownRecord; last: UnknownRecord; parentKey?: string }>();
  const responses: Response[] = [];
  const responseOf = new Map<string, Response>();
  // messages added since the last model request, per conversation (main or a sidechain)
  const pendingMessages = new Map<string, JournalMessage[]>();
  const lastCall = new Map<string, string>();
  let input: unknown;
  let output: string | undefined;

  // the api-request line last written, per conversation (a sub-agent's file writes its own)
  const sentBy = new Map<string, UnknownRecord>();
  for (const l of lines) {
    const sc = sidechainOf.get(l);
    if (l.type === "api-request") sentBy.set(sc ?? "", l);
    if (sc !== undefined) {
      const s = sidechains.get(sc);
      if (s) s.last = l;
      else sidechains.set(sc, { first: l, last: l });
    }
    if (l.type === "assistant" && isRecord(l.message)) {
      const id = firstStr(l.message.id, l.requestId, l.uuid) ?? `resp-${responses.length}`;
      let r = responseOf.get(id);
      if (!r) {
        const parent = typeof l.parentUuid === "string" ? byUuid.get(l.parentUuid) : undefined;
        r = { id, lines: [], before: parent, sidechain: sc, sent: sentBy.get(sc ?? "") };
        sentBy.delete(sc ?? "");
        responseOf.set(id, r);
        responses.push(r);
      }
      r.lines.push(l);
    }
  }

  const conv = (sc: string | undefined) => sc ?? "";
  const scopeKey = (sc: string | undefined) => (sc !== undefined ? `sc:${sc}` : undefined);
  const emitted = new Set<Response>();

  const emitResponse = (r: Response) => {
    emitted.add(r);
    const first = r.lines[0];
    const last = r.lines[r.lines.length - 1];
    const msg = isRecord(last.message) ? last.message : {};
    const model = firstStr(...r.lines.map((l) => (isRecord(l.message) ? l.message.model : undefined))) ?? "unknown";
    if (model !== "<synthetic>") models[model] = model;
    const blocks = r.lines.flatMap(blocksOf);
    const text = blocks
      .filter((x) => x.type === "text")
      .map((x) => String(x.text ?? ""))
      .join("\n");
    const reasoning = blocks
      .filter((x) => x.type === "thinking")
      .map((x) => String(x.thinking ?? ""))
      .join("\n");
    const uses = blocks.filter((x) => x.type === "tool_use");
    // the request left when Claude Code says it sent it, else after the line it answers
    const tStart = r.sent ? time(r.sent) : r.before ? time(r.before) : time(first);
    const tEnd = time(last);
    const sid = `resp-${r.id}`;
    const scope = scopeKey(r.sidechain);
    const c = conv(r.sidechain);
    b.add({
      t: tStart,
      type: "step.start",
      step: sid,
      key: `s:${sid}`,
      parentKey: scope,
      after: scope,
      data: { name: model, kind: "llm" },
    });
    b.add({
      t: tStart,
      type: "model.request",
      step: sid,
      key: `m:${sid}`,
      parentKey: `s:${sid}`,
      after: `s:${sid}`,
      data: compact({
        call: r.id,
        model,
        messages: pendingMessages.get(c) ?? [],
        messagesSince: lastCall.get(c),
        requestId: str(first.requestId),
      }),
    });
    pendingMessages.set(c, []);
    lastCall.set(c, r.id);
    b.add({
      t: tEnd,
      type: "model.response",
      step: sid,
      parentKey: `m:${sid}`,
      after: `m:${sid}`,
      data: compact({
        call: r.id,
        output: compact({
          text: text || undefined,
          reasoning: reasoning || undefined,
          toolCalls:
            uses.length > 0
              ? uses.map((u) => ({ id: String(u.id), name: String(u.name ?? "unknown"), args: isRecord(u.input) ? u.input : {} }))
              : undefined,
        }),
        finishReason: str(msg.stop_reason),
        usage: usageOf(msg.usage),
        latencyMs: latencyMs(tStart, tEnd),
      }),
    });
    b.add({ t: tEnd, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: "ok" } });
    if (!r.sidechain && text) output = text;
    const assistantMsg: JournalMessage = { role: "assistant", content: text };
    if (uses.length > 0)
      assistantMsg.toolCalls = uses.map((u) => ({
        id: String(u.id),
        name: String(u.name ?? "unknown"),
        args: isRecord(u.input) ? u.input : {},
      }));
    if (reasoning) assistantMsg.reasoning = reasoning;
    pendingMessages.set(c, [assistantMsg]);

    for (const u of uses) {
      const line = r.lines.find((l) => blocksOf(l).includes(u)) ?? last;
      const call = String(u.id);
      const name = String(u.name ?? "unknown");
      const tid = `tool-${call}`;
      const args = isRecord(u.input) ? u.input : {};
      toolStep.set(call, { step: tid, key: `s:${tid}`, name, prompt: str(args.prompt), answered: false });
      b.add({
        t: time(line),
        type: "step.start",
        step: tid,
        key: `s:${tid}`,
        parentKey: scope,
        after: `m:${sid}`,
        data: { name, kind: "tool" },
      });
      b.add({
        t: time(line),
        type: "tool.call",
        step: tid,
        key: `t:${call}`,
        parentKey: `s:${tid}`,
        after: `s:${tid}`,
        data: { call, tool: name, args, ...inferEffect(name, args) },
      });
    }
  };

  const toolResult = (l: UnknownRecord, block: UnknownRecord) => {
    const call = String(block.tool_use_id ?? "");
    const ts = toolStep.get(call);
    const t = time(l);
    const isError = block.is_error === true;
    const content = contentText(block.content);
    if (!ts) {
      warnings.push(`a tool_result answers ${call || "an unnamed call"}, which no tool_use in the file made`);
      return;
    }
    ts.answered = true;
    b.add({
      t,
      type: "tool.result",
      step: ts.step,
      parentKey: `t:${call}`,
      after: `t:${call}`,
      data: compact({
        call,
        status: isError ? "error" : "ok",
        result: content,
        error: isError ? content : undefined,
        details: l.toolUseResult,
      }),
    });
    // a sub-agent in the background (2.1.x's default) answers at once ("Async agent
    // launched"): the call's step lasts until the sub-agent's last line
    const launched = isRecord(l.toolUseResult) ? l.toolUseResult : {};
    const background =
      (launched.isAsync === true || launched.status === "async_launched") && typeof launched.agentId === "string"
        ? sidechains.get(`agent-${launched.agentId}`)
        : undefined;
    const end = background && time(background.last) > t ? time(background.last) : t;
    b.add({ t: end, type: "step.end", step: ts.step, parentKey: ts.key, after: `t:${call}`, data: { status: isError ? "error" : "ok" } });
  };

  const visit = (l: UnknownRecord) => {
    const sc = sidechainOf.get(l);
    const c = conv(sc);
    const scope = scopeKey(sc);
    if (sc !== undefined && sidechains.get(sc)?.first === l) {
      // the Task call that started this sub-agent: its prompt, else the latest unanswered Task
      const prompt = isRecord(l.message) ? contentText(l.message.content) : undefined;
      const tasks = [...toolStep.values()].filter((s) => s.name === "Task" || s.name === "Agent");
      const byAgent = typeof l.agentId === "string" ? calls.get(l.agentId) : undefined;
      const task =
        (byAgent !== undefined ? toolStep.get(byAgent) : undefined) ??
        tasks.find((s) => s.prompt !== undefined && s.prompt === prompt) ??
        [...tasks].reverse().find((s) => !s.answered);
      const parentKey = task?.key;
      b.add({
        t: time(l),
        type: "step.start",
        step: `sidechain-${sc}`,
        key: `sc:${sc}`,
        parentKey,
        after: parentKey,
        data: { name: "sub-agent", kind: "agent", sidechain: true },
      });
    }
    if (l.type === "assistant") {
      const id = firstStr(isRecord(l.message) ? l.message.id : undefined, l.requestId, l.uuid);
      const r = id !== undefined ? responseOf.get(id) : undefined;
      if (r && !emitted.has(r) && r.lines[r.lines.length - 1] === l) emitResponse(r);
      return;
    }
    if (l.type === "user" && isRecord(l.message)) {
      const blocks = blocksOf(l);
      for (const block of blocks.filter((x) => x.type === "tool_result")) toolResult(l, block);
      const msgs = normalizeMessage(l.message).filter((m) => m.role !== "tool");
      const results = normalizeMessage(l.message).filter((m) => m.role === "tool");
      pendingMessages.set(c, [...(pendingMessages.get(c) ?? []), ...msgs, ...results]);
      const prompt = msgs.map((m) => m.content).join("\n");
      if (l.isCompactSummary === true) {
        b.add({ t: time(l), type: "note", data: { text: prompt, kind: "compaction" }, parentKey: scope, after: scope });
        return;
      }
      if (msgs.length > 0 && prompt !== "" && sc === undefined) {
        const meta = l.isMeta === true;
        // a background sub-agent's `<task-notification>`: the CLI tells the agent it finished
        const notice = isRecord(l.origin) && l.origin.kind === "task-notification";
        if (!meta && !notice) input ??= prompt;
        const source = notice ? "event" : meta ? "system" : "user";
        const ev: ProtoEvent = { t: time(l), type: "input", data: { source, content: prompt } };
        b.add(ev);
      }
      return;
    }
    if (l.type === "summary" && typeof l.summary === "string") {
      b.add({ t: time(l), type: "note", data: { text: l.summary, kind: "summary" }, parentKey: scope, after: scope });
      return;
    }
    if (l.type === "system") {
      const content = firstStr(l.content, l.subtype);
      if (content)
        b.add({ t: time(l), type: "note", data: compact({ text: content, kind: "system", durationMs: toNumber(l.durationMs) }) });
    }
  };
  for (const l of lines) {
    visit(l);
    // a sub-agent's step ends after its last line's events (added last, so at the same time
    // they sort before it)
    const sc = sidechainOf.get(l);
    if (sc !== undefined && sidechains.get(sc)?.last === l) {
      b.add({ t: time(l), type: "step.end", step: `sidechain-${sc}`, parentKey: `sc:${sc}`, after: `sc:${sc}`, data: { status: "ok" } });
    }
  }
  for (const [call, s] of toolStep) {
    if (s.answered) continue;
    warnings.push(`tool call ${call} (${s.name}) has no result in the file`);
    b.add({ t: lastT, type: "step.end", step: s.step, parentKey: s.key, after: `t:${call}`, data: { status: "ok" } });
  }

  const { min, max } = b.span();
  const first = lines.find((l) => typeof l.cwd === "string" || typeof l.version === "string");
  const startData: Record<string, unknown> = {
    workflow: { name: "claude-code" },
    agent: compact({ name: "claude-code", version: str(first?.version) }),
    tags: ["claude-code"],
    source: compact({
      format: "claude-code",
      file: opts.fileName,
      sessionId,
      cwd: str(first?.cwd),
      gitBranch: str(first?.gitBranch),
      lines: lines.length,
      subagents: subagents.length > 0 ? subagents.length : undefined,
      agentId: alone?.agentId,
    }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  return {
    format: "claude-code",
    runs: [
      {
        runId,
        events: b.build({ runId, start: { data: startData, t: min }, end: { data: compact({ status: "succeeded", output }), t: max } }),
      },
    ],
    warnings,
  };
}
