/**
 * A tool no executor serves offers no re-execute (issue 32): on both databases, with the
 * demo's executor for every tool (`*`, sandbox) registered, a real Claude Code session's
 * `Edit` (a file edit on the agent's own machine) gets no executor and a reason, its
 * `TodoWrite` (the agent's todo list) another; the preview and the re-execution are refused
 * by the same verdict, and nothing is logged as done. A service call of a recorded run is
 * still offered the `*` executor, and an executor named `Edit` serves the Edit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { callToServe, executorServes, servingExecutors } from "@/lib/live/executor-match";
import { addUser } from "@/lib/server/access/accounts";
import { listAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { runEvents } from "@/lib/server/live/branches";
import { addExecutor } from "@/lib/server/live/executors";
import { executorsForCall, reexecute, reexecutePreview } from "./through-edge";
import { importStream, ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "offer password 0123";
const FIXTURE = path.resolve(__dirname, "../fixtures/corpus/claude-code/claude-code-viewer-5c0375b4-orchestrator.jsonl");
const SERVICE_RUN = "offer-service-run";

/** A recorded service run: one refund (a write with a key) through the recorder's format. */
function serviceJournal(): string {
  const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
  const events = [
    { seq: 0, type: "run.start", data: { workflow: { name: "refund", version: "1" }, agent: { name: "refund-agent", version: "1" } } },
    {
      seq: 1,
      type: "tool.call",
      data: { call: "c1", tool: "issue_refund", args: { order: "A-1" }, effect: "write", idempotencyKey: "k1" },
    },
    { seq: 2, type: "tool.result", data: { call: "c1", status: "ok", result: { id: "rf_1" } } },
    { seq: 3, type: "run.end", data: { status: "succeeded" } },
  ];
  return events.map((e) => JSON.stringify({ run: SERVICE_RUN, ts: ts(e.seq), ...e })).join("\n") + "\n";
}

const op: Principal = { kind: "user", id: "op", name: "op", memberships: { default: { role: "operator", environments: ["sandbox"] } } };

describe("the verdict, pure", () => {
  it("a `*` executor serves service calls, not a coding agent's local tools; a named one serves its tool; bookkeeping never", () => {
    const star = { id: "x", name: "*" };
    expect(executorServes(star, { tool: "issue_refund", agent: "refund-agent" }).ok).toBe(true);
    expect(executorServes(star, { tool: "issue_refund", agent: null }).ok).toBe(true);
    for (const agent of ["claude-code", "codex", "codex_cli_rs", "gemini-cli", "qwen-code", "opencode", "swe-agent", "mini-swe-agent"])
      expect(executorServes(star, { tool: "Edit", agent }).ok, agent).toBe(false);
    expect(executorServes({ name: "Edit" }, { tool: "Edit", agent: "claude-code" }).ok).toBe(true);
    expect(executorServes({ name: "Edit" }, { tool: "Write", agent: "claude-code" }).ok).toBe(false);
    expect(executorServes({ name: "TodoWrite" }, { tool: "TodoWrite", agent: "claude-code" }).ok).toBe(false);
    expect(servingExecutors([star], { tool: "update_plan", agent: "codex" }).reason).toMatch(/own notes/);
    // an agent named like a coding agent only in part is a service agent
    expect(executorServes(star, { tool: "Edit", agent: "my-claude-code-wrapper" }).ok).toBe(true);
  });
});

describe.each(DIALECTS)("re-execute offered only where an executor serves the call, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let claudeRun = "";
  let star = "";
  const keyFile = path.join(os.tmpdir(), `offer-${dialect}-${process.pid}.executor-key`);
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({ RETRACE_EXECUTOR_KEY_FILE: keyFile, RETRACE_EXECUTOR_HOSTS: "127.0.0.1" });
    const imported = await importStream(db, bytesOf(fs.readFileSync(FIXTURE)), {
      accept: "any",
      source: "import",
      fileName: "session.jsonl",
    });
    expect(imported.errors).toEqual([]);
    claudeRun = imported.runs[0].run;
    await ingestBytes(db, bytesOf(serviceJournal()), { mode: "upload", source: "upload" });
    // nothing listens there: no test request may reach it
    star = (
      await addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "*",
        environment: "sandbox",
        url: "http://127.0.0.1:9/",
        createdBy: "test",
      })
    ).id;
    await addUser(db, { name: "op", password: PASSWORD, project: "default", role: "operator", environments: ["sandbox"] });
  });
  afterAll(async () => {
    await t?.cleanup();
    fs.rmSync(keyFile, { force: true });
  });

  const seqOfTool = async (run: string, tool: string) =>
    (await runEvents(db, run)).find((e) => e.type === "tool.call" && e.data.tool === tool)!.seq;

  it("a Claude Code Edit gets no executor and says why; its TodoWrite says it kept notes; the service call gets the `*` executor", async () => {
    const edit = await seqOfTool(claudeRun, "Edit");
    const offer = await executorsForCall(db, op, claudeRun, edit);
    expect(offer.tool).toBe("Edit");
    expect(offer.executors).toEqual([]);
    expect(offer.reason).toMatch(/Edit ran on the agent's own machine \(a claude-code session\)/);

    const todo = await executorsForCall(db, op, claudeRun, await seqOfTool(claudeRun, "TodoWrite"));
    expect(todo.executors).toEqual([]);
    expect(todo.reason).toMatch(/TodoWrite only keeps the agent's own notes/);

    const service = await executorsForCall(db, op, SERVICE_RUN, 1);
    expect(service.executors.map((e) => e.id)).toEqual([star]);
    expect(service.reason).toBeNull();
  });

  it("the preview and the re-execution of the Edit through the `*` executor are refused by the same verdict; nothing is logged done", async () => {
    const edit = await seqOfTool(claudeRun, "Edit");
    await expect(reexecutePreview(db, op, { run: claudeRun, seq: edit, executor: star })).rejects.toThrow(/agent's own machine/);
    await expect(
      reexecute(db, op, { run: claudeRun, seq: edit, executor: star, digest: "0".repeat(64), reason: "try", password: PASSWORD }),
    ).rejects.toThrow(/agent's own machine/);
    const entries = (await listAudit(db, { projects: ["default"] })).filter((e) => e.action === "live.reexecute");
    expect(entries.map((e) => e.result)).toEqual(["refused"]);
  });

  it("an executor named Edit serves the Edit", async () => {
    const named = (
      await addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "Edit",
        environment: "sandbox",
        url: "http://127.0.0.1:9/",
        createdBy: "test",
      })
    ).id;
    const offer = await executorsForCall(db, op, claudeRun, await seqOfTool(claudeRun, "Edit"));
    expect(offer.executors.map((e) => e.id)).toEqual([named]);
    expect(offer.reason).toBeNull();
    expect(callToServe(await runEvents(db, claudeRun), "Edit").agent).toBe("claude-code");
  });
});
