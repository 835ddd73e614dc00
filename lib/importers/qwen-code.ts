/**
 * Qwen Code session (`~/.qwen/projects/<project>/chats/<sessionId>.jsonl`) → one run
 * `qwen-<sessionId>`. Qwen Code began as a fork of Gemini CLI but records its own format:
 * a tree of `ChatRecord` lines (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`,
 * `version`) whose `message` is a Gemini `Content` (`{role, parts}`), typed `user`,
 * `assistant`, `tool_result` or `system`.
 *
 * - an `assistant` record is a step with one model call: its text parts as text, `thought`
 *   parts as reasoning, `functionCall` parts as tool calls (a `tool.call` each, effect
 *   inferred), `usageMetadata` as usage, `model`;
 * - a `tool_result` record answers its calls by `functionResponse.id` (or
 *   `toolCallResult.callId`): status `error` when `toolCallResult.error` or the response's
 *   `error` is set, or its status is `error`/`cancelled`;
 * - `user` records are inputs (and the next request's messages); `system` records with a
 *   `chat_compression` subtype are notes; the other system subtypes (telemetry, titles,
 *   snapshots, approval modes…) are bookkeeping and left out, counted in one warning.
 * The file records no request time, so model calls carry no latency.
 */
import { JournalBuilder } from "./builder";
import { asArray, compact, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { linesOfText, type JsonLinesFile } from "./lines";
import { contentText, normalizeArgs, type JournalMessage } from "./messages";
import { addModelCall, addStepToolCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

const partsOf = (r: UnknownRecord): UnknownRecord[] => (isRecord(r.message) ? asArray(r.message.parts).filter(isRecord) : []);

function usageOf(u: unknown): Record<string, number> | undefined {
  if (!isRecord(u)) return undefined;
  const out = compact({
    inputTokens: toNumber(u.promptTokenCount),
    outputTokens: toNumber(u.candidatesTokenCount),
    cacheReadTokens: toNumber(u.cachedContentTokenCount),
    reasoningTokens: toNumber(u.thoughtsTokenCount),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

const textOf = (parts: UnknownRecord[], thought: boolean) =>
  parts
    .filter((p) => typeof p.text === "string" && (p.thought === true) === thought)
    .map((p) => String(p.text))
    .join("\n");

export function importQwenCode(text: string, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  return importQwenCodeLines(linesOfText(text, warnings), opts, warnings);
}

/** `importQwenCode` of a file already split into lines (`warnings`: what reading them noticed). */
export function importQwenCodeLines(file: JsonLinesFile, opts: ImportOptions = {}, warnings: string[] = []): ImportResult {
  const lines = file.records;
  const sessionId = firstStr(...lines.map((l) => l.sessionId));
  if (!sessionId) warnings.push("no sessionId in the file: the run id was derived from the content");
  const runId = makeRunId("qwen", sessionId ?? file.contentId());
  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  const open = new Map<string, { sid: string; key: string; name: string }>();
  const openSteps = new Map<string, { failed: boolean; left: number; t: bigint }>();
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  let lastT = 0n;
  let skipped = 0;
  let n = 0;

  const closeStep = (sid: string) => {
    const s = openSteps.get(sid);
    if (!s) return;
    openSteps.delete(sid);
    b.add({ t: s.t, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: s.failed ? "error" : "ok" } });
  };

  for (const r of lines) {
    const t = (lastT = isoToNanos(r.timestamp) ?? lastT);
    const type = str(r.type) ?? "";
    const parts = partsOf(r);
    if (type === "user") {
      const content = textOf(parts, false);
      if (!content) continue;
      pending.push({ role: "user", content });
      if (r.isSidechain !== true) {
        input ??= content;
        b.add({ t, type: "input", data: { source: "user", content } });
      }
      continue;
    }
    if (type === "assistant") {
      const id = String(r.uuid ?? `a${n}`);
      const sid = `qwen-${n++}`;
      const model = firstStr(r.model) ?? "unknown";
      if (model !== "unknown") models[model] = model;
      const textOut = textOf(parts, false);
      const reasoning = textOf(parts, true);
      const calls = parts
        .filter((p) => isRecord(p.functionCall))
        .map((p, j) => {
          const fc = p.functionCall as UnknownRecord;
          return { id: firstStr(fc.id) ?? `${sid}-call-${j}`, name: firstStr(fc.name) ?? "unknown", args: normalizeArgs(fc.args) };
        });
      addModelCall(b, {
        step: sid,
        t,
        name: model,
        stepData: { agent: str(r.agentName) },
        call: id,
        model,
        messages: pending,
        text: textOut,
        reasoning,
        toolCalls: calls,
        response: { usage: usageOf(r.usageMetadata) },
      });
      pending = [];
      const msg: JournalMessage = { role: "assistant", content: textOut };
      if (calls.length > 0) msg.toolCalls = calls;
      pending.push(msg);
      if (textOut && r.isSidechain !== true) output = textOut;
      calls.forEach((c, j) => {
        const key = `t:${sid}:${j}`;
        open.set(c.id, { sid, key, name: c.name });
        addStepToolCall(b, { t, step: sid, key, call: c });
      });
      openSteps.set(sid, { failed: false, left: calls.length, t });
      if (calls.length === 0) closeStep(sid);
      continue;
    }
    if (type === "tool_result") {
      const tr = isRecord(r.toolCallResult) ? r.toolCallResult : {};
      const responses = parts.filter((p) => isRecord(p.functionResponse)).map((p) => p.functionResponse as UnknownRecord);
      const answers = responses.length > 0 ? responses : [{ id: tr.callId }];
      for (const fr of answers) {
        const call = firstStr(fr.id, tr.callId) ?? "";
        const o = open.get(call);
        if (!o) {
          warnings.push(`a tool_result answers ${call || "an unnamed call"}, which no assistant record in the file made`);
          continue;
        }
        open.delete(call);
        const resp = isRecord(fr.response) ? fr.response : {};
        const status = str(tr.status) ?? "";
        const err =
          resp.error !== undefined
            ? contentText(resp.error)
            : tr.error !== undefined && tr.error !== null
              ? contentText(isRecord(tr.error) ? (tr.error.message ?? tr.error) : tr.error)
              : undefined;
        const failed = err !== undefined || status === "error" || status === "cancelled";
        const result = contentText(resp.output ?? resp.error ?? (Object.keys(resp).length > 0 ? resp : tr.resultDisplay));
        pending.push({ role: "tool", content: result, toolCallId: call, name: o.name });
        b.add({
          t,
          type: "tool.result",
          step: o.sid,
          parentKey: o.key,
          after: o.key,
          data: compact({ call, status: failed ? "error" : "ok", result, error: failed ? (err ?? status) : undefined }),
        });
        const s = openSteps.get(o.sid);
        if (s) {
          s.failed ||= failed;
          s.t = t;
          if (--s.left <= 0) closeStep(o.sid);
        }
      }
      continue;
    }
    if (type === "system" && r.subtype === "chat_compression") {
      b.add({ t, type: "note", data: { text: "the conversation was compressed", kind: "compaction" } });
      continue;
    }
    skipped++;
  }
  for (const [call, o] of open) warnings.push(`tool call ${call} (${o.name}) has no result in the file`);
  for (const sid of [...openSteps.keys()]) closeStep(sid);
  if (skipped > 0) warnings.push(`left out ${skipped} bookkeeping record(s) (system telemetry, titles, snapshots, modes)`);

  const first = lines.find((l) => typeof l.cwd === "string" || typeof l.version === "string");
  const startData: Record<string, unknown> = {
    workflow: { name: "qwen-code" },
    agent: compact({ name: "qwen-code", version: str(first?.version) }),
    tags: ["qwen-code"],
    source: compact({
      format: "qwen-code",
      file: opts.fileName,
      sessionId,
      cwd: str(first?.cwd),
      gitBranch: str(first?.gitBranch),
      lines: lines.length,
    }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  const { min, max } = b.span();
  return {
    format: "qwen-code",
    runs: [
      {
        runId,
        events: b.build({ runId, start: { data: startData, t: min }, end: { data: compact({ status: "succeeded", output }), t: max } }),
      },
    ],
    warnings,
  };
}
