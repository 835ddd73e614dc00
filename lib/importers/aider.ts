/**
 * Aider's histories → one run per chat session, `aider-<start>-<8 hex of the session's text>`.
 *
 * `.aider.chat.history.md` is what the terminal showed, one `# aider chat started at …`
 * section per session: `####` lines are the user's messages (`/commands` are notes), lines
 * quoted with `>` are Aider's own output, the rest is the model's answer. Each answer is a
 * model call, closed by its `> Tokens: 3.2k sent, 222 received. Cost: $0.0014 message…`
 * line (usage as Aider rounds it, cost in dollars); the edits Aider applied from it (`>
 * Applied edit to PATH`), its commits (`> Commit <hash> <message>`) and shell commands (`>
 * Running CMD`) are that call's tool calls; `litellm` exceptions, rate limits, edits that
 * failed to match and answers that broke the edit format are errors (`> Retrying in …`
 * makes the one before it retryable). `> Aider v…` and `> Main model: …` are run facts.
 * The file stamps only the session's start, in local time without a zone (read as UTC).
 *
 * `.aider.llm.history` logs each request (`TO LLM <time>`: the messages, one `ROLE text`
 * line each) and answer (`LLM RESPONSE <time>`), to the second. With the chat history, an
 * answer is matched to the chat's model call by its text and gives that call its messages,
 * its times and a latency (whole seconds); answers the chat does not show (commit messages,
 * summaries) are model calls of their own. Alone, it gives those calls without usage.
 */
import { sha256Hex } from "../canonical";
import { JournalBuilder, type ProtoEvent } from "./builder";
import { inferEffect } from "./effects";
import { compact, makeRunId } from "./json-utils";
import type { JournalMessage, MessageToolCall } from "./messages";
import { addModelCall } from "./model-call";
import type { ImportedRun, ImportOptions, ImportResult } from "./types";

const SESSION = /^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)\s*$/;
const TOKENS =
  /^> Tokens: ([\d.]+)(k|M)? sent, (?:([\d.]+)(k|M)? cache write, )?(?:([\d.]+)(k|M)? cache hit, )?([\d.]+)(k|M)? received\.(?:\s*Cost: \$([\d.]+) message)?/;
/** Aider's own lines that say a request or an edit failed. */
export const AIDER_ERROR =
  /^> (litellm\.\w+(Error|Exception)|The API provider |The LLM did not conform to the edit format|Failed to apply edit|# \d+ SEARCH\/REPLACE blocks? failed to match|Unable to (?:list|get) |Error: |Model .* has hit a token limit)/;
const RETRY = /^> Retrying in [\d.]+ seconds/;

interface LlmCall {
  t: bigint;
  tResponse?: bigint;
  messages: JournalMessage[];
  response?: string;
  used?: boolean;
}

/** Local times without a zone, read as UTC, in nanoseconds. */
function timeOf(date: string, time: string): bigint {
  return BigInt(Date.parse(`${date}T${time}Z`)) * 1_000_000n;
}

function count(n?: string, unit?: string): number | undefined {
  if (n === undefined) return undefined;
  const v = Number(n) * (unit === "k" ? 1000 : unit === "M" ? 1_000_000 : 1);
  return Number.isFinite(v) ? Math.round(v) : undefined;
}

const ROLES: Record<string, string> = { SYSTEM: "system", USER: "user", ASSISTANT: "assistant" };

/** The `.aider.llm.history` log: each `TO LLM` request with the `LLM RESPONSE` after it, if any. */
export function parseLlmHistory(text: string): LlmCall[] {
  const calls: LlmCall[] = [];
  let cur: LlmCall | undefined;
  let mode: "request" | "response" | undefined;
  let role = "";
  let buf: string[] = [];
  const flush = () => {
    if (!cur || buf.length === 0) return void (buf = []);
    const content = buf.join("\n");
    if (mode === "request") cur.messages.push({ role: ROLES[role] ?? role.toLowerCase(), content });
    else if (mode === "response") cur.response = cur.response ? `${cur.response}\n${content}` : content;
    buf = [];
  };
  for (const line of text.split("\n")) {
    const head = /^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(line);
    if (head) {
      flush();
      const t = timeOf(head[2], head[3]);
      if (head[1] === "TO LLM") {
        cur = { t, messages: [] };
        calls.push(cur);
        mode = "request";
      } else {
        if (!cur || cur.tResponse !== undefined) calls.push((cur = { t, messages: [] }));
        cur.tResponse = t;
        cur.response = "";
        mode = "response";
      }
      role = "";
      continue;
    }
    if (line === "-------" && mode === "request" && buf.length === 0) continue;
    const m = /^(SYSTEM|USER|ASSISTANT)(?: (.*))?$/.exec(line);
    if (!m) {
      if (buf.length > 0) buf.push(line);
      continue;
    }
    if (m[1] !== role) flush();
    role = m[1];
    buf.push(m[2] ?? "");
  }
  flush();
  return calls;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 300);

interface Session {
  date: string;
  time: string;
  lines: string[];
}

function sessionsOf(chat: string): Session[] {
  const out: Session[] = [];
  for (const line of chat.split("\n")) {
    const m = SESSION.exec(line.trimEnd());
    if (m) {
      out.push({ date: m[1], time: m[2], lines: [] });
      continue;
    }
    out[out.length - 1]?.lines.push(line.replace(/ {2}$/, ""));
  }
  return out;
}

interface Pending {
  text: string[];
  t: bigint;
}

/** Converts Aider's chat history, its LLM log, or both (one session folder). */
export function importAider(files: { chat?: string; llm?: string }, opts: ImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const llm = files.llm !== undefined ? parseLlmHistory(files.llm) : [];
  if (files.chat === undefined)
    warnings.push(".aider.chat.history.md is missing: token counts, costs, applied edits, commits and errors are not known");
  else if (files.llm === undefined)
    warnings.push(
      ".aider.llm.history is missing: the messages sent to the model and request times are not known (all events carry the session's start time)",
    );
  const sessions = files.chat !== undefined ? sessionsOf(files.chat) : [];
  if (files.chat !== undefined && sessions.length === 0) warnings.push("the chat history holds no `# aider chat started at` line");
  const runs: ImportedRun[] = [];
  let empty = 0;
  sessions.forEach((s, k) => {
    const start = timeOf(s.date, s.time);
    const end = k + 1 < sessions.length ? timeOf(sessions[k + 1].date, sessions[k + 1].time) : undefined;
    const mine = llm.filter((c) => c.t >= start && (end === undefined || c.t < end));
    const run = chatRun(s, mine, opts, warnings);
    if (run) runs.push(run);
    else empty++;
  });
  if (empty > 0) warnings.push(`${empty} session(s) in the chat history hold no message and were left out`);
  if (files.chat === undefined && llm.length > 0) runs.push(llmRun(llm, opts));
  return { format: "aider", runs, warnings };
}

function runStart(
  opts: ImportOptions,
  facts: { version?: string; model?: string; input?: unknown; start?: string },
): Record<string, unknown> {
  const data: Record<string, unknown> = {
    workflow: { name: "aider" },
    agent: compact({ name: "aider", version: facts.version }),
    tags: ["aider"],
    source: compact({ format: "aider", file: opts.fileName, startedAt: facts.start }),
  };
  if (facts.model) data.versions = { models: { [facts.model]: facts.model } };
  if (facts.input !== undefined) data.input = facts.input;
  return data;
}

function chatRun(s: Session, llm: LlmCall[], opts: ImportOptions, warnings: string[]): ImportedRun | undefined {
  const start = timeOf(s.date, s.time);
  const runId = makeRunId("aider", `${s.date.replace(/-/g, "")}${s.time.replace(/:/g, "")}-${sha256Hex(s.lines.join("\n")).slice(0, 8)}`);
  const b = new JournalBuilder();
  let t = start;
  let version: string | undefined;
  let model: string | undefined;
  let input: unknown;
  let output: string | undefined;
  let user: string[] = [];
  let answer: Pending | undefined;
  let n = 0;
  let lastStep: string | undefined;
  let lastError: ProtoEvent | undefined;
  let tools = 0;
  let stepFailed = false;
  const byText = new Map<string, LlmCall>();
  for (const c of llm) if (c.response) byText.set(norm(c.response), c);
  const closeStep = () => {
    if (!lastStep) return;
    b.add({
      t,
      type: "step.end",
      step: lastStep,
      parentKey: `s:${lastStep}`,
      after: `s:${lastStep}`,
      data: { status: stepFailed ? "error" : "ok" },
    });
    lastStep = undefined;
  };
  const flushUser = () => {
    if (user.length === 0) return;
    const content = user.join("\n").trim();
    user = [];
    if (content.startsWith("/")) return void b.add({ t, type: "note", data: { text: `command: ${content}` } });
    input ??= content;
    b.add({ t, type: "input", data: { source: "user", content } });
  };
  const flushAnswer = (usage?: RegExpExecArray) => {
    const full = (answer?.text ?? []).join("\n").trim();
    if (!answer && !usage) return;
    // a reasoning model's <think> block, as the terminal showed it, is kept apart from the text
    const think = /^<think>\n?([\s\S]*?)\n?<\/think>\s*/.exec(full);
    const text = think ? full.slice(think[0].length) : full;
    answer = undefined;
    closeStep();
    const sid = `aider-${n++}`;
    const match = byText.get(norm(full));
    if (match) match.used = true;
    const t0 = match?.t ?? t;
    const t1 = match?.tResponse ?? t0;
    if (match) t = t1;
    const usageData = usage
      ? compact({
          inputTokens: count(usage[1], usage[2]),
          cacheCreationTokens: count(usage[3], usage[4]),
          cacheReadTokens: count(usage[5], usage[6]),
          outputTokens: count(usage[7], usage[8]),
        })
      : undefined;
    addModelCall(b, {
      step: sid,
      t: t0,
      tResponse: t1,
      name: model ?? "unknown",
      call: `${runId}-${sid}`,
      model: model ?? "unknown",
      messages: match?.messages ?? [],
      text,
      reasoning: think?.[1].trim(),
      toolCalls: [],
      response: {
        usage: usageData && Object.keys(usageData).length > 0 ? usageData : undefined,
        cost: usage?.[9] !== undefined ? Number(usage[9]) : undefined,
        latencyMs: match?.tResponse !== undefined ? Number(match.tResponse - match.t) / 1e6 : undefined,
      },
    });
    if (text) output = text;
    lastStep = sid;
    stepFailed = false;
  };
  const tool = (name: string, args: Record<string, unknown>, result: string) => {
    if (!lastStep) {
      // Aider acted on its own (a commit before an edit): a step of its own
      lastStep = `aider-${n++}`;
      stepFailed = false;
      b.add({ t, type: "step.start", step: lastStep, key: `s:${lastStep}`, data: { name: "aider", kind: "internal" } });
    }
    const sid = lastStep;
    const id = `${runId}-tool-${tools++}`;
    const key = `t:${id}`;
    const toolCall: MessageToolCall = { id, name, args };
    b.add({
      t,
      type: "tool.call",
      step: sid,
      key,
      parentKey: `s:${sid}`,
      after: `r:${sid}`,
      data: { call: toolCall.id, tool: name, args, ...inferEffect(name, args) },
    });
    b.add({ t, type: "tool.result", step: sid, parentKey: key, after: key, data: { call: id, status: "ok", result } });
  };
  // the text Aider sends back after an edit failed to match (until its next own line) is the error's detail
  let reflection: string[] | undefined;
  for (const line of s.lines) {
    // a model's answer may hold `####` headings: while one is open (no `>` line yet), they are its text
    if (line.startsWith("#### ") && !answer) {
      reflection = undefined;
      closeStep();
      user.push(line.slice(5));
      continue;
    }
    // Aider's own lines are quoted `> ` (an edit block's `>>>>>>> REPLACE` is not one)
    if (line === ">" || line.startsWith("> ")) {
      reflection = undefined;
      flushUser();
      const q = line;
      const usage = TOKENS.exec(q);
      // Aider's own lines follow an answer: the answer is complete
      if (answer) flushAnswer(usage ?? undefined);
      else if (usage) flushAnswer(usage);
      if (usage) continue;
      let m: RegExpExecArray | null;
      if ((m = /^> Aider v(\S+)/.exec(q))) version ??= m[1];
      else if ((m = /^> (?:Main model|Model): (\S+)/.exec(q))) model = m[1];
      else if ((m = /^> Applied edit to (.+)$/.exec(q))) tool("edit", { path: m[1].trim() }, `Applied edit to ${m[1].trim()}`);
      else if ((m = /^> Commit ([0-9a-f]{7,40}) (.*)$/.exec(q))) tool("git_commit", { message: m[2].trim() }, m[1]);
      else if ((m = /^> Running (.+)$/.exec(q))) tool("shell", { command: m[1].trim() }, "");
      else if (AIDER_ERROR.test(q)) {
        lastError = { t, type: "error", data: { message: q.slice(2).trim() } };
        b.add(lastError);
        if (lastStep) stepFailed = true;
        if (/SEARCH\/REPLACE blocks? failed to match/.test(q)) reflection = [];
      } else if (RETRY.test(q) && lastError) lastError.data.retryable = true;
      continue;
    }
    flushUser();
    if (reflection && lastError) {
      reflection.push(line);
      lastError.data.detail = reflection.join("\n").trim();
      continue;
    }
    if (!answer && line.trim() === "") continue;
    if (!answer) answer = { text: [], t };
    answer.text.push(line);
  }
  flushUser();
  if (answer) flushAnswer();
  closeStep();
  // answers the chat does not show (commit messages, summaries by the weak model)
  for (const c of llm) {
    if (c.used || c.response === undefined) continue;
    const sid = `aider-${n++}`;
    addModelCall(b, {
      step: sid,
      t: c.t,
      tResponse: c.tResponse,
      name: "unknown",
      call: `${runId}-${sid}`,
      model: "unknown",
      messages: c.messages,
      text: c.response,
      toolCalls: [],
      response: { latencyMs: c.tResponse !== undefined ? Number(c.tResponse - c.t) / 1e6 : undefined },
    });
    b.add({ t: c.tResponse ?? c.t, type: "step.end", step: sid, parentKey: `s:${sid}`, after: `s:${sid}`, data: { status: "ok" } });
  }
  // a session that was opened and closed without a message (Aider's start-up lines only)
  if (n === 0 && input === undefined && llm.length === 0) return undefined;
  if (llm.length > 0 && !llm.some((c) => c.used))
    warnings.push(`session of ${s.date} ${s.time}: no answer in .aider.llm.history matched the chat's`);
  const { max } = b.span();
  return {
    runId,
    events: b.build({
      runId,
      start: { data: runStart(opts, { version, model, input, start: `${s.date} ${s.time}` }), t: start },
      end: { data: compact({ status: "succeeded", output }), t: max },
    }),
  };
}

/** `.aider.llm.history` alone: its requests and answers, without a session's facts. */
function llmRun(llm: LlmCall[], opts: ImportOptions): ImportedRun {
  const first = llm[0].t;
  const runId = makeRunId("aider", `${new Date(Number(first / 1_000_000n)).toISOString().replace(/\D/g, "").slice(0, 14)}-llm`);
  const b = new JournalBuilder();
  let input: unknown;
  let output: string | undefined;
  llm.forEach((c, i) => {
    const sid = `aider-${i}`;
    input ??= [...c.messages].reverse().find((m) => m.role === "user")?.content;
    const failed = c.response === undefined;
    addModelCall(b, {
      step: sid,
      t: c.t,
      tResponse: c.tResponse,
      name: "unknown",
      call: `${runId}-${sid}`,
      model: "unknown",
      messages: c.messages,
      text: c.response ?? "",
      toolCalls: [],
      response: {
        latencyMs: c.tResponse !== undefined ? Number(c.tResponse - c.t) / 1e6 : undefined,
        error: failed ? "no LLM RESPONSE follows this request in the log" : undefined,
      },
    });
    if (c.response) output = c.response;
    b.add({
      t: c.tResponse ?? c.t,
      type: "step.end",
      step: sid,
      parentKey: `s:${sid}`,
      after: `s:${sid}`,
      data: { status: failed ? "error" : "ok" },
    });
  });
  const { max } = b.span();
  return {
    runId,
    events: b.build({
      runId,
      start: { data: runStart(opts, { input }), t: first },
      end: { data: compact({ status: "succeeded", output }), t: max },
    }),
  };
}
