/**
 * Cline / Roo Code task folder (`…/globalStorage/saoudrizwan.claude-dev/tasks/<task id>/`,
 * Roo Code's `rooveterinaryinc.roo-cline/tasks/<task id>/`) → one run `cline-<task id>`.
 *
 * - `api_conversation_history.json` is the Anthropic message list sent to the model: every
 *   assistant message is one model call (text, `thinking` as reasoning, `tool_use` blocks as
 *   its tool calls, or, without them, the tools asked for in XML inside the text:
 *   cline-xml-tools.ts); its request carries the messages added since the previous call. A tool
 *   call's result is the next user message's `tool_result` block with its id, else its text
 *   block `[<tool> …] Result:` in the order the calls were made; `Tool [x] was not executed`,
 *   `The tool execution failed…` and a denial are failed results.
 * - `ui_messages.json` holds what the user saw, with times: an `api_req_started` row is one
 *   request (its JSON `text` has `tokensIn`, `tokensOut`, `cacheReads`, `cacheWrites`, `cost`,
 *   and `streamingFailedMessage` / `cancelReason` when it failed); its
 *   `conversationHistoryIndex` i says the request sent messages 0‥i+1, so its answer is
 *   message i+2. `api_req_failed`, `error_retry`, `api_req_retried`, `error`, `diff_error`,
 *   `mistake_limit_reached` rows are errors (retries retryable). Row times are the request's
 *   and the last answer row's; neither file records when a request ended or how long a tool
 *   ran, so no latency is written.
 * - `task_metadata.json` gives Cline's version (`environment_history`); the working directory
 *   comes from the environment block Cline adds to the first message.
 *
 * Given one file alone, the run holds what that file has and a warning says what is missing.
 */
import { JournalBuilder } from "./builder";
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
import { xmlToolCalls } from "./cline-xml-tools";
import { contentText, normalizeArgs, normalizeMessage, type JournalMessage, type MessageToolCall } from "./messages";
import { addModelCall, addStepToolCall } from "./model-call";
import type { ImportOptions, ImportResult } from "./types";

export interface ClineTask {
  api?: unknown;
  ui?: unknown;
  meta?: unknown;
  /** The task folder's name (Cline names it by the task's id). */
  folder?: string;
}

const ERROR_SAYS = new Set(["error", "error_retry", "diff_error", "clineignore_error", "rooignore_error"]);
const ERROR_ASKS = new Set(["api_req_failed", "mistake_limit_reached"]);
const RESULT_TEXT = /^\[([^\]]+?)\] Result:/;
const NOT_EXECUTED = /^Tool \[([^\]]+)\] was not executed/;
const FAILED_RESULT =
  /^(?:\[[^\]]+\] Result:\s*)?(?:The tool execution failed with the following error|The user denied this operation|\[ERROR\])/;

const ms = (v: unknown): bigint | undefined => {
  const n = toNumber(v);
  return n !== undefined ? BigInt(Math.round(n)) * 1_000_000n : undefined;
};

function blocks(m: UnknownRecord): UnknownRecord[] {
  if (typeof m.content === "string") return [{ type: "text", text: m.content }];
  return asArray(m.content).filter(isRecord);
}

/** The `say`/`ask` kind of a UI row. */
const kindOf = (r: UnknownRecord) => String(r.type === "ask" ? r.ask : r.say);

function usageOf(req: UnknownRecord, metrics: unknown): Record<string, number> | undefined {
  const tokens = isRecord(metrics) && isRecord(metrics.tokens) ? metrics.tokens : {};
  const out = compact({
    inputTokens: toNumber(req.tokensIn) ?? toNumber(tokens.prompt),
    outputTokens: toNumber(req.tokensOut) ?? toNumber(tokens.completion),
    cacheReadTokens: toNumber(req.cacheReads) ?? toNumber(tokens.cached),
    cacheCreationTokens: toNumber(req.cacheWrites),
  });
  return Object.keys(out).length > 0 ? (out as Record<string, number>) : undefined;
}

interface Answer {
  text: string;
  status: "ok" | "error";
  error?: string;
}

/** The results the user message after a call gives, one per tool call, by id or in order. */
function resultsFor(calls: MessageToolCall[], next: UnknownRecord | undefined): Map<string, Answer> {
  const out = new Map<string, Answer>();
  if (!next || next.role !== "user") return out;
  const queue = [...calls];
  const list = blocks(next);
  for (const b of list) {
    if (b.type === "tool_result") {
      const id = str(b.tool_use_id);
      const text = contentText(b.content);
      const failed = b.is_error === true || FAILED_RESULT.test(text);
      if (id) out.set(id, { text, status: failed ? "error" : "ok", error: failed ? text : undefined });
      const at = queue.findIndex((c) => c.id === id);
      if (at >= 0) queue.splice(at, 1);
      continue;
    }
    if (b.type !== "text" || typeof b.text !== "string") continue;
    if (!RESULT_TEXT.test(b.text) && !NOT_EXECUTED.test(b.text)) continue;
    const call = queue.shift();
    if (!call) continue;
    const text = [b.text, ...bodyAfter(list, list.indexOf(b))].join("\n");
    const failed = NOT_EXECUTED.test(text) || FAILED_RESULT.test(text);
    out.set(call.id, { text, status: failed ? "error" : "ok", error: failed ? text : undefined });
  }
  return out;
}

/**
 * A `[tool for '…'] Result:` header alone in its block (Roo Code, Cline's XML tools): the
 * result is the text blocks after it, up to the next header or the environment details.
 */
function bodyAfter(list: UnknownRecord[], at: number): string[] {
  const header = String(list[at]?.text ?? "");
  if (!/\] Result:\s*$/.test(header)) return [];
  const body: string[] = [];
  for (const b of list.slice(at + 1)) {
    const t = b.type === "text" && typeof b.text === "string" ? b.text : undefined;
    if (t === undefined || RESULT_TEXT.test(t) || NOT_EXECUTED.test(t) || t.trimStart().startsWith("<environment_details>")) break;
    body.push(t);
  }
  return body;
}

export function importCline(task: ClineTask, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const api = Array.isArray(task.api) ? task.api.filter(isRecord) : undefined;
  const ui = Array.isArray(task.ui) ? task.ui.filter(isRecord) : undefined;
  const meta = isRecord(task.meta) ? task.meta : {};
  if (!api) warnings.push("api_conversation_history.json is missing: the messages sent to the model and the tool calls are not known");
  // newer Cline and Roo Code stamp each message with `ts` (ms): the history alone has times
  const timed = api !== undefined && api.length > 0 && api.every((m) => toNumber(m.ts) !== undefined);
  if (!ui)
    warnings.push(
      timed
        ? "ui_messages.json is missing: no cost, retries or errors are known; times (and tokens, where given) are the messages' own"
        : "ui_messages.json is missing: the file records no times (synthetic ones are used), tokens, cost, retries or errors",
    );
  const rows = ui ?? [];
  const requests = rows.filter((r) => r.say === "api_req_started");
  const reqData = (r: UnknownRecord): UnknownRecord => {
    const v = decodeJsonString(r.text);
    return isRecord(v) ? v : {};
  };
  const roo = requests.some((r) => "apiProtocol" in reqData(r));
  const agent = roo ? "roo-code" : "cline";
  const firstTs = toNumber(rows[0]?.ts);
  const taskId =
    (task.folder && /^\d+$/.test(task.folder) ? task.folder : undefined) ??
    (firstTs !== undefined ? String(firstTs) : contentId(JSON.stringify(task.api ?? task.ui ?? null)));
  const runId = makeRunId("cline", taskId);
  const synthetic = !ui && !timed;
  const b = new JournalBuilder();
  const models: Record<string, string> = {};
  let input: unknown;
  let output: string | undefined;
  let cwd: string | undefined;

  // requests by the history index they sent up to: the last one is answered by message i+2
  const byIndex = new Map<number, UnknownRecord[]>();
  for (const r of requests) {
    const i = toNumber(r.conversationHistoryIndex) ?? -1;
    const list = byIndex.get(i) ?? [];
    list.push(r);
    byIndex.set(i, list);
  }
  const answerRows = (i: number) => rows.filter((r) => toNumber(r.conversationHistoryIndex) === i + 1 && r.type === "say");
  let tick = 0n;
  const seqT = () => (tick += 1_000_000n);

  // Requests that got no answer in the history (failed, cancelled, or still running): failed calls.
  const answered = new Set<UnknownRecord>();
  // Roo Code 3.2x writes no conversationHistoryIndex: an assistant message (its own `ts` says
  // when the answer was saved) answers the last request row after the previous answer, else
  // (no times) the k-th row. A condensed history has fewer answers than rows.
  const indexed = requests.some((r) => toNumber(r.conversationHistoryIndex) !== undefined);
  const rowsBetween = (after: bigint | undefined, upTo: bigint) =>
    requests.filter((r) => {
      const x = ms(r.ts);
      return x !== undefined && x <= upTo && (after === undefined || x > after);
    });
  if (api) {
    let since = 0;
    let k = -1;
    let prevAnswer: bigint | undefined;
    api.forEach((m, j) => {
      if (m.role !== "assistant") return;
      k++;
      const saved = ms(m.ts);
      // Roo's condensed history opens with the summary (`isSummary`), saved with the time of
      // the message after it: it answers no request row of its own
      const summary = m.isSummary === true;
      const reqRows = indexed
        ? (byIndex.get(j - 2) ?? [])
        : summary
          ? []
          : saved !== undefined
            ? rowsBetween(prevAnswer, saved)
            : requests.slice(k, k + 1);
      if (saved !== undefined && !summary) prevAnswer = saved;
      const req = reqRows[reqRows.length - 1];
      if (req) answered.add(req);
      const data = req ? reqData(req) : {};
      // without its UI row, the request went out when the message before it was saved
      const t = (req ? ms(req.ts) : undefined) ?? (timed ? ms(api[j - 1]?.ts) : undefined) ?? seqT();
      const answerTimes = (indexed ? answerRows(j - 2) : [m]).map((r) => ms(r.ts)).filter((x): x is bigint => x !== undefined && x >= t);
      const tResp = answerTimes.length > 0 ? answerTimes.reduce((a, x) => (x > a ? x : a)) : t;
      const messages: JournalMessage[] = [];
      for (const prev of api.slice(since, j)) {
        messages.push(...normalizeMessage(prev, `cline-${j}-`));
        if (input === undefined && prev.role === "user") {
          const text = blocks(prev)
            .filter((x) => x.type === "text")
            .map((x) => String(x.text ?? ""));
          const taskText = text.find((x) => x.includes("<task>")) ?? text[0];
          input = taskText?.replace(/^\s*<task>\s*|\s*<\/task>\s*$/g, "") ?? "";
          b.add({ t: t - 1n, type: "input", data: { source: "user", content: input } });
          const env = /# Current Working Directory \((.+?)\) Files/.exec(text.join("\n"));
          cwd ??= env?.[1];
        }
      }
      since = j;
      const mb = blocks(m);
      const rawText = mb
        .filter((x) => x.type === "text")
        .map((x) => String(x.text ?? "").trim())
        .filter(Boolean)
        .join("\n");
      const reasoning = mb
        .filter((x) => x.type === "thinking" || x.type === "reasoning")
        .map((x) => String(x.thinking ?? x.text ?? ""))
        .filter(Boolean)
        .join("\n");
      const nativeCalls: MessageToolCall[] = mb
        .filter((x) => x.type === "tool_use")
        .map((x, k) => ({
          id: firstStr(x.id) ?? `cline-${j}-call-${k}`,
          name: firstStr(x.name) ?? "unknown",
          args: normalizeArgs(x.input),
        }));
      // no tool_use block: the tools asked for in XML inside the text (before native tool calling)
      const xml = nativeCalls.length === 0 ? xmlToolCalls(rawText, `cline-${j}-`) : undefined;
      const toolCalls = xml && xml.calls.length > 0 ? xml.calls : nativeCalls;
      const text = xml && xml.calls.length > 0 ? xml.text : rawText;
      const modelInfo = isRecord(m.modelInfo) ? m.modelInfo : isRecord(req?.modelInfo) ? req.modelInfo : {};
      const model = firstStr(modelInfo.modelId) ?? "unknown";
      if (model !== "unknown") models[model] = firstStr(modelInfo.providerId) ? `${String(modelInfo.providerId)}/${model}` : model;
      const sid = `cline-${j}`;
      const failedMsg = firstStr(
        data.streamingFailedMessage,
        data.cancelReason === "streaming_failed" ? "the response stream failed" : undefined,
      );
      addModelCall(b, {
        step: sid,
        t,
        tResponse: tResp,
        name: model,
        stepData: { agent },
        call: `${taskId}-${j}`,
        model,
        messages,
        text,
        reasoning,
        toolCalls,
        response: { usage: usageOf(data, m.metrics), cost: toNumber(data.cost), error: failedMsg },
      });
      if (text) output = text;
      const results = resultsFor(toolCalls, api[j + 1]);
      // the results went out with the next request
      const sent = indexed
        ? byIndex.get(j - 1)?.[0]
        : saved !== undefined
          ? requests.find((r) => (ms(r.ts) ?? -1n) > saved)
          : requests[k + 1];
      const next = timed ? ms(api[j + 1]?.ts) : undefined;
      const tResult = (sent ? ms(sent.ts) : undefined) ?? (next !== undefined && next >= tResp ? next : tResp);
      let failed = failedMsg !== undefined;
      let missing = 0;
      toolCalls.forEach((c, k) => {
        const key = `t:${sid}:${k}`;
        addStepToolCall(b, { t: tResp, step: sid, key, call: c });
        const r = results.get(c.id);
        if (!r) return void missing++;
        if (r.status === "error") failed = true;
        b.add({
          t: tResult,
          type: "tool.result",
          step: sid,
          parentKey: key,
          after: key,
          data: compact({ call: c.id, status: r.status, result: r.text, error: r.error }),
        });
      });
      if (missing > 0 && j + 1 < api.length) warnings.push(`message ${j}: ${missing} tool call(s) have no result in the next message`);
      b.add({
        t: tResult,
        type: "step.end",
        step: sid,
        parentKey: `s:${sid}`,
        after: `s:${sid}`,
        data: { status: failed ? "error" : "ok" },
      });
    });
  }
  // requests the history has no answer for (failed, cancelled, or the file ends first)
  for (const r of requests) {
    if (answered.has(r)) continue;
    const data = reqData(r);
    const message = firstStr(
      data.streamingFailedMessage,
      data.cancelReason ? `the request was cancelled (${String(data.cancelReason)})` : undefined,
    );
    const t = ms(r.ts) ?? seqT();
    const sid = `cline-req-${String(r.ts)}`;
    const modelInfo = isRecord(r.modelInfo) ? r.modelInfo : {};
    const model = firstStr(modelInfo.modelId) ?? "unknown";
    if (model !== "unknown") models[model] ??= model;
    if (!api) {
      // alone, each request is one model call with what the row says about it
      addModelCall(b, {
        step: sid,
        t,
        name: model,
        stepData: { agent },
        call: `${taskId}-${String(r.ts)}`,
        model,
        messages: [],
        text: "",
        toolCalls: [],
        response: { usage: usageOf(data, undefined), cost: toNumber(data.cost), error: message },
      });
      b.add({ t, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: message ? "error" : "ok" } });
    } else if (message) {
      b.add({ t, type: "error", data: { message, retryable: true } });
    }
  }
  for (const r of rows) {
    const kind = kindOf(r);
    const t = ms(r.ts) ?? seqT();
    if (r.type === "say" && r.say === "task" && input === undefined) {
      input = str(r.text) ?? "";
      b.add({ t, type: "input", data: { source: "user", content: input } });
    }
    if (!((r.type === "say" && ERROR_SAYS.has(kind)) || (r.type === "ask" && ERROR_ASKS.has(kind)))) continue;
    let message = str(r.text) ?? kind;
    let retryable: boolean | undefined = kind === "api_req_failed" || kind === "error_retry" ? true : undefined;
    if (kind === "error_retry") {
      // one failed attempt, retried after a delay; the last (`failed: true`) is the api_req_failed row that follows
      const v = decodeJsonString(r.text);
      if (isRecord(v) && v.failed === true) continue;
      if (isRecord(v))
        message = [
          `the request failed (attempt ${String(v.attempt ?? "?")} of ${String(v.maxAttempts ?? "?")}); retried after ${String(v.delaySeconds ?? v.delaySec ?? "?")} s`,
          firstStr(v.errorMessage, v.message),
        ]
          .filter(Boolean)
          .join(": ");
    }
    if (kind === "api_req_failed") {
      const v = decodeJsonString(r.text);
      if (isRecord(v)) message = firstStr(v.message, v.error) ?? message;
    }
    if (kind === "mistake_limit_reached") retryable = false;
    b.add({ t, type: "error", data: compact({ message, code: kind, retryable }) });
  }
  if (!api && ui && input === undefined) {
    const first = rows.find((r) => r.type === "say" && r.say === "text");
    if (first) b.add({ t: ms(first.ts) ?? 0n, type: "input", data: { source: "user", content: str(first.text) ?? "" } });
  }
  const completion = [...rows].reverse().find((r) => r.say === "completion_result");
  output = str(completion?.text) ?? output;

  const env = asArray(meta.environment_history).filter(isRecord);
  const version = firstStr(...env.map((e) => e.cline_version).reverse());
  const { min, max } = b.span();
  const startData: Record<string, unknown> = {
    workflow: { name: agent },
    agent: compact({ name: agent, version }),
    tags: [agent],
    source: compact({ format: "cline", file: opts.fileName, taskId, cwd, host: firstStr(env[0]?.host_name) }),
  };
  if (Object.keys(models).length > 0) startData.versions = { models };
  if (input !== undefined) startData.input = input;
  return {
    format: "cline",
    runs: [
      {
        runId,
        events: b.build({
          runId,
          synthetic,
          start: { data: startData, t: min },
          end: { data: compact({ status: "succeeded", output }), t: max },
        }),
      },
    ],
    warnings,
  };
}
