/**
 * Resume on a real database (SQLite and PostgreSQL) with the demo's sandbox executors over
 * HTTP: the plan of the demo run that failed after a durable checkpoint (a read reused, a
 * confirmed refund skipped, the timed-out one to reconcile first), refusals at each step
 * that reach no executor, then a reconcile on a branch and the resume: the scripted model
 * asked again from the checkpoint, every call it makes answered from the recording (no
 * write reaches the bank), a branch run with resumeOf, a LiveBranch row and a log entry.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { addUser } from "@/lib/server/access/accounts";
import { listAudit, verifyAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { addExecutor } from "@/lib/server/live/executors";
import { branchInfo, runEvents } from "@/lib/server/live/branches";
import { reconcile } from "./through-edge";
import { resume, resumeView } from "./through-edge";
import { getRun } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { startBankServer, type BankServer } from "@/scripts/demo-agent/bank-server";
import { runScenarios } from "@/scripts/demo-agent/scenarios";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "resume password 0123";
const TOKEN = "demo-bank-token-resume-0123456789";
const OUTAGE = "demo-refund-gateway-outage";

const user = (id: string, role: "viewer" | "reviewer" | "operator" | "admin", environments: string[]): Principal => ({
  kind: "user",
  id,
  name: id,
  memberships: { default: { role, environments } },
});
const seqOf = (events: Awaited<ReturnType<typeof runEvents>>, tool: string, n = 0) =>
  events.filter((e) => e.type === "tool.call" && e.data.tool === tool)[n].seq;
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "passed",
    (e: Error) => e.message,
  );

describe.each(DIALECTS)("resume on %s, demo bank over HTTP", (dialect) => {
  let t: TestDb;
  let db: Db;
  let bank: BankServer;
  let dir: string;
  let model: string;
  let sandboxTool: string;
  let prodModel: string;
  const op = user("op-sandbox", "operator", ["sandbox"]);

  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({
      RETRACE_EXECUTOR_KEY_FILE: path.join(os.tmpdir(), `resume-${dialect}-${process.pid}.executor-key`),
      // the demo bank listens on loopback: allowed as the quick start allows it (docs/live-actions.md)
      RETRACE_EXECUTOR_HOSTS: "127.0.0.1",
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-resume-"));
    await runScenarios({
      outDir: dir,
      dbDir: path.join(dir, "bank"),
      fixedClock: true,
      scenarios: ["refund-approval", "refund-gateway-outage"],
    });
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl")))
      await ingestBytes(db, bytesOf(fs.readFileSync(path.join(dir, f))), { mode: "upload", source: "upload" });
    bank = await startBankServer({ dir: path.join(dir, "bank"), port: 0, token: TOKEN });
    const add = async (kind: "tool" | "model", name: string, environment: string, url: string) =>
      (await addExecutor(db, { project: "default", kind, name, environment, url, credential: TOKEN, createdBy: "test" })).id;
    sandboxTool = await add("tool", "*", "sandbox", bank.url);
    model = await add("model", "scripted-planner-1", "sandbox", `${bank.url}/v1`);
    prodModel = await add("model", "scripted-planner-1", "production", `${bank.url}/v1`);
    for (const [name, role, envs] of [
      ["viewer", "viewer", []],
      ["reviewer", "reviewer", []],
      ["op-sandbox", "operator", ["sandbox"]],
    ] as const)
      await addUser(db, { name, password: PASSWORD, project: "default", role, environments: envs });
  });
  afterAll(async () => {
    await bank?.close();
    await t?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("plans the failed demo run from its last durable checkpoint, for a viewer too (who is offered no executor)", async () => {
    const events = await runEvents(db, OUTAGE);
    const v = await resumeView(db, user("viewer", "viewer", []), { run: OUTAGE });
    expect(v.executors).toEqual([]);
    expect(v.plan.checkpoint).toMatchObject({ id: "triaged", durable: true });
    expect(v.plan.rows.map((r) => [r.seq, r.tool, r.action])).toEqual([
      [seqOf(events, "kb_search"), "kb_search", "reuse"],
      [seqOf(events, "issue_refund"), "issue_refund", "skip"],
      [seqOf(events, "issue_refund", 1), "issue_refund", "reconcile"],
    ]);
    expect(v.plan.refusal).toMatch(/^reconcile first: #\d+ issue_refund \(timeout\)/);
    const o = await resumeView(db, op, { run: OUTAGE });
    expect(o.executors.map((e) => e.id)).toEqual([model]);
    // the earlier durable checkpoint can be chosen: the order lookup is then reused too
    const early = await resumeView(db, op, { run: OUTAGE, checkpoint: "received" });
    expect(early.plan.rows.map((r) => r.action)).toEqual(["reuse", "reuse", "skip", "reconcile"]);
    // it comes before the agent's first model call: nothing says what the agent would ask, so no resume from there
    expect(early.plan.notContinuable).toMatch(/no model call/);
    // a run that succeeded has no resume, and says why
    expect((await resumeView(db, op, { run: "demo-refund-approval" })).plan.impossible).toMatch(/the run succeeded/);
    await expect(resumeView(db, op, { run: "no-such-run" })).rejects.toMatchObject({ status: 404 });
  });

  it("refuses viewer, reviewer, a sandbox operator on production, no confirmation, and the unreconciled timeout; nothing reaches an executor", async () => {
    const { plan } = await resumeView(db, op, { run: OUTAGE });
    const base = { run: OUTAGE, checkpoint: "triaged", digest: plan.digest, reason: "resume the refunds" };
    expect(await refusal(resume(db, user("viewer", "viewer", []), { ...base, executor: model, password: PASSWORD }))).toMatch(
      /^\[role\].*operator role/,
    );
    expect(await refusal(resume(db, user("reviewer", "reviewer", []), { ...base, executor: model, password: PASSWORD }))).toMatch(
      /^\[role\].*you are reviewer/,
    );
    expect(await refusal(resume(db, op, { ...base, executor: prodModel, password: PASSWORD, operationName: "resume" }))).toMatch(
      /^\[environment\].*production/,
    );
    expect(await refusal(resume(db, op, { ...base, executor: sandboxTool, password: PASSWORD }))).toMatch(
      /^\[executor\].*no model executor/,
    );
    expect(await refusal(resume(db, op, { ...base, executor: model }))).toMatch(/^\[confirmation\]/);
    expect(await refusal(resume(db, op, { ...base, executor: model, password: PASSWORD, checkpoint: "refunded-2" }))).toMatch(
      /^\[resume\].*not durable/,
    );
    expect(await refusal(resume(db, op, { ...base, executor: model, password: PASSWORD, digest: "0".repeat(64) }))).toMatch(/^\[preview\]/);
    expect(await refusal(resume(db, op, { ...base, executor: model, password: PASSWORD }))).toMatch(
      /^\[unreconciled\] reconcile first: #\d+ issue_refund \(timeout\)/,
    );
    expect(await refusal(resume(db, { kind: "open" }, { ...base, executor: model }))).toMatch(/^\[operation name\].*\(resume\)/);
    expect(bank.requests).toEqual([]);
    expect((await branchInfo(db, OUTAGE)).children).toEqual([]);
    const refused = (await listAudit(db, { projects: ["default"] })).filter((e) => e.action === "live.resume" && e.result === "refused");
    expect(refused.map((e) => (JSON.parse(e.detail) as { step: string }).step).sort()).toEqual([
      "confirmation",
      "environment",
      "executor",
      "operation name",
      "preview",
      "resume",
      "role",
      "role",
      "unreconciled",
    ]);
  });

  it("after the timeout is reconciled on a branch (asking the bank by key), resumes: resumeOf, marked calls, LiveBranch, log entry", async () => {
    const events = await runEvents(db, OUTAGE);
    const timedOut = events.find((e) => e.type === "tool.result" && e.data.status === "timeout")!;
    const rec = await reconcile(db, op, {
      run: OUTAGE,
      seq: timedOut.seq,
      executor: sandboxTool,
      mode: "ask",
      reason: "the gateway timed out",
      password: PASSWORD,
    });
    expect(rec).toMatchObject({ status: "succeeded", externalId: "rf_0002" });
    expect(bank.requests.map((r) => r.path)).toEqual(["/lookup"]);

    const { plan } = await resumeView(db, op, { run: OUTAGE });
    expect(plan.refusal).toBeNull();
    expect(plan.rows.map((r) => r.action)).toEqual(["reuse", "skip", "skip"]);
    expect(plan.rows[2].why).toContain(`on branch ${rec.branch}`);
    const out = await resume(db, op, {
      run: OUTAGE,
      checkpoint: "triaged",
      executor: model,
      digest: plan.digest,
      reason: "refunds confirmed; carry on from the checkpoint",
      password: PASSWORD,
    });
    expect(out).toMatchObject({ resumeOf: { run: OUTAGE, checkpoint: "triaged" }, counts: { reuse: 1, skip: 2, reconcile: 0 } });
    // the scripted model was asked again from the checkpoint; every tool call it made was answered from the recording
    expect(out).toMatchObject({
      stop: "final-answer",
      modelCalls: 4,
      readsFromRecording: 1,
      readsFromExecutor: 0,
      writesReused: 2,
      pendingWrite: null,
      finalText: "Refunded 50.00 for order A-3003 (payments rf_0001 and 1 confirmed by a reconcile).",
    });
    const branch = await runEvents(db, out.branch);
    expect(branch[0].data.resumeOf).toEqual({ run: OUTAGE, checkpoint: "triaged" });
    expect(branch[0].data.forkOf).toBeUndefined();
    const cp = events.find((e) => e.type === "checkpoint" && e.data.id === "triaged")!;
    const kept = branch.filter((e) => e.seq <= cp.seq);
    expect(kept.map((e) => e.type)).toEqual(events.filter((e) => e.seq <= cp.seq).map((e) => e.type));
    const after = branch.filter((e) => e.seq > cp.seq);
    expect(after.every((e) => (e.data.live as { action?: string } | undefined)?.action === "resume")).toBe(true);
    const calls = after.filter((e) => e.type === "tool.call");
    expect(
      calls.map((e) => [e.data.tool, (e.data.args as { charge?: number }).charge ?? null, (e.data.live as { source: unknown }).source]),
    ).toEqual([
      ["kb_search", null, { kind: "recording", seq: seqOf(events, "kb_search") }],
      ["issue_refund", 2, { kind: "recording", seq: seqOf(events, "issue_refund"), confirmed: true }],
      ["issue_refund", 3, { kind: "recording", seq: seqOf(events, "issue_refund", 1), confirmed: true }],
    ]);
    expect(after.at(-1)).toMatchObject({ type: "run.end", data: { status: "succeeded" } });
    // the live contexts carry the instructions in force: the branch's analysis finds none dropped
    const rules = (await getRun(db, out.branch))!.findings.map((f) => f.rule);
    expect(after.filter((e) => e.type === "context").length).toBeGreaterThan(0);
    expect(rules).not.toContain("context.instruction-omitted");
    // the confirmed writes answered from the recording are the recorded operations, with their keys
    expect(rules).not.toContain("effect.no-idempotency");
    for (const c of calls.filter((e) => e.data.tool === "issue_refund")) {
      const src = (c.data.live as { source: { seq: number } }).source.seq;
      expect(c.data.idempotencyKey).toBe(events.find((e) => e.seq === src)!.data.idempotencyKey);
      expect(c.data.idempotencyKey).toMatch(/^refund-A-3003-charge-\d$/);
    }
    // the reconcile's lookup and the model: no write reached the bank
    expect(bank.requests.map((r) => r.path)).toEqual(["/lookup", ...Array(4).fill("/v1/chat/completions")]);

    const info = await branchInfo(db, OUTAGE);
    expect(info.children.map((c) => [c.kind, c.run])).toEqual([
      ["reconcile", rec.branch],
      ["resume", out.branch],
    ]);
    expect((await branchInfo(db, out.branch)).of).toEqual({ run: OUTAGE, seq: cp.seq, kind: "resume" });
    const log = (await listAudit(db, { projects: ["default"] })).find((e) => e.action === "live.resume" && e.result === "ok")!;
    expect(log).toMatchObject({
      actor: "user:op-sandbox",
      target: `${OUTAGE}@triaged`,
      reason: "refunds confirmed; carry on from the checkpoint",
    });
    expect(JSON.parse(log.detail)).toMatchObject({
      branch: out.branch,
      counts: { reuse: 1, skip: 2 },
      stop: "final-answer",
      modelCalls: 4,
    });
    expect((await verifyAudit(db)).ok).toBe(true);
  });
});
