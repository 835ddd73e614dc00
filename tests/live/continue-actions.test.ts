/**
 * Continue a fork live on a real database (SQLite and PostgreSQL) with the demo's sandbox
 * executors over HTTP (the bank's scripted model and tools): refusals at each step reach
 * no executor, and a continuation of the refund run with the timed-out payment edited to
 * ok calls the scripted model, stores the branch (forkOf, mode, live marks), a LiveBranch
 * row and a log entry.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { frameMode } from "@/lib/live/mode";
import { addUser } from "@/lib/server/access/accounts";
import { listAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { branchesOf, runEvents } from "@/lib/server/live/branches";
import { reexecute, reexecutePreview } from "./through-edge";
import { continueExecutors, continueFork, continuePreview } from "./through-edge";
import { addExecutor } from "@/lib/server/live/executors";
import { ingestBytes } from "@/lib/server/service";
import { startBankServer, type BankServer } from "@/scripts/demo-agent/bank-server";
import { runScenarios } from "@/scripts/demo-agent/scenarios";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "live password 0123";
const TOKEN = "demo-bank-token-0123456789";
const RUN = "demo-refund-approval";

const user = (id: string, role: "viewer" | "reviewer" | "operator" | "admin", environments: string[]): Principal => ({
  kind: "user",
  id,
  name: id,
  memberships: { default: { role, environments } },
});

describe.each(DIALECTS)("continue a fork live on %s, demo bank over HTTP", (dialect) => {
  let t: TestDb;
  let db: Db;
  let bank: BankServer;
  let dir: string;
  let model = "";
  let prodModel = "";
  let tool = "";
  let fork = 0;
  const op = user("op-sandbox", "operator", ["sandbox"]);
  const override = { toolResult: { status: "ok", result: { id: "rf_0001", amountCents: 4999 } } };

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({
      RETRACE_EXECUTOR_KEY_FILE: path.join(os.tmpdir(), `continue-${dialect}-${process.pid}.executor-key`),
      // the demo bank listens on loopback: allowed as the quick start allows it (docs/live-actions.md)
      RETRACE_EXECUTOR_HOSTS: "127.0.0.1",
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-continue-"));
    await runScenarios({ outDir: dir, dbDir: path.join(dir, "bank"), fixedClock: true, scenarios: ["refund-approval"] });
    await ingestBytes(db, bytesOf(fs.readFileSync(path.join(dir, "refund-approval.jsonl"))), { mode: "upload", source: "upload" });
    bank = await startBankServer({ dir: path.join(dir, "bank"), port: 0, token: TOKEN });
    const add = async (kind: "tool" | "model", name: string, environment: string, url: string) =>
      (await addExecutor(db, { project: "default", kind, name, environment, url, credential: TOKEN, createdBy: "test" })).id;
    tool = await add("tool", "*", "sandbox", bank.url);
    model = await add("model", "scripted-planner-1", "sandbox", `${bank.url}/v1`);
    prodModel = await add("model", "scripted-planner-1", "production", `${bank.url}/v1`);
    for (const [name, role, envs] of [
      ["viewer", "viewer", []],
      ["reviewer", "reviewer", []],
      ["op-sandbox", "operator", ["sandbox"]],
    ] as const)
      await addUser(db, { name, password: PASSWORD, project: "default", role, environments: envs });
    fork = (await runEvents(db, RUN)).find((e) => e.type === "tool.result" && e.data.status === "timeout")!.seq;
  });
  afterAll(async () => {
    await bank?.close();
    await t?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => "passed",
      (e: Error) => e.message,
    );

  it("refuses viewer, reviewer, a sandbox operator on production, no confirmation, a stale preview; nothing reaches an executor", async () => {
    const base = { run: RUN, seq: fork, override, digest: "0".repeat(64), reason: "what if it said ok" };
    expect(await refusal(continueFork(db, user("viewer", "viewer", []), { ...base, executor: model, password: PASSWORD }))).toMatch(
      /^\[role\].*operator role/,
    );
    expect(await refusal(continueFork(db, user("reviewer", "reviewer", []), { ...base, executor: model, password: PASSWORD }))).toMatch(
      /^\[role\].*you are reviewer/,
    );
    expect(await refusal(continueFork(db, op, { ...base, executor: prodModel, password: PASSWORD, operationName: "continue" }))).toMatch(
      /^\[environment\].*production/,
    );
    expect(await refusal(continueFork(db, op, { ...base, executor: model }))).toMatch(/^\[confirmation\] re-enter your password/);
    expect(await refusal(continueFork(db, op, { ...base, executor: model, password: PASSWORD }))).toMatch(/^\[preview\]/);
    expect(await refusal(continueFork(db, op, { ...base, executor: model, password: PASSWORD, override: { approval: "denied" } }))).toMatch(
      /^\[event\].*approval override/,
    );
    expect(await refusal(continueFork(db, { kind: "open" }, { ...base, executor: model }))).toMatch(/^\[operation name\].*continue/);
    expect(await refusal(continuePreview(db, user("viewer", "viewer", []), { run: RUN, seq: fork, override, executor: model }))).toMatch(
      /^\[role\]/,
    );
    expect(bank.requests).toEqual([]);
    const refused = (await listAudit(db, { projects: ["default"] })).filter((e) => e.action === "live.continue");
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused.every((e) => e.result === "refused")).toBe(true);
    expect(await continueExecutors(db, op, RUN)).toEqual([expect.objectContaining({ id: model, environment: "sandbox" })]);
  });

  it("continues the refund run with the timeout edited to ok: the scripted model answers, the branch records it", async () => {
    const preview = await continuePreview(db, op, { run: RUN, seq: fork, override, executor: model });
    expect(preview.request?.url).toBe(`${bank.url}/v1/chat/completions`);
    expect(preview.messages[preview.messages.length - 1]).toMatchObject({ role: "tool", name: "issue_refund" });
    expect(JSON.stringify(preview)).not.toContain(TOKEN);
    expect(bank.requests).toEqual([]);
    const out = await continueFork(db, op, {
      run: RUN,
      seq: fork,
      override,
      executor: model,
      digest: preview.digest,
      reason: "what if the payment had answered ok",
      password: PASSWORD,
    });
    expect(out).toMatchObject({ stop: "final-answer", modelCalls: 1, pendingWrite: null, forkOf: { run: RUN, seq: fork } });
    expect(out.finalText).toBe("Refunded 49.99 for order A-1001 (payment rf_0001).");
    expect(bank.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    const branch = await runEvents(db, out.branch);
    expect(branch[0].data).toMatchObject({ forkOf: { run: RUN, seq: fork }, mode: "live" });
    expect(branch.find((e) => e.seq === fork)).toMatchObject({ type: "tool.result", data: { status: "ok" } });
    expect(frameMode(branch.find((e) => e.seq === fork)!)).toBe("simulated");
    expect(branch.filter((e) => e.seq > fork).every((e) => frameMode(e) === "live")).toBe(true);
    expect(branch[branch.length - 1]).toMatchObject({ type: "run.end", data: { status: "succeeded" } });
    expect(await branchesOf(db, RUN)).toEqual([expect.objectContaining({ runId: out.branch, kind: "continue", outcome: "final-answer" })]);
    const entry = (await listAudit(db, { projects: ["default"] })).find((e) => e.action === "live.continue" && e.result === "ok")!;
    expect(entry).toMatchObject({ actor: "user:op-sandbox", reason: "what if the payment had answered ok" });
    expect(JSON.stringify(entry)).not.toContain(TOKEN);
  });

  it("status ok with no result: the agent asks for the refund again, which stops the continuation unsent", async () => {
    bank.requests.length = 0;
    const o = { toolResult: { status: "ok" } };
    const preview = await continuePreview(db, op, { run: RUN, seq: fork, override: o, executor: model });
    const out = await continueFork(db, op, {
      run: RUN,
      seq: fork,
      override: o,
      executor: model,
      digest: preview.digest,
      reason: "what if ok without a payment",
      password: PASSWORD,
    });
    expect(out.stop).toBe("write-needs-confirmation");
    expect(out.pendingWrite).toMatchObject({ tool: "issue_refund" });
    // the model only: no /call reached the bank
    expect(bank.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);

    // the separate confirmation: re-execute the pending write on the branch (its own preview and operation name) ...
    const pending = out.pendingWrite!.seq;
    const rp = await reexecutePreview(db, op, { run: out.branch, seq: pending, executor: tool });
    expect(rp).toMatchObject({ tool: "issue_refund", refusal: null, needsOperationName: true, keySource: "new" });
    const sent = await reexecute(db, op, {
      run: out.branch,
      seq: pending,
      executor: tool,
      digest: rp.digest,
      reason: "send the refund the agent asked for",
      password: PASSWORD,
      operationName: "issue_refund",
    });
    expect(sent.status).toBe("ok");
    expect(bank.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/call"]);
    // ... then continue from its result, with no edit: the agent reads the payment and answers
    const resultSeq = (await runEvents(db, sent.branch)).find((e) => e.type === "tool.result" && e.seq > pending)!.seq;
    const p2 = await continuePreview(db, op, { run: sent.branch, seq: resultSeq, executor: model });
    expect(p2.messages[p2.messages.length - 1]).toMatchObject({ role: "tool", name: "issue_refund" });
    const out2 = await continueFork(db, op, {
      run: sent.branch,
      seq: resultSeq,
      executor: model,
      digest: p2.digest,
      reason: "and then?",
      password: PASSWORD,
    });
    expect(out2).toMatchObject({ stop: "final-answer", modelCalls: 1 });
    expect(out2.finalText).toBe(`Refunded 49.99 for order A-1001 (payment ${sent.externalId}).`);
  });
});
