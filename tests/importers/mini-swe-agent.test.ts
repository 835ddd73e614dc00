/**
 * mini-swe-agent trajectories: three real message lists from the project's own test data (the
 * earliest, ```bash blocks and 2.x ```mswea_bash_command blocks; tests/fixtures/corpus/SOURCES.md) and 2.x / 1.x envelopes built here in the layout of the
 * project's example trajectory (`eval/example_trajectories/*.traj.json`, mini 2.3.0). Every
 * expected value is read off the raw document with plain JSON, never from the importer's output.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { ImportError, importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { readCorpus, summarize } from "./helpers";

type Obj = Record<string, unknown>;
const BLOCK = /```(?:bash|mswea_bash_command)\n([\s\S]*?)\n```/g;
const blocks = (m: Obj) => [...String(m.content).matchAll(BLOCK)].map((x) => x[1]);
const valid = (events: JournalEvent[]) => {
  for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
};

describe("mini-swe-agent bare message list (text actions)", () => {
  const text = readCorpus("mini-swe-agent/github-issue.traj.json");
  const raw = JSON.parse(text) as Obj[];
  const assistants = raw.filter((m) => m.role === "assistant");
  // each assistant reply's observation is the user message right after it
  const observed = raw.flatMap((m, i) => (m.role === "assistant" && raw[i + 1]?.role === "user" ? [raw[i + 1]] : []));
  const nonZero = observed.filter((o) => !/<returncode>0<\/returncode>/.test(String(o.content)));

  it("is detected from its content and imports each reply as a model call with its command and observation", () => {
    expect(detectFormat(text).format).toBe("mini-swe-agent");
    const r = importTrace(text, { fileName: "github_issue.traj.json" });
    expect(r.format).toBe("mini-swe-agent");
    const events = r.runs[0].events;
    valid(events);
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistants.length);
    expect(s.toolCalls).toBe(assistants.filter((m) => blocks(m).length === 1).length);
    expect(s.toolFailures.error ?? 0).toBe(nonZero.length);
    expect(nonZero.length).toBeGreaterThan(0);
    expect(s.inputs).toBe(1);
    // the commands, in order, and each result joined to its own call
    const calls = events.filter((e) => e.type === "tool.call");
    expect(calls.map((c) => (c.data.args as Obj).command)).toEqual(assistants.map((m) => blocks(m)[0]));
    for (const res of events.filter((e) => e.type === "tool.result")) {
      const call = calls.find((c) => c.data.call === res.data.call);
      expect(res.parent).toBe(call?.seq);
    }
    expect(events.filter((e) => e.type === "tool.result").map((e) => e.data.result)).toEqual(observed.map((o) => o.content));
    // sed -i and a heredoc into a file write
    const writes = calls.filter((c) => c.data.effect === "write").map((c) => String((c.data.args as Obj).command));
    expect(writes.some((w) => w.startsWith("sed -i"))).toBe(true);
    expect(writes.some((w) => w.startsWith("cat > tests/"))).toBe(true);
  });

  it("says what the file does not record: times, the exit status and the submit command's output", () => {
    const r = importTrace(text, { fileName: "github_issue.traj.json" });
    const events = r.runs[0].events;
    expect(events[0].data.source).toMatchObject({ timestamps: "synthetic" });
    expect(r.warnings.some((w) => /no timestamps/.test(w))).toBe(true);
    expect(r.warnings.some((w) => /no recorded output/.test(w))).toBe(true);
    // the last reply is the submit marker, so the run submitted
    expect(blocks(assistants[assistants.length - 1])[0]).toMatch(/COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT/);
    expect(events[events.length - 1].data.status).toBe("succeeded");
    expect(r.runs[0].runId).toMatch(/^mini-github_issue-[0-9a-f]{8}$/);
    for (const e of events) expect(e.data.latencyMs).toBeUndefined();
  });

  it("reads the earliest list, whose observation is a Python dict", () => {
    const small = readCorpus("mini-swe-agent/local.traj.json");
    const list = JSON.parse(small) as Obj[];
    const r = importTrace(small, { fileName: "local.traj.json" });
    const s = summarize(r.runs[0].events);
    expect(s.modelCalls).toBe(list.filter((m) => m.role === "assistant").length);
    expect(s.toolCalls).toBe(s.modelCalls);
    expect(s.toolFailures).toEqual({});
    expect(s.status).toBe("succeeded");
  });

  it("reads the 2.x text-based list (```mswea_bash_command blocks), whose submit command's output is the patch", () => {
    const t2 = readCorpus("mini-swe-agent/github-issue-mswea.traj.json");
    const list = JSON.parse(t2) as Obj[];
    expect(detectFormat(t2).format).toBe("mini-swe-agent");
    const r = importTrace(t2, { fileName: "github_issue.traj.json" });
    const events = r.runs[0].events;
    valid(events);
    const replies = list.filter((m) => m.role === "assistant");
    const s = summarize(events);
    expect(s.modelCalls).toBe(replies.length);
    expect(s.toolCalls).toBe(replies.filter((m) => blocks(m).length === 1).length);
    const obs = list.flatMap((m, i) => (m.role === "assistant" && list[i + 1]?.role === "user" ? [list[i + 1]] : []));
    expect(s.toolFailures.error ?? 0).toBe(obs.filter((o) => /<returncode>[1-9]/.test(String(o.content))).length);
    const last = events.filter((e) => e.type === "tool.result").pop();
    expect(last?.data.result).toBe(list[list.length - 1].content);
    expect(s.status).toBe("succeeded");
  });

  it("leaves a plain chat message list without mini-swe-agent's marks to the other detectors", () => {
    const chat = JSON.stringify([
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
    ]);
    expect(detectFormat(chat).format).toBe("unknown");
    expect(detectFormat(chat, "chat.traj.json").format).toBe("mini-swe-agent");
  });
});

/** A 2.x trajectory in the layout of `eval/example_trajectories/astropy__astropy-12907.traj.json`. */
function v2(): Obj {
  const call = (id: string, command: string) => ({
    index: 0,
    function: { arguments: JSON.stringify({ command }), name: "bash" },
    id,
    type: "function",
  });
  const assistant = (calls: Obj[], usage: Obj, cost: number, timestamp: number, content = "") => ({
    content,
    role: "assistant",
    tool_calls: calls,
    extra: {
      actions: calls.map((c) => ({ command: JSON.parse(String((c.function as Obj).arguments)).command, tool_call_id: c.id })),
      response: { id: "r", model: "deepseek-v4-flash", usage },
      cost,
      timestamp,
    },
  });
  const tool = (id: string, output: string, returncode: number, timestamp: number, exception = "") => ({
    content: `<returncode>${returncode}</returncode>\n<output>\n${output}</output>`,
    extra: { raw_output: output, returncode, timestamp, exception_info: exception },
    tool_call_id: id,
    role: "tool",
  });
  return {
    info: {
      model_stats: { instance_cost: 0.0123, api_calls: 3 },
      config: { model: { model_name: "deepseek/deepseek-chat" }, agent_type: "minisweagent.agents.default.DefaultAgent" },
      mini_version: "2.3.0",
      exit_status: "Submitted",
      submission: "--- a/x.py\n+++ b/x.py\n",
    },
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "<pr_description>fix x</pr_description>" },
      assistant(
        [call("call_00_a", "grep -rn x ."), call("call_01_b", "python repro.py")],
        { prompt_tokens: 1798, completion_tokens: 54, prompt_tokens_details: { cached_tokens: 1792 } },
        0.0001,
        1780680349.441,
        "Looking around.",
      ),
      tool("call_00_a", "./x.py\n", 0, 1780680349.63),
      tool("call_01_b", "Traceback\n", 1, 1780680350.12),
      {
        role: "assistant",
        content: "I think it is done.",
        extra: {
          response: { model: "deepseek-v4-flash", usage: { prompt_tokens: 1900, completion_tokens: 8 } },
          cost: 0.00005,
          timestamp: 1780680352.5,
        },
      },
      {
        role: "user",
        content: "Tool call error:\n\n<error>\nNo tool calls found in the response.\n</error>",
        extra: { interrupt_type: "FormatError", timestamp: 1780680352.6 },
      },
      assistant([call("call_00_c", "sleep 100")], { prompt_tokens: 2000, completion_tokens: 20 }, 0.0002, 1780680355, ""),
      tool("call_00_c", "", -1, 1780680415.5, "The command timed out"),
      assistant(
        [call("call_00_d", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt")],
        { prompt_tokens: 2100, completion_tokens: 30 },
        0.0003,
        1780680420,
      ),
      { role: "exit", content: "--- a/x.py\n+++ b/x.py\n", extra: { exit_status: "Submitted", submission: "--- a/x.py\n+++ b/x.py\n" } },
    ],
    trajectory_format: "mini-swe-agent-1.1",
  };
}

describe("mini-swe-agent 2.x trajectory (tool calls)", () => {
  const doc = v2();
  const text = JSON.stringify(doc, null, 2);
  const msgs = doc.messages as Obj[];
  const info = doc.info as Obj;
  const assistants = msgs.filter((m) => m.role === "assistant");
  const tools = msgs.filter((m) => m.role === "tool");
  const calls = assistants.flatMap((m) => (m.tool_calls as Obj[] | undefined) ?? []);

  it("imports each response with its usage and cost, and each tool call joined to its result by id", () => {
    expect(detectFormat(text).format).toBe("mini-swe-agent");
    const r = importTrace(text, { fileName: "astropy__astropy-1.traj.json" });
    expect(r.warnings).toEqual([]);
    const events = r.runs[0].events;
    valid(events);
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistants.length);
    expect(s.toolCalls).toBe(calls.length);
    const usage = assistants.map((m) => ((m.extra as Obj).response as Obj).usage as Obj);
    expect(s.inputTokens).toBe(usage.reduce((n, u) => n + Number(u.prompt_tokens), 0));
    expect(s.outputTokens).toBe(usage.reduce((n, u) => n + Number(u.completion_tokens), 0));
    const costs = events.filter((e) => e.type === "model.response").map((e) => e.data.cost);
    expect(costs).toEqual(assistants.map((m) => (m.extra as Obj).cost));
    for (const t of tools) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === t.tool_call_id);
      const res = events.find((e) => e.type === "tool.result" && e.data.call === t.tool_call_id);
      expect(res?.parent).toBe(call?.seq);
      expect(res?.data.result).toBe(t.content);
    }
    // a non-zero return code fails, an exception that timed out is a timeout
    const failing = tools.filter((t) => (t.extra as Obj).returncode !== 0 && !(t.extra as Obj).exception_info);
    expect(s.toolFailures.error).toBe(failing.length);
    expect(s.toolFailures.timeout).toBe(tools.filter((t) => /timed out/.test(String((t.extra as Obj).exception_info))).length);
    // the reply without a tool call was answered by a format error
    expect(events.filter((e) => e.type === "error").length).toBe(assistants.filter((m) => !m.tool_calls).length);
    // the submit command's output is the exit message's submission
    const exitMsg = msgs.find((m) => m.role === "exit");
    const submit = calls[calls.length - 1];
    expect(tools.some((t) => t.tool_call_id === submit.id)).toBe(false);
    expect(events.find((e) => e.type === "tool.result" && e.data.call === submit.id)?.data.result).toBe(exitMsg?.content);
  });

  it("takes the run's facts and times from the file, and gives no latency it does not record", () => {
    const r = importTrace(text, { fileName: "astropy__astropy-1.traj.json" });
    const events = r.runs[0].events;
    const start = events[0];
    const end = events[events.length - 1];
    expect(start.data.agent).toEqual({ name: "mini-swe-agent", version: info.mini_version });
    expect(start.data.input).toBe(msgs.find((m) => m.role === "user")?.content);
    expect(end.data.status).toBe("succeeded");
    expect(end.data.exitStatus).toBe(info.exit_status);
    expect(end.data.output).toBe(info.submission);
    const stats = info.model_stats as Obj;
    expect(end.data.usage).toEqual({ cost: stats.instance_cost, apiCalls: stats.api_calls });
    const firstResponse = events.find((e) => e.type === "model.response");
    const ts = Number((assistants[0].extra as Obj).timestamp);
    expect(firstResponse?.ts).toBe(new Date(Math.floor(ts * 1000)).toISOString());
    const lastTool = tools[tools.length - 1];
    const lastResult = events.find((e) => e.type === "tool.result" && e.data.call === lastTool.tool_call_id);
    expect(lastResult?.ts).toBe(new Date(Math.floor(Number((lastTool.extra as Obj).timestamp) * 1000)).toISOString());
    for (const e of events) expect(e.data.latencyMs).toBeUndefined();
    expect(start.data.source).not.toMatchObject({ timestamps: "synthetic" });
  });

  it("reads a 1.x envelope (text actions) and fails a run that ran out of limits", () => {
    const doc1 = {
      info: { exit_status: "LimitsExceeded", submission: "", model_stats: { instance_cost: 0.5, api_calls: 2 }, mini_version: "1.7.0" },
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "task" },
        { role: "assistant", content: "THOUGHT: look\n\n```bash\nls\n```" },
        { role: "user", content: "<returncode>0</returncode>\n<output>\na.py\n</output>" },
        { role: "assistant", content: "two at once\n\n```bash\nls\n```\n\n```bash\npwd\n```" },
        { role: "user", content: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions." },
      ],
      trajectory_format: "mini-swe-agent-1",
    };
    const t1 = JSON.stringify(doc1);
    expect(detectFormat(t1).format).toBe("mini-swe-agent");
    const r = importTrace(t1, { fileName: "x.traj.json" });
    const s = summarize(r.runs[0].events);
    const replies = doc1.messages.filter((m) => m.role === "assistant");
    expect(s.modelCalls).toBe(replies.length);
    expect(s.toolCalls).toBe(replies.filter((m) => blocks(m).length === 1).length);
    expect(s.errors).toBe(replies.filter((m) => blocks(m).length !== 1).length);
    expect(s.status).toBe("failed");
    expect(r.runs[0].events.at(-1)?.data.exitStatus).toBe(doc1.info.exit_status);
  });

  it("refuses a truncated trajectory with a clear error", () => {
    expect(() => importTrace(text.slice(0, text.length / 2), { fileName: "t.traj.json" })).toThrow(ImportError);
    expect(() => importTrace(text.slice(0, text.length / 2), { fileName: "t.traj.json" })).toThrow(/mini-swe-agent.*not valid JSON/);
  });
});
