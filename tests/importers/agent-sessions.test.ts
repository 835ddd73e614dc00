/**
 * Claude Code sessions and Codex CLI rollouts from tests/fixtures/corpus (copies of
 * /work/shared/corpus, see SOURCES.md): detected from their content, and every count
 * expected here is read off the raw file by a small walk in this test, never taken from
 * the importer's output.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace } from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { readCorpus, summarize } from "./helpers";

type Obj = Record<string, unknown>;
const lines = (rel: string): Obj[] =>
  readCorpus(rel)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Obj);
const blocks = (l: Obj): Obj[] => {
  const c = (l.message as Obj | undefined)?.content;
  return Array.isArray(c) ? (c as Obj[]) : [];
};

function valid(events: JournalEvent[]) {
  for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
}

const CLAUDE = ["claude-code/claude-code-viewer-5c0375b4-orchestrator.jsonl", "claude-code/codemie-session-9eda1058.jsonl"];

describe("Claude Code sessions", () => {
  for (const rel of CLAUDE) {
    it(`${rel}: responses, tool calls joined with their results, errors`, () => {
      const raw = lines(rel);
      const assistant = raw.filter((l) => l.type === "assistant");
      const responseIds = new Set(assistant.map((l) => (l.message as Obj).id));
      const uses = raw.flatMap(blocks).filter((b) => b.type === "tool_use");
      const results = raw.flatMap(blocks).filter((b) => b.type === "tool_result");
      const failed = results.filter((b) => b.is_error === true).length;
      const session = raw.find((l) => typeof l.sessionId === "string")?.sessionId;

      expect(detectFormat(readCorpus(rel), rel).format).toBe("claude-code");
      const r = importTrace(readCorpus(rel), { fileName: rel });
      expect(r.runs).toHaveLength(1);
      const events = r.runs[0].events;
      valid(events);
      expect(r.runs[0].runId).toBe(`claude-${String(session)}`);
      const s = summarize(events);
      expect(s.modelCalls).toBe(responseIds.size);
      expect(s.toolCalls).toBe(uses.length);
      expect(events.filter((e) => e.type === "tool.result")).toHaveLength(results.length);
      expect(s.toolFailures.error ?? 0).toBe(failed);
      // every result follows its own call, joined by the tool_use id
      for (const u of uses) {
        const call = events.find((e) => e.type === "tool.call" && e.data.call === u.id);
        const res = events.find((e) => e.type === "tool.result" && e.data.call === u.id);
        expect(call?.data.tool).toBe(u.name);
        expect(call?.data.args).toEqual(u.input);
        expect(res && call && res.seq > call.seq && res.parent === call.seq).toBe(true);
      }
      // usage of each response: its last line's
      const last = new Map<unknown, Obj>();
      for (const l of assistant) last.set((l.message as Obj).id, (l.message as Obj).usage as Obj);
      const outTokens = [...last.values()].reduce((n, u) => n + Number(u.output_tokens ?? 0), 0);
      expect(s.outputTokens).toBe(outTokens);
      // the model of every response is named
      const models = new Set(assistant.map((l) => (l.message as Obj).model));
      expect(Object.keys((events[0].data.versions as { models: Obj }).models).sort()).toEqual([...models].sort());
    });
  }

  it("sidechain (Task sub-agent) lines are child steps of the Task call that started them", () => {
    const rel = CLAUDE[0];
    const raw = lines(rel);
    // a sidechain starts at a sidechain line with no parent; 22 sidechain lines, 2 chains
    const roots = raw.filter((l) => l.isSidechain === true && l.parentUuid === null);
    expect(raw.filter((l) => l.isSidechain === true)).toHaveLength(22);
    expect(roots).toHaveLength(2);
    const events = importTrace(readCorpus(rel), { fileName: rel }).runs[0].events;
    const agents = events.filter((e) => e.type === "step.start" && e.data.kind === "agent");
    expect(agents).toHaveLength(roots.length);
    for (const a of agents) {
      const parent = events[a.parent ?? -1];
      expect(parent.type).toBe("step.start");
      expect(parent.data.name).toBe("Task");
    }
    // the sub-agent's own tool calls (sidechain tool_use blocks) sit under its step
    const scUses = raw
      .filter((l) => l.isSidechain === true)
      .flatMap(blocks)
      .filter((b) => b.type === "tool_use");
    const agentSeqs = new Set(agents.map((a) => a.seq));
    for (const u of scUses) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === u.id);
      const stepStart = events[call?.parent ?? -1];
      expect(stepStart.parent !== undefined && agentSeqs.has(stepStart.parent)).toBe(true);
    }
  });

  it("thinking is kept on the response; writes are marked as inferred writes", () => {
    const rel = CLAUDE[1];
    const thinking = lines(rel)
      .flatMap(blocks)
      .filter((b) => b.type === "thinking")
      .map((b) => b.thinking);
    expect(thinking.length).toBeGreaterThan(0);
    const events = importTrace(readCorpus(rel), { fileName: rel }).runs[0].events;
    const reasoning = events.filter((e) => e.type === "model.response").map((e) => (e.data.output as Obj | undefined)?.reasoning);
    for (const t of thinking) expect(reasoning).toContain(t);
    const write = events.find((e) => e.type === "tool.call" && e.data.tool === "Write");
    expect(write?.data).toMatchObject({ effect: "write", effectInferred: true });
    const task = events.find((e) => e.type === "tool.call" && e.data.tool === "Task");
    expect(task?.data).toMatchObject({ effect: "read", effectInferred: true });
  });
});

const CODEX = {
  old: "codex/codex-session-view-rollout-019a93b9-cli-0.58.jsonl",
  new: "codex/codemie-rollout-019e1625-codex-tui-0.125.jsonl",
};

describe("Claude Code 2.1 line types", () => {
  // Claude Code 2.1.x starts a session with bookkeeping lines (file history, hook progress,
  // queue operations) and writes more of them between turns; shaped as 2.1.75–2.1.128 write them
  const session = String(lines(CLAUDE[1]).find((l) => typeof l.sessionId === "string")?.sessionId);
  const bookkeeping = [
    {
      type: "file-history-snapshot",
      messageId: "m-1",
      snapshot: { messageId: "m-1", trackedFileBackups: {}, timestamp: "2026-03-17T12:00:28.000Z" },
      isSnapshotUpdate: false,
    },
    { type: "queue-operation", operation: "enqueue", timestamp: "2026-03-17T12:00:28.839Z", sessionId: session, content: "hello" },
    {
      parentUuid: null,
      isSidechain: false,
      type: "progress",
      data: { type: "hook_progress", hookEvent: "SessionStart", hookName: "SessionStart:startup", command: "hook.sh" },
      timestamp: "2026-03-17T12:00:28.201Z",
      uuid: "p-1",
      cwd: "/w",
      sessionId: session,
      version: "2.1.75",
    },
    { type: "permission-mode", permissionMode: "default", sessionId: session },
  ].map((l) => JSON.stringify(l));
  const tail = [
    { type: "last-prompt", lastPrompt: "x", leafUuid: "p-1", sessionId: session },
    { type: "made-up-type", sessionId: session },
  ].map((l) => JSON.stringify(l));
  const text = [...bookkeeping, readCorpus(CLAUDE[1]).trim(), ...tail].join("\n");

  it("a session that opens with file-history and progress lines is detected and imported whole", () => {
    const raw = lines(CLAUDE[1]);
    const uses = raw.flatMap(blocks).filter((b) => b.type === "tool_use");
    expect(detectFormat(text, "s.jsonl").format).toBe("claude-code");
    const r = importTrace(text, { fileName: "s.jsonl" });
    expect(r.runs[0].runId).toBe(`claude-${session}`);
    expect(summarize(r.runs[0].events).toolCalls).toBe(uses.length);
    valid(r.runs[0].events);
  });

  it("known bookkeeping lines are skipped by name; an unknown type is named in one warning", () => {
    const r = importTrace(text, { fileName: "s.jsonl" });
    const about = r.warnings.filter((w) => w.includes("type"));
    expect(about).toHaveLength(1);
    expect(about[0]).toContain('"made-up-type"');
    for (const t of ["progress", "queue-operation", "file-history-snapshot", "last-prompt", "permission-mode"])
      expect(about[0]).not.toContain(`"${t}"`);
  });
});

describe("Codex CLI rollouts (0.58 and 0.125)", () => {
  for (const rel of Object.values(CODEX)) {
    it(`${rel}: one model call per usage report, tool calls joined by call_id, failed commands`, () => {
      const raw = lines(rel);
      const payloads = raw.map((l) => ({ type: l.type, p: l.payload as Obj }));
      const items = payloads.filter((x) => x.type === "response_item").map((x) => x.p);
      const toolItems = items.filter((p) => ["function_call", "custom_tool_call", "web_search_call"].includes(String(p.type)));
      // model calls: each token_count report with a new running total (0.58 writes each twice)
      const totals = payloads
        .filter((x) => x.type === "event_msg" && x.p.type === "token_count" && x.p.info)
        .map((x) => JSON.stringify((x.p.info as Obj).total_token_usage));
      const calls = totals.filter((t, i) => t !== totals[i - 1]).length;
      // failures: exec_command_end with a non-zero exit (0.125); output metadata.exit_code (0.58)
      const execFailed = payloads.filter((x) => x.p.type === "exec_command_end" && x.p.exit_code !== 0).length;
      const metaFailed = items
        .filter((p) => p.type === "function_call_output")
        .filter((p) => {
          try {
            const o = JSON.parse(String(p.output)) as Obj;
            return (o.metadata as Obj | undefined)?.exit_code !== undefined && (o.metadata as Obj).exit_code !== 0;
          } catch {
            return false;
          }
        }).length;
      const patchFailed = payloads.filter((x) => x.p.type === "patch_apply_end" && x.p.success === false).length;
      const session = (raw[0].payload as Obj).id;

      expect(detectFormat(readCorpus(rel), rel).format).toBe("codex");
      const r = importTrace(readCorpus(rel), { fileName: rel });
      const events = r.runs[0].events;
      valid(events);
      expect(r.runs[0].runId).toBe(`codex-${String(session)}`);
      const s = summarize(events);
      expect(s.modelCalls).toBe(calls);
      expect(s.toolCalls).toBe(toolItems.length);
      expect(s.toolFailures.error ?? 0).toBe(execFailed + metaFailed + patchFailed);
      // arguments are objects, decoded from the JSON string the rollout holds
      const fc = items.find((p) => p.type === "function_call");
      const call = events.find((e) => e.type === "tool.call" && e.data.call === fc?.call_id);
      expect(call?.data.args).toEqual(JSON.parse(String(fc?.arguments)));
      // each call comes after the model response that asked for it
      for (const c of events.filter((e) => e.type === "tool.call")) {
        const resp = events.find(
          (e) =>
            e.type === "model.response" &&
            ((e.data.output as Obj | undefined)?.toolCalls as Obj[] | undefined)?.some((t) => t.id === c.data.call),
        );
        expect(resp && resp.seq < c.seq).toBe(true);
      }
    });
  }

  it("the 0.58 shape: every shell call is counted, and one that writes files is a write", () => {
    const events = importTrace(readCorpus(CODEX.old), { fileName: CODEX.old }).runs[0].events;
    const shell = events.filter((e) => e.type === "tool.call" && e.data.tool === "shell");
    const raw = lines(CODEX.old).filter((l) => (l.payload as Obj).type === "function_call" && (l.payload as Obj).name === "shell");
    expect(shell).toHaveLength(raw.length);
    // a shell call that redirects into a file or runs sed -i is a write
    for (const e of shell) {
      const cmd = ((e.data.args as Obj).command as string[]).join(" ");
      if (/sed -i|apply_patch|> [^&]/.test(cmd)) expect(e.data.effect).toBe("write");
    }
  });
});
