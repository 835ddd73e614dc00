/**
 * Gemini CLI chat recording (`~/.gemini/tmp/<projectHash>/chats/session-*.json` or `.jsonl`)
 * → one run `gemini-<sessionId>`.
 *
 * Two shapes:
 * - legacy `.json`: one `ConversationRecord` `{sessionId, projectHash, startTime, messages}`;
 * - `.jsonl`, an upsert log (Gemini CLI 0.61 checked): a metadata line `{sessionId,
 *   projectHash, …}`, then message records by `id` (a `gemini` message is written again once
 *   its tool calls have results: the last copy wins, in the place of the first), `{"$set":
 *   {…}}` metadata patches, and `{"$rewindTo": id}` (that message and every later one
 *   dropped), applied in order. A `$set.messages` is the context the model is given from
 *   there on (at session start the session context, after a compression its summary):
 *   Gemini CLI resumes from it, but it does not erase what the log recorded before, so it
 *   is kept as the next request's messages and the recorded messages stay.
 *
 * Mapping: a `user` message is an `input` (and the next model request's messages); a
 * `gemini` message is a step with one model call (its `content` as text, `thoughts` as
 * reasoning, `tokens` as usage, `model`) and a tool call per `toolCalls` entry whose result
 * is the entry's `result` (the `functionResponse` parts); status `error` or `cancelled`
 * fails the call, `awaiting_approval` is an `approval.request` with no decision. `info`,
 * `warning` messages are notes, `error` messages errors. The file records no request time,
 * so model calls carry no latency.
 */
import { JournalBuilder, type ProtoEvent } from "./builder";
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { linesOfText, type JsonLinesFile } from "./lines";
import { contentText, normalizeArgs, type JournalMessage } from "./messages";
import { addModelCall, addStepToolCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

/** The conversation a Gemini CLI file holds once its records are applied. */
export interface GeminiConversation {
  meta: UnknownRecord;
  /** Message records, and `{ $context: messages }` where a `$set.messages` gave the model a new context. */
  messages: UnknownRecord[];
}

/** Folds a `.jsonl` recording's records, in order (see the file comment). */
export function foldGeminiRecords(records: UnknownRecord[]): GeminiConversation {
  let meta: UnknownRecord = {};
  const entries = new Map<string, UnknownRecord>();
  let contexts = 0;
  for (const r of records) {
    if (typeof r.$rewindTo === "string") {
      const ids = [...entries.keys()];
      const at = ids.indexOf(r.$rewindTo);
      for (const id of at < 0 ? ids : ids.slice(at)) entries.delete(id);
    } else if (typeof r.id === "string") {
      entries.set(r.id, r);
    } else if (isRecord(r.$set)) {
      const { messages, ...rest } = r.$set;
      meta = { ...meta, ...rest };
      const context = asArray(messages).filter(isRecord);
      if (context.length > 0) entries.set(`$context-${contexts++}`, { $context: context });
    } else if (typeof r.sessionId === "string") {
      meta = { ...meta, ...r };
    }
  }
  return { meta, messages: [...entries.values()] };
}

/** Text of a Gemini `PartListUnion` (a string, a part, or parts), thought parts left out. */
function partsText(v: unknown): string {
  if (typeof v === "string") return v;
  const parts = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return parts
    .filter((p) => !(isRecord(p) && p.thought === true))
    .map((p) => (typeof p === "string" ? p : isRecord(p) && typeof p.text === "string" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** A tool call's result: the `functionResponse` parts' `response.output` (or `.error`), else text. */
function resultOf(v: unknown): { text: string; error?: string } {
  const parts = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  const out: string[] = [];
  let error: string | undefined;
  for (const p of parts) {
    const fr = isRecord(p) && isRecord(p.functionResponse) ? p.functionResponse : undefined;
    if (fr && isRecord(fr.response)) {
      if (fr.response.error !== undefined) error = contentText(fr.response.error);
      out.push(contentText(fr.response.output ?? fr.response.error ?? fr.response));
    } else if (isRecord(p) && typeof p.text === "string") out.push(p.text);
    else if (typeof p === "string") out.push(p);
  }
  return { text: out.join("\n"), error };
}

function usageOf(t: unknown): Record<string, number> | undefined {
  if (!isRecord(t)) return undefined;
  const out = compact({
    inputTokens: toNumber(t.input),
    outputTokens: toNumber(t.output),
    cacheReadTokens: toNumber(t.cached),
    reasoningTokens: toNumber(t.thoughts),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

const isToolResponse = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((p) => isRecord(p) && isRecord(p.functionResponse));

const FAILED = new Set(["error", "cancelled"]);

/** Converts a Gemini CLI recording, `.json` (`value` parsed) or `.jsonl` (`value` undefined). */
export function importGeminiCli(text: string, value: unknown, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  if (isRecord(value)) {
    const conv = { meta: value, messages: asArray(value.messages).filter(isRecord) };
    return importConversation(conv, () => contentId(text), opts, warnings);
  }
  return importGeminiCliLines(linesOfText(text, warnings), opts, warnings);
}

/** A `.jsonl` recording already split into lines (`warnings`: what reading them noticed). */
export function importGeminiCliLines(file: JsonLinesFile, opts: ImportOptions = {}, warnings: string[] = []): ImportResult {
  return importConversation(foldGeminiRecords(file.records), () => file.contentId(), opts, warnings);
}

function importConversation(conv: GeminiConversation, idOfContent: () => string, opts: ImportOptions, warnings: string[]): ImportResult {
  const sessionId = str(conv.meta.sessionId);
  if (!sessionId) warnings.push("no sessionId in the file: the run id was derived from the content");
  const runId = makeRunId("gemini", sessionId ?? idOfContent());
  const start = isoToNanos(conv.meta.startTime);
  let lastT = start ?? 0n;

  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let pending: JournalMessage[] = [];
  let input: unknown;
  let output: string | undefined;
  conv.messages.forEach((m, i) => {
    const t = (lastT = isoToNanos(m.timestamp) ?? lastT);
    const type = str(m.type) ?? "";
    if (Array.isArray(m.$context)) {
      // the model's context from here on: the next request's messages
      pending = m.$context
        .filter(isRecord)
        .map((c) => ({ role: c.type === "gemini" ? "assistant" : "user", content: partsText(c.content) }));
      return;
    }
    if (type === "user") {
      // the history's copy of tool results (functionResponse parts): already read from the call
      if (isToolResponse(m.content)) return;
      const content = partsText(m.content);
      pending.push({ role: "user", content });
      input ??= content;
      b.add({ t, type: "input", data: { source: "user", content } });
      return;
    }
    if (type === "info" || type === "warning") {
      b.add({ t, type: "note", data: { text: partsText(m.content), level: type } });
      return;
    }
    if (type === "error") {
      b.add({ t, type: "error", data: { message: partsText(m.content) || "error" } });
      return;
    }
    if (type !== "gemini") {
      warnings.push(`message ${String(m.id ?? i)} has type ${JSON.stringify(type.slice(0, 40))}, which this importer does not read`);
      return;
    }
    const id = String(m.id ?? `m${i}`);
    const sid = `gemini-${id}`;
    const model = firstStr(m.model) ?? "unknown";
    if (model !== "unknown") models[model] = model;
    const textOut = partsText(m.content);
    const reasoning = asArray(m.thoughts)
      .filter(isRecord)
      .map((th) => [str(th.subject), str(th.description)].filter(Boolean).join(": "))
      .filter(Boolean)
      .join("\n");
    const calls = asArray(m.toolCalls).filter(isRecord);
    const toolCalls = calls.map((c, j) => ({
      id: firstStr(c.id) ?? `${sid}-call-${j}`,
      name: firstStr(c.name) ?? "unknown",
      args: normalizeArgs(c.args),
    }));
    addModelCall(b, {
      step: sid,
      t,
      name: model,
      call: id,
      model,
      messages: pending,
      text: textOut,
      reasoning,
      toolCalls,
      response: { usage: usageOf(m.tokens) },
    });
    pending = [];
    const assistant: JournalMessage = { role: "assistant", content: textOut };
    if (toolCalls.length > 0) assistant.toolCalls = toolCalls;
    pending.push(assistant);
    if (textOut) output = textOut;
    let stepStatus: "ok" | "error" = "ok";
    let stepEnd = t;
    calls.forEach((c, j) => {
      const call = toolCalls[j];
      const ct = isoToNanos(c.timestamp) ?? t;
      if (ct > stepEnd) stepEnd = ct;
      const key = `t:${sid}:${j}`;
      const status = str(c.status) ?? "";
      addStepToolCall(b, { t: ct, step: sid, key, call: call });
      if (status === "awaiting_approval") {
        b.add({
          t: ct,
          type: "approval.request",
          step: sid,
          parentKey: key,
          after: key,
          data: { approval: `approval-${call.id}`, call: call.id, policy: { id: "gemini-cli" } },
        });
        return;
      }
      if (c.result === undefined || c.result === null) {
        if (!FAILED.has(status)) return void warnings.push(`tool call ${call.id} (${call.name}) has no result in the file`);
      }
      const r = resultOf(c.result);
      const failed = FAILED.has(status) || r.error !== undefined;
      if (failed) stepStatus = "error";
      const resultText = r.text || str(c.resultDisplay) || "";
      pending.push({ role: "tool", content: resultText, toolCallId: call.id, name: call.name });
      b.add({
        t: ct,
        type: "tool.result",
        step: sid,
        parentKey: key,
        after: key,
        data: compact({
          call: call.id,
          status: failed ? "error" : "ok",
          result: resultText,
          error: failed ? (r.error ?? (status === "cancelled" ? "cancelled" : resultText || "error")) : undefined,
        }),
      });
    });
    b.add({ t: stepEnd, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: stepStatus } });
  });

  const { min, max } = b.span();
  const startData: Record<string, unknown> = {
    workflow: { name: "gemini-cli" },
    agent: { name: "gemini-cli" },
    tags: ["gemini-cli"],
    source: compact({
      format: "gemini-cli",
      file: opts.fileName,
      sessionId,
      projectHash: str(conv.meta.projectHash),
      directories: asArray(conv.meta.directories).length > 0 ? conv.meta.directories : undefined,
      summary: str(conv.meta.summary),
      kind: str(conv.meta.kind),
    }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  const end: ProtoEvent["data"] = compact({ status: "succeeded", output });
  return {
    format: "gemini-cli",
    runs: [{ runId, events: b.build({ runId, start: { data: startData, t: start ?? min }, end: { data: end, t: max } }) }],
    warnings,
  };
}
