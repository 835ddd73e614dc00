/**
 * Inferred effects (lib/importers/effects.ts: the verb list, editor commands, shell commands
 * that write) on the importers that had every tool `read`, and run ids that stay apart for
 * two files of one benchmark instance while re-importing one file gives the same id.
 */
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { importTrace } from "@/lib/importers";
import { inferEffect } from "@/lib/importers/effects";
import { readCorpus } from "./helpers";

type Obj = Record<string, unknown>;

describe("inferEffect", () => {
  it.each([
    ["write_file", {}, "write"],
    ["TodoWrite", { todos: [] }, "read"],
    ["update_plan", { plan: [] }, "read"],
    ["write_todos", {}, "read"],
    ["todo_write_to_jira", {}, "write"],
    ["book_reservation", {}, "write"],
    ["update_reservation_flights", {}, "write"],
    ["apply_patch", {}, "write"],
    ["send_email", {}, "write"],
    ["get_order_details", {}, "read"],
    ["search_direct_flight", {}, "read"],
    ["Read", {}, "read"],
    ["bash", { command: "echo hi > notes.txt" }, "write"],
    ["bash", { command: "sed -i 's/a/b/' x.py" }, "write"],
    ["exec_command", { cmd: "git commit -m x" }, "write"],
    ["shell", { command: ["bash", "-lc", "rm -rf build"] }, "write"],
    ["bash", { command: "ls -la 2>&1 | head" }, "read"],
    ["bash", { command: "grep -r foo . >/dev/null" }, "read"],
    ["str_replace_editor", { command: "create", path: "/a.py" }, "write"],
    ["str_replace_editor", { command: "view", path: "/a.py" }, "read"],
  ])("%s %j is %s, inferred", (tool, args, effect) => {
    expect(inferEffect(tool, args)).toMatchObject({ effect, effectInferred: true });
  });

  it("a coding agent's bookkeeping (todo list, plan) is no external write", () => {
    expect(inferEffect("TodoWrite", { todos: [] }).effectReason).toMatch(/bookkeeping/);
  });

  it("a real Claude Code session's TodoWrite calls get no idempotency finding", () => {
    const rel = "claude-code/claude-code-viewer-5c0375b4-orchestrator.jsonl";
    const todo = readCorpus(rel)
      .split("\n")
      .filter((l) => l.includes('"name":"TodoWrite"')).length;
    const events = importTrace(readCorpus(rel), { fileName: rel }).runs[0].events;
    const calls = events.filter((e) => e.type === "tool.call" && e.data.tool === "TodoWrite");
    expect(calls.length).toBe(todo);
    for (const c of calls) expect(c.data.effect).toBe("read");
    const todoSeqs = new Set(calls.map((c) => c.seq));
    const flagged = analyzeEvents(events).filter((f) => f.rule === "effect.no-idempotency" && todoSeqs.has(f.seq));
    expect(flagged).toEqual([]);
  });

  it("what the source declares is kept and not marked inferred", () => {
    expect(inferEffect("lookup", {}, "write")).toMatchObject({ effect: "write", effectInferred: false });
  });
});

describe("existing importers infer writes", () => {
  it("tau-bench: the update_* calls of the file are writes, searches and lookups reads", () => {
    const rel = "tau-bench/airline-gpt-4o-task2-failed.json";
    const raw = JSON.parse(readCorpus(rel)) as Array<{ traj: Obj[] }>;
    // tool names of the assistant's tool calls, read off the raw trajectory
    const names = raw.flatMap((t) =>
      t.traj.flatMap((m) => ((m.tool_calls as Obj[] | undefined) ?? []).map((c) => String((c.function as Obj).name))),
    );
    const events = importTrace(readCorpus(rel), { fileName: rel }).runs.flatMap((r) => r.events);
    const calls = events.filter((e) => e.type === "tool.call");
    expect(calls.map((e) => e.data.tool).sort()).toEqual([...names].sort());
    for (const c of calls) {
      expect(c.data.effectInferred).toBe(true);
      expect(c.data.effect).toBe(String(c.data.tool).startsWith("update_") ? "write" : "read");
    }
  });

  it("SWE-agent: edit, create and rm actions are writes, open and find_file reads", () => {
    const rel = "swe-agent/pydicom-1458-gpt4.traj";
    const events = importTrace(readCorpus(rel), { fileName: rel }).runs[0].events;
    const calls = events.filter((e) => e.type === "tool.call");
    const byTool = (t: string) => calls.filter((e) => e.data.tool === t);
    expect(byTool("edit").length).toBeGreaterThan(0);
    for (const t of ["edit", "create", "rm"])
      for (const c of byTool(t)) expect(c.data).toMatchObject({ effect: "write", effectInferred: true });
    for (const t of ["open", "find_file"]) for (const c of byTool(t)) expect(c.data.effect).toBe("read");
  });
});

describe("run ids unique per source file", () => {
  it("tau-bench: two result files with the same task and trial get two ids; re-importing keeps them", () => {
    const rel = "tau-bench/airline-gpt-4o-task2-failed.json";
    const text = readCorpus(rel);
    const records = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(records.map((r) => [r.task_id, r.trial])).toEqual([[2, 1]]);
    const ids = (t: string, fileName = rel) => importTrace(t, { fileName }).runs.map((r) => r.runId);
    const [id] = ids(text);
    expect(id).toMatch(/^tau-2-1-[0-9a-f]{8}$/);
    // the same file again, and the same record in another file name or layout: the same id
    expect(ids(text)).toEqual([id]);
    expect(ids(JSON.stringify(records, null, 1), "other-run/results.json")).toEqual([id]);
    // another model's results for task 2 trial 1 (a different transcript): another id
    const other = { ...records[0], reward: 1, traj: (records[0].traj as unknown[]).slice(0, 3) };
    const [otherId] = ids(JSON.stringify([other]), "claude/results.json");
    expect(otherId).toMatch(/^tau-2-1-[0-9a-f]{8}$/);
    expect(otherId).not.toBe(id);
    // a checkpoint file that has grown keeps the ids of the records it already held
    expect(ids(JSON.stringify([records[0], other]))).toEqual([id, otherId]);
  });

  it("two SWE-agent configurations of one instance get two ids; the same file the same id", () => {
    const rel = "swe-agent/marshmallow-1867-function-calling.traj";
    const text = readCorpus(rel);
    const id = importTrace(text, { fileName: rel }).runs[0].runId;
    expect(importTrace(text, { fileName: rel }).runs[0].runId).toBe(id);
    // the same instance run with another model: the replay config names it
    expect(text).toContain("gpt-4o");
    const other = text.replaceAll("gpt-4o", "claude-sonnet-4");
    const otherId = importTrace(other, { fileName: rel }).runs[0].runId;
    expect(otherId).not.toBe(id);
    expect(otherId.startsWith("swe-marshmallow-code__marshmallow-1867-")).toBe(true);
    expect(id.startsWith("swe-marshmallow-code__marshmallow-1867-")).toBe(true);
  });
});
