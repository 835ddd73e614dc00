/**
 * `retrace import DIR`, run as a real process: a folder of session files is read as the
 * upload reads a zip of it (lib/cli/folder-zip.ts, lib/importers/folder.ts).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { inject, describe, expect, it } from "vitest";
import { freshDb } from "../helpers/db";
import { getRun } from "@/lib/server/queries";

const run = promisify(execFile);
const CLI = [path.resolve("scripts/retrace.mjs")];
const FIX = "tests/fixtures/agent-folders";

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("retrace import DIR", () => {
  it("imports a Cline task folder and an Aider history found in a folder, leaving other files out", async () => {
    const t = await freshDb("sqlite");
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "folder-"));
    const task = path.join(dir, "tasks", "1769064454592");
    fs.mkdirSync(task, { recursive: true });
    for (const f of ["api_conversation_history.json", "ui_messages.json", "task_metadata.json"])
      fs.writeFileSync(path.join(task, f), gunzipSync(fs.readFileSync(`${FIX}/cline/1769064454592/${f}.gz`)));
    fs.copyFileSync(`${FIX}/aider-iot/.aider.chat.history.md`, path.join(dir, ".aider.chat.history.md"));
    fs.writeFileSync(path.join(dir, "README.txt"), "not a session\n");
    fs.mkdirSync(path.join(dir, "node_modules", "x"), { recursive: true });
    fs.writeFileSync(path.join(dir, "node_modules", "x", "package.json"), "{}");
    const r = await cli(["import", dir], { DATABASE_URL: t.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/run cline-1769064454592 stored: \d+ events stored/);
    expect(r.stdout).toMatch(/run aider-\d{14}-[0-9a-f]{8} stored/);
    const db = t.open();
    const api = JSON.parse(gunzipSync(fs.readFileSync(`${FIX}/cline/1769064454592/api_conversation_history.json.gz`)).toString()) as Array<{
      role: string;
    }>;
    const stored = await getRun(db, "cline-1769064454592");
    expect(stored?.fidelity).toBe("trace");
    expect(stored?.eventCount).toBeGreaterThan(api.filter((m) => m.role === "assistant").length * 3);
    await t.cleanup();
  });

  it("imports a Claude Code project folder session by session, each streamed under its own limit", async () => {
    const t = await freshDb("sqlite");
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "project-"));
    const sessions = [
      "tests/fixtures/agent-cli/claude-code-2.1.337-session.jsonl",
      "tests/fixtures/corpus/claude-code/codemie-session-9eda1058.jsonl",
    ];
    for (const f of sessions) fs.copyFileSync(f, path.join(dir, path.basename(f)));
    fs.writeFileSync(path.join(dir, "notes.txt"), "not a session\n");
    const ids = sessions.map((f) => {
      const first = fs
        .readFileSync(f, "utf8")
        .split("\n")
        .map((l) => (l.trim() ? (JSON.parse(l) as { sessionId?: string }) : {}))
        .find((l) => typeof l.sessionId === "string");
      return `claude-${first!.sessionId!}`;
    });
    // each session is larger than the document limit: zipped with the others it was left out
    const docLimit = 100_000;
    for (const f of sessions) expect(fs.statSync(f).size).toBeGreaterThan(docLimit);
    const r = await cli(["import", dir], { DATABASE_URL: t.url, RETRACE_MAX_DOCUMENT_BYTES: String(docLimit) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const db = t.open();
    for (const [i, id] of ids.entries()) {
      expect(r.stdout).toContain(`${path.join(dir, path.basename(sessions[i]))} (Claude Code session (JSONL)): run ${id} stored`);
      expect((await getRun(db, id))?.fidelity).toBe("trace");
    }
    await t.cleanup();
  });

  it("a Claude Code project with a sub-agent's transcript: one run claude-<sessionId>, the sub-agent's calls under its Agent call", async () => {
    const t = await freshDb("sqlite");
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "subagent-"));
    const src = "tests/fixtures/agent-cli/claude-code-2.1.337-subagent";
    fs.cpSync(src, dir, { recursive: true });
    // a session of another id beside it stays a file imported on its own
    fs.copyFileSync("tests/fixtures/agent-cli/claude-code-2.1.337-session.jsonl", path.join(dir, "other.jsonl"));
    const session = "5d111294-64c9-4a08-a928-b587069ec457";
    const sub = fs
      .readFileSync(path.join(src, session, "subagents", "agent-a9b27a7e8deafe59d.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { type: string; message?: { id?: string; content?: Array<{ type: string }> } });
    const subResponses = new Set(sub.filter((l) => l.type === "assistant").map((l) => l.message!.id)).size;
    const r = await cli(["import", dir], { DATABASE_URL: t.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const stored = [...r.stdout.matchAll(/run (\S+) stored/g)].map((m) => m[1]);
    expect(stored).toContain(`claude-${session}`);
    expect(stored).toHaveLength(new Set(stored).size);
    expect(stored).toHaveLength(2);
    expect(stored.some((id) => id.includes("-agent-"))).toBe(false);
    const db = t.open();
    const run = await getRun(db, `claude-${session}`);
    expect(run?.fidelity).toBe("trace");
    const events = await db.sql.all<{ seq: number; type: string; step: string | null; parent: number | null; call: string | null }>(
      `SELECT "seq", "type", "step", "parent", "call" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      [`claude-${session}`],
    );
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    const underAgentCall = (seq: number) => {
      for (let p = bySeq.get(seq)?.parent; p !== null && p !== undefined; p = bySeq.get(p)?.parent)
        if (bySeq.get(p)?.type === "step.start" && bySeq.get(p)?.step === "tool-toolu_fake_0002") return true;
      return false;
    };
    const subIds = new Set(sub.filter((l) => l.type === "assistant").map((l) => l.message!.id));
    const subCalls = events.filter((e) => e.type === "model.response" && subIds.has(e.call ?? ""));
    expect(subCalls).toHaveLength(subResponses);
    for (const e of subCalls) expect(underAgentCall(e.seq)).toBe(true);
    await t.cleanup();
  });

  it("a Claude Code project whose sub-agent ran in the background: its calls under the Agent call, the call's step open till its end", async () => {
    const t = await freshDb("sqlite");
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "subagent-bg-"));
    const src = "tests/fixtures/agent-cli/claude-code-2.1.337-subagent-background";
    fs.cpSync(src, dir, { recursive: true });
    const session = "d963c98a-c6be-4705-9df6-6b4e717bbe53";
    const read = (rel: string) =>
      fs
        .readFileSync(path.join(src, rel), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { type: string; timestamp?: string; message?: { id?: string } });
    const main = read(`${session}.jsonl`);
    const sub = read(`${session}/subagents/agent-a4bbcca872087360e.jsonl`);
    const ids = (ls: typeof sub) => new Set(ls.filter((l) => l.type === "assistant").map((l) => l.message!.id));
    const r = await cli(["import", dir], { DATABASE_URL: t.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect([...r.stdout.matchAll(/run (\S+) stored/g)].map((m) => m[1])).toEqual([`claude-${session}`]);
    const db = t.open();
    const events = await db.sql.all<{
      seq: number;
      type: string;
      step: string | null;
      parent: number | null;
      call: string | null;
      ts: string;
    }>(`SELECT "seq", "type", "step", "parent", "call", "ts" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [`claude-${session}`]);
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    const underAgentCall = (seq: number) => {
      for (let p = bySeq.get(seq)?.parent; p !== null && p !== undefined; p = bySeq.get(p)?.parent)
        if (bySeq.get(p)?.type === "step.start" && bySeq.get(p)?.step === "tool-toolu_fake_0002") return true;
      return false;
    };
    const responses = events.filter((e) => e.type === "model.response");
    expect(responses).toHaveLength(ids(main).size + ids(sub).size);
    const subCalls = responses.filter((e) => ids(sub).has(e.call ?? ""));
    expect(subCalls).toHaveLength(ids(sub).size);
    for (const e of subCalls) expect(underAgentCall(e.seq)).toBe(true);
    const lastSub = Math.max(...sub.filter((l) => l.timestamp).map((l) => Date.parse(l.timestamp!)));
    const agentEnd = events.find((e) => e.type === "step.end" && e.step === "tool-toolu_fake_0002")!;
    expect(Date.parse(agentEnd.ts)).toBe(lastSub);
    await t.cleanup();
  });

  it("a folder with nothing Retrace reads says so and exits 1", async () => {
    const t = await freshDb("sqlite");
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "empty-"));
    fs.writeFileSync(path.join(dir, "notes.txt"), "hello\n");
    fs.writeFileSync(path.join(dir, "data.csv"), "a,b\n1,2\n");
    const r = await cli(["import", dir], { DATABASE_URL: t.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the folder holds nothing Retrace reads \(2 files looked at/);
    await t.cleanup();
  });
});
