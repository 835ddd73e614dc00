/**
 * Sessions that span several files, from public repositories (tests/fixtures/agent-folders/
 * SOURCES.md): a Cline task folder, a Cline `ui_messages.json` alone, Aider's chat and LLM
 * histories together and alone; and the folder path (a zip of session files). Every expected
 * count is read off the raw files here with plain JSON or regular expressions, never from
 * the importer's output.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectBytes, ImportError, importSessionFiles, importTrace, importTraceStream, importTraceStreamWhole } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import type { JournalEvent } from "@/lib/journal/types";
import { parseLine } from "@/lib/journal/parse-line";
import { summarize } from "./helpers";

type Obj = Record<string, unknown>;
const DIR = "../fixtures/agent-folders/";
const bytes = (name: string) => {
  const b = readFileSync(new URL(DIR + name, import.meta.url));
  return name.endsWith(".gz") ? gunzipSync(b) : b;
};
const read = (name: string) => bytes(name).toString("utf8");
const valid = (events: JournalEvent[]) => {
  for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
};
const of = (events: JournalEvent[], type: string) => events.filter((e) => e.type === type);
const latencies = (events: JournalEvent[]) =>
  events.filter((e) => (e.type === "model.response" || e.type === "tool.result") && e.data.latencyMs !== undefined);
async function* chunks(b: Uint8Array) {
  for (let i = 0; i < b.length; i += 65536) yield b.subarray(i, i + 65536);
}

describe("Cline task folder (api_conversation_history.json + ui_messages.json + task_metadata.json)", () => {
  const task = "cline/1769064454592/";
  const apiText = read(`${task}api_conversation_history.json.gz`);
  const uiText = read(`${task}ui_messages.json.gz`);
  const metaText = read(`${task}task_metadata.json.gz`);
  const api = JSON.parse(apiText) as Obj[];
  const ui = JSON.parse(uiText) as Obj[];
  const meta = JSON.parse(metaText) as Obj;
  const blocks = (m: Obj) => (Array.isArray(m.content) ? (m.content as Obj[]) : []);
  const toolUses = api.flatMap((m) => blocks(m).filter((b) => b.type === "tool_use"));
  const failedResults = api
    .filter((m) => m.role === "user")
    .flatMap((m) => blocks(m))
    .filter(
      (b) => b.type === "text" && /^Tool \[[^\]]+\] was not executed|The tool execution failed|denied this operation/.test(String(b.text)),
    );
  const requests = ui.filter((r) => r.say === "api_req_started").map((r) => JSON.parse(String(r.text)) as Obj);
  const files = [
    { name: `tasks/1769064454592/api_conversation_history.json`, text: apiText },
    { name: `tasks/1769064454592/ui_messages.json`, text: uiText },
    { name: `tasks/1769064454592/task_metadata.json`, text: metaText },
  ];

  it("each file is told from its content, whatever its name", () => {
    expect(detectFormat(apiText, "a.json").format).toBe("cline");
    expect(detectFormat(uiText, "b.json").format).toBe("cline");
    expect(detectFormat(metaText, "c.json").format).toBe("cline");
  });

  it("imports every model call with tokens and cost, every tool call joined to its result, and no invented duration", () => {
    const r = importSessionFiles(files);
    expect(r.format).toBe("cline");
    expect(r.warnings.filter((w) => !/no result in the next message/.test(w))).toEqual([]);
    expect(r.runs).toHaveLength(1);
    const events = r.runs[0].events;
    valid(events);
    expect(r.runs[0].runId).toBe("cline-1769064454592");
    const s = summarize(events);
    expect(s.modelCalls).toBe(api.filter((m) => m.role === "assistant").length);
    expect(s.modelCalls).toBe(requests.length);
    expect(s.toolCalls).toBe(toolUses.length);
    expect(s.toolFailures.error ?? 0).toBe(failedResults.length);
    expect(failedResults.length).toBeGreaterThan(0);
    expect(s.errors).toBe(0);
    expect(s.inputTokens).toBe(requests.reduce((n, q) => n + Number(q.tokensIn), 0));
    expect(s.outputTokens).toBe(requests.reduce((n, q) => n + Number(q.tokensOut), 0));
    const cost = of(events, "model.response").reduce((n, e) => n + Number(e.data.cost ?? 0), 0);
    expect(cost).toBeCloseTo(
      requests.reduce((n, q) => n + Number(q.cost), 0),
      9,
    );
    // neither file records when a request ended or how long a tool ran
    expect(latencies(events)).toEqual([]);
    // each tool_use joined to a result under its own call
    for (const u of toolUses) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === u.id);
      expect(call?.data.args).toEqual(u.input);
      const res = events.find((e) => e.type === "tool.result" && e.data.call === u.id);
      if (res) expect(res.parent).toBe(call?.seq);
    }
    // thinking apart from text
    const thinking = api.flatMap((m) => blocks(m)).filter((b) => b.type === "thinking" && String(b.thinking).trim());
    const withReasoning = of(events, "model.response").filter((e) => (e.data.output as Obj).reasoning);
    expect(withReasoning.length).toBe(thinking.length);
    // the request times are the api_req_started rows'
    const starts = ui.filter((r) => r.say === "api_req_started").map((r) => new Date(Number(r.ts)).toISOString());
    expect(of(events, "model.request").map((e) => e.ts)).toEqual(starts);
    // version and working directory as run facts
    const start = events[0].data as Obj;
    const env = (meta.environment_history as Obj[])[0];
    expect((start.agent as Obj).version).toBe(env.cline_version);
    expect((start.source as Obj).cwd).toBe(/# Current Working Directory \((.+?)\) Files/.exec(apiText)?.[1]);
  });

  it("the message history alone imports its calls and says the UI rows (times, tokens, retries) are missing", () => {
    const r = importTrace(apiText, { fileName: "api_conversation_history.json" });
    expect(r.warnings.some((w) => /ui_messages\.json is missing/.test(w))).toBe(true);
    const s = summarize(r.runs[0].events);
    expect(s.modelCalls).toBe(api.filter((m) => m.role === "assistant").length);
    expect(s.toolCalls).toBe(toolUses.length);
    valid(r.runs[0].events);
  });

  it("task_metadata.json alone is one clear error, not an empty import", () => {
    expect(() => importTrace(metaText, { fileName: "task_metadata.json" })).toThrow(/holds no messages/);
  });
});

describe("Cline ui_messages.json alone, with retried and failed requests", () => {
  const text = read("cline-ui-alone/ui_messages.json.gz");
  const ui = JSON.parse(text) as Obj[];
  const requests = ui.filter((r) => r.say === "api_req_started").map((r) => JSON.parse(String(r.text)) as Obj);
  const retried = ui.filter((r) => r.say === "error_retry" && (JSON.parse(String(r.text)) as Obj).failed !== true);
  const failed = ui.filter((r) => r.ask === "api_req_failed");

  it("imports a call per request with its tokens, every failed attempt as an error, and says the messages are missing", () => {
    expect(detectFormat(text).format).toBe("cline");
    const r = importTrace(text, { fileName: "ui_messages.json" });
    expect(r.warnings.some((w) => /api_conversation_history\.json is missing/.test(w))).toBe(true);
    const events = r.runs[0].events;
    valid(events);
    const s = summarize(events);
    expect(s.modelCalls).toBe(requests.length);
    expect(s.inputTokens).toBe(requests.reduce((n, q) => n + Number(q.tokensIn ?? 0), 0));
    expect(s.errors).toBe(retried.length + failed.length);
    expect(retried.length).toBeGreaterThan(10);
    expect(of(events, "error").filter((e) => e.data.retryable === true)).toHaveLength(retried.length + failed.length);
    expect(latencies(events)).toEqual([]);
  });
});

describe.each([
  ["roo-code-natural-mini/", "a short Ask-mode task"],
  ["roo-code-condensed/", "a condensed history: a summary message, 32 request rows for 15 answers"],
])("Roo Code task folder %s (%s): XML tool calls, no conversationHistoryIndex", (dir) => {
  const apiText = read(`${dir}api_conversation_history.json.gz`);
  const uiText = read(`${dir}ui_messages.json.gz`);
  const metaText = read(`${dir}task_metadata.json.gz`);
  const api = JSON.parse(apiText) as Obj[];
  const ui = JSON.parse(uiText) as Obj[];
  const texts = (m: Obj) =>
    typeof m.content === "string" ? [m.content] : (m.content as Obj[]).filter((b) => b.type === "text").map((b) => String(b.text));
  const assistants = api.filter((m) => m.role === "assistant");
  // the tool a message asks for: a line `<tool_name>` followed by a line `<param>` (the first per message)
  const toolOf = (m: Obj) => /^<([a-z_]+)>\n<[a-z_]+>/m.exec(texts(m).join("\n"))?.[1];
  const xmlTools = assistants.flatMap((m) => toolOf(m) ?? []);
  const RESULT = /^\[[a-z_]+(?: for .*?)?\] Result:/;
  // a call is answered when the next message holds a `[tool …] Result:` block
  const answered = api.filter((m, j) => m.role === "assistant" && toolOf(m) && api[j + 1] && texts(api[j + 1]).some((t) => RESULT.test(t)));
  const requests = ui.filter((r) => r.say === "api_req_started");
  const rowTimes = new Set(requests.map((q) => new Date(Number(q.ts)).toISOString()));
  const files = [
    { name: "tasks/roo/api_conversation_history.json", text: apiText },
    { name: "tasks/roo/ui_messages.json", text: uiText },
    { name: "tasks/roo/task_metadata.json", text: metaText },
  ];

  it("each file is told from its content", () => {
    expect(detectFormat(apiText, "a.json").format).toBe("cline");
    expect(detectFormat(uiText, "b.json").format).toBe("cline");
    expect(detectFormat(metaText, "c.json").format).toBe("cline");
  });

  it("imports each answer as a model call at its request row's time, and the XML tool calls with their results", () => {
    expect(ui.some((r) => "conversationHistoryIndex" in r)).toBe(false);
    const r = importSessionFiles(files);
    expect(r.runs).toHaveLength(1);
    const events = r.runs[0].events;
    valid(events);
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistants.length);
    expect(s.toolCalls).toBe(xmlTools.length);
    expect(xmlTools.length).toBeGreaterThan(5);
    expect(of(events, "tool.call").map((e) => e.data.tool)).toEqual(xmlTools);
    expect(of(events, "tool.result")).toHaveLength(answered.length);
    // each answer at its message's ts; each request at one of the api_req_started rows, before it
    const requested = of(events, "model.request");
    const responses = of(events, "model.response");
    expect(responses.map((e) => e.ts)).toEqual(assistants.map((m) => new Date(Number(m.ts)).toISOString()));
    for (const [i, q] of requested.entries()) {
      // a summary (`isSummary`) answers no row: its request is the message before it
      if (assistants[i].isSummary !== true) expect(rowTimes.has(q.ts), `request ${i}`).toBe(true);
      expect(q.ts <= responses[i].ts).toBe(true);
    }
    expect(latencies(events)).toEqual([]);
    expect(((events[0].data as Obj).agent as Obj).name).toBe("roo-code");
  });
});

describe("Roo Code task folder roo-code-natural-mini/: one request per answer", () => {
  const api = JSON.parse(read("roo-code-natural-mini/api_conversation_history.json.gz")) as Obj[];
  const ui = JSON.parse(read("roo-code-natural-mini/ui_messages.json.gz")) as Obj[];
  const requests = ui.filter((r) => r.say === "api_req_started");
  const failures = api
    .filter((m) => m.role === "user")
    .flatMap((m) => (m.content as Obj[]).map((b) => String(b.text ?? "")))
    .filter((t) => /^The tool execution failed/.test(t));

  it("the k-th request row is the k-th call, with its tokens; a refused tool is a failed result", () => {
    const r = importSessionFiles(
      ["api_conversation_history", "ui_messages", "task_metadata"].map((n) => ({
        name: `tasks/roo/${n}.json`,
        text: read(`roo-code-natural-mini/${n}.json.gz`),
      })),
    );
    const events = r.runs[0].events;
    const s = summarize(events);
    expect(s.modelCalls).toBe(requests.length);
    expect(of(events, "model.request").map((e) => e.ts)).toEqual(requests.map((q) => new Date(Number(q.ts)).toISOString()));
    expect(s.inputTokens).toBe(requests.reduce((n, q) => n + Number((JSON.parse(String(q.text)) as Obj).tokensIn ?? 0), 0));
    expect(s.toolFailures.error ?? 0).toBe(failures.length);
    expect(failures.length).toBe(1);
    // a result is the text after its `[tool for '…'] Result:` header: read_file's holds the file
    const readResult = of(events, "tool.result").find((e) => String(e.data.result).startsWith("[read_file for"));
    expect(String(readResult?.data.result)).toMatch(/<content lines=/);
  });
});

describe("Cline api_conversation_history.json alone, with each message's own ts", () => {
  const text = read("cline-api-alone/api_conversation_history.json.gz");
  const api = JSON.parse(text) as Obj[];
  const blocks = (m: Obj) => (Array.isArray(m.content) ? (m.content as Obj[]) : []);
  const uses = api.flatMap((m) => blocks(m).filter((b) => b.type === "tool_use"));
  // each call's result: a `[tool …] Result:` or `Tool [x] was not executed` text block of the next message, in order
  const answered = api.reduce((n, m, j) => {
    if (m.role !== "assistant") return n;
    const next = api[j + 1];
    const headers = next
      ? blocks(next).filter((b) => b.type === "text" && /^(\[[^\]]+?\] Result:|Tool \[[^\]]+\] was not executed)/.test(String(b.text)))
      : [];
    return n + Math.min(blocks(m).filter((b) => b.type === "tool_use").length, headers.length);
  }, 0);

  it("imports every model call and tool call at the messages' times, with their tokens", () => {
    expect(detectFormat(text, "history.json").format).toBe("cline");
    const r = importTrace(text, { fileName: "api_conversation_history.json" });
    expect(r.warnings.some((w) => /ui_messages\.json is missing.*times .* are the messages' own/.test(w))).toBe(true);
    const events = r.runs[0].events;
    valid(events);
    const s = summarize(events);
    const assistants = api.filter((m) => m.role === "assistant");
    expect(s.modelCalls).toBe(assistants.length);
    expect(s.toolCalls).toBe(uses.length);
    expect(of(events, "tool.result")).toHaveLength(answered);
    const tokens = (m: Obj) => ((m.metrics as Obj | undefined)?.tokens as Obj | undefined) ?? {};
    expect(s.inputTokens).toBe(assistants.reduce((n, m) => n + Number(tokens(m).prompt ?? 0), 0));
    expect(s.outputTokens).toBe(assistants.reduce((n, m) => n + Number(tokens(m).completion ?? 0), 0));
    // each answer at its message's ts, each request at the ts of the message before it
    expect(of(events, "model.response").map((e) => e.ts)).toEqual(assistants.map((m) => new Date(Number(m.ts)).toISOString()));
    const before = api.flatMap((m, j) => (m.role === "assistant" ? [api[j - 1]] : []));
    expect(of(events, "model.request").map((e) => e.ts)).toEqual(before.map((m) => new Date(Number(m.ts)).toISOString()));
    expect(latencies(events)).toEqual([]);
  });
});

/** `> Tokens: 3.2k sent, 222 received. Cost: $0.0014 message…` read with a regex. */
const tokenLines = (chat: string) =>
  [
    ...chat.matchAll(
      /^> Tokens: ([\d.]+)(k?) sent, (?:[\d.]+k? cache write, )?(?:[\d.]+k? cache hit, )?([\d.]+)(k?) received\.(?: Cost: \$([\d.]+) message)?/gm,
    ),
  ].map((m) => ({
    sent: Math.round(Number(m[1]) * (m[2] ? 1000 : 1)),
    received: Math.round(Number(m[3]) * (m[4] ? 1000 : 1)),
    cost: Number(m[5] ?? 0),
  }));
const ERROR_LINE =
  /^> (litellm\.\w+Error|The API provider |The LLM did not conform|Failed to apply edit|# \d+ SEARCH\/REPLACE blocks? failed to match)/gm;

describe("Aider: .aider.chat.history.md with .aider.llm.history", () => {
  const chat = read("aider-calculator/.aider.chat.history.md");
  const llm = read("aider-calculator/.aider.llm.history.gz");
  const tokens = tokenLines(chat);
  const edits = chat.match(/^> Applied edit to /gm) ?? [];
  const commits = chat.match(/^> Commit [0-9a-f]{7,40} /gm) ?? [];
  const errors = chat.match(ERROR_LINE) ?? [];
  // each `TO LLM t0` and the `LLM RESPONSE t1` after it: the call took t1 − t0
  const pairs = [...llm.matchAll(/^TO LLM (\S+)\n[\s\S]*?^LLM RESPONSE (\S+)$/gm)].map(
    (m) => Date.parse(`${m[2]}Z`) - Date.parse(`${m[1]}Z`),
  );

  it("both files are told from their content", () => {
    expect(detectFormat(chat, "notes.md").format).toBe("aider");
    expect(detectFormat(llm, "log.txt").format).toBe("aider");
  });

  it("imports every answer with its usage and cost, edits and commits as tool calls, errors, and durations from the LLM log", () => {
    const r = importSessionFiles([
      { name: "calculator/.aider.chat.history.md", text: chat },
      { name: "calculator/.aider.llm.history", text: llm },
    ]);
    expect(r.format).toBe("aider");
    expect(r.warnings).toEqual([]);
    expect(r.runs).toHaveLength((chat.match(/^# aider chat started at /gm) ?? []).length);
    const events = r.runs[0].events;
    valid(events);
    const responses = of(events, "model.response");
    const withUsage = responses.filter((e) => e.data.usage !== undefined);
    expect(withUsage).toHaveLength(tokens.length);
    const s = summarize(events);
    expect(s.inputTokens).toBe(tokens.reduce((n, t) => n + t.sent, 0));
    expect(s.outputTokens).toBe(tokens.reduce((n, t) => n + t.received, 0));
    expect(responses.reduce((n, e) => n + Number(e.data.cost ?? 0), 0)).toBeCloseTo(
      tokens.reduce((n, t) => n + t.cost, 0),
      9,
    );
    expect(s.toolCalls).toBe(edits.length + commits.length);
    expect(s.errors).toBe(errors.length);
    expect(errors.length).toBeGreaterThan(5);
    // every answer the LLM log holds is a model call timed from its request to its answer
    const ms = responses.filter((e) => e.data.latencyMs !== undefined).map((e) => Number(e.data.latencyMs));
    expect(ms.sort((a, b) => a - b)).toEqual([...pairs].sort((a, b) => a - b));
    expect(pairs).toHaveLength((llm.match(/^LLM RESPONSE /gm) ?? []).length);
    // a model call's request and answer events stand at the times the log gives
    const first = of(events, "model.request").find((e) => (e.data.messages as unknown[]).length > 0);
    expect(first?.ts).toBe(new Date(`${/^TO LLM (\S+)$/m.exec(llm)?.[1]}Z`).toISOString());
    // a <think> block is reasoning, not text
    const thought = responses.filter((e) => (e.data.output as Obj).reasoning);
    expect(thought.length).toBe((chat.match(/^<think>$/gm) ?? []).length);
    for (const e of thought) expect(String((e.data.output as Obj).text)).not.toMatch(/^<think>/);
    // version and model as run facts
    const start = events[0].data as Obj;
    expect((start.agent as Obj).version).toBe(/^> Aider v(\S+)/m.exec(chat)?.[1]);
  });

  it("the chat history alone has no durations and says the LLM log is missing", () => {
    const r = importTrace(chat, { fileName: ".aider.chat.history.md" });
    expect(r.warnings.some((w) => /\.aider\.llm\.history is missing/.test(w))).toBe(true);
    const events = r.runs[0].events;
    expect(of(events, "model.response").filter((e) => e.data.usage !== undefined)).toHaveLength(tokens.length);
    expect(latencies(events)).toEqual([]);
  });
});

describe("Aider, other public histories", () => {
  it("a chat history from another project: its answers, edits and commits", () => {
    const chat = read("aider-iot/.aider.chat.history.md");
    const r = importTrace(chat, { fileName: ".aider.chat.history.md" });
    const events = r.runs.flatMap((x) => x.events);
    valid(events);
    const s = summarize(events);
    expect(of(events, "model.response").filter((e) => e.data.usage !== undefined)).toHaveLength(tokenLines(chat).length);
    expect(s.toolCalls).toBe((chat.match(/^> (Applied edit to |Commit [0-9a-f]{7,40} )/gm) ?? []).length);
    expect(s.errors).toBe((chat.match(ERROR_LINE) ?? []).length);
  });

  it("sessions opened and closed without a message are left out and counted", () => {
    const chat = read("aider-empty/.aider.chat.history.md");
    const r = importTrace(chat, { fileName: ".aider.chat.history.md" });
    expect(r.runs).toHaveLength(0);
    expect(r.warnings.join("\n")).toMatch(
      new RegExp(`${(chat.match(/^# aider chat started at /gm) ?? []).length} session\\(s\\) .* hold no message`),
    );
  });

  it("the LLM log alone: every request a model call, timed, and it says the chat is missing", () => {
    const llm = read("aider-llm-alone/.aider.llm.history.gz");
    const r = importTrace(llm, { fileName: ".aider.llm.history" });
    expect(r.warnings.some((w) => /chat\.history\.md is missing/.test(w))).toBe(true);
    const events = r.runs[0].events;
    valid(events);
    expect(summarize(events).modelCalls).toBe((llm.match(/^TO LLM /gm) ?? []).length);
    const answered = (llm.match(/^LLM RESPONSE /gm) ?? []).length;
    expect(latencies(events)).toHaveLength(answered);
  });
});

describe("a folder of session files (the upload's zip; `retrace import DIR` zips the folder)", () => {
  const zip = (members: Record<string, Uint8Array>) => zipSync(members);
  const enc = (s: string) => new TextEncoder().encode(s);

  it("a zip holding a Cline task, an Aider history and an unknown file imports both sessions and counts the file left out", async () => {
    const z = zip({
      "tasks/1769064454592/api_conversation_history.json": bytes("cline/1769064454592/api_conversation_history.json.gz"),
      "tasks/1769064454592/ui_messages.json": bytes("cline/1769064454592/ui_messages.json.gz"),
      "project/.aider.chat.history.md": bytes("aider-iot/.aider.chat.history.md"),
      "project/notes.txt": enc("just some notes\n"),
    });
    expect(detectBytes(z.subarray(0, 256 * 1024), "session.zip").format).toBe("session-folder");
    const r = await importTraceStreamWhole(chunks(z), { fileName: "session.zip" });
    const runs = r.runs;
    expect(runs.map((x) => x.runId.split("-")[0]).sort()).toEqual(["aider", "cline"]);
    expect(r.warnings.join("\n")).toMatch(/1 file\(s\) in the folder are in no format Retrace reads/);
  });

  it("a zip with nothing Retrace reads says so, in one error", async () => {
    const z = zip({ "a/settings.json": enc('{"theme":"dark"}'), "b/log.md": enc("# notes\n") });
    expect(detectBytes(z, "stuff.zip").format).toBe("session-folder");
    await expect(importTraceStream(chunks(z), { fileName: "stuff.zip" })).rejects.toThrow(ImportError);
    await expect(importTraceStream(chunks(z), { fileName: "stuff.zip" })).rejects.toThrow(
      /the folder holds nothing Retrace reads \(2 files looked at/,
    );
    // a zip of files none of which could hold a session is the one not-recognised error, naming its members
    const other = zip({ "a/readme.txt": enc("hello\n") });
    expect(detectBytes(other, "other.zip")).toMatchObject({
      format: "unknown",
      message: expect.stringMatching(/a ZIP archive with members a\/readme\.txt/),
    });
  });

  it("an unknown single file still gets the one not-recognised error", () => {
    expect(detectFormat("just text, no format\n").message).toMatch(/was not recognised: it looks like text that is not JSON/);
  });
});
