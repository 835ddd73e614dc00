/**
 * Live actions on a real database with the demo's real sandbox executor (the bank over
 * HTTP, as the quick start runs it): refusals at each step reach no executor (its request
 * log stays empty), a reconcile makes a branch run with forkOf and a log entry, the retry
 * preview then shows the confirmed writes it repeats, and the same idempotency key sent
 * twice moves money once (the bank's ledger).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { addUser } from "@/lib/server/access/accounts";
import { listAudit, verifyAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { addExecutor, listExecutors } from "@/lib/server/live/executors";
import { branchesOf, runEvents } from "@/lib/server/live/branches";
import { reconcile, reconcilePreview } from "./through-edge";
import { reexecute, reexecutePreview } from "./through-edge";
import { ingestBytes } from "@/lib/server/service";
import { startBankServer, type BankServer } from "@/scripts/demo-agent/bank-server";
import { runScenarios } from "@/scripts/demo-agent/scenarios";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "live password 0123";
const TOKEN = "demo-bank-token-0123456789";
const RETRY = "demo-refund-retry-no-idempotency";
const KEYED = "demo-refund-approval";

/** What a live action answered: its refusal's message, or "passed" when it went through. */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "passed",
    (e: Error) => e.message,
  );

const user = (id: string, role: "viewer" | "reviewer" | "operator" | "admin", environments: string[]): Principal => ({
  kind: "user",
  id,
  name: id,
  memberships: { default: { role, environments } },
});

describe.each(DIALECTS)("live actions on %s, demo bank over HTTP", (dialect) => {
  let t: TestDb;
  let db: Db;
  let bank: BankServer;
  let dir: string;
  let keyFile: string;
  let sandbox: string;
  let production: string;
  const op = user("op-sandbox", "operator", ["sandbox"]);
  const callSeqs = (events: Awaited<ReturnType<typeof runEvents>>, tool: string) =>
    events.filter((e) => e.type === "tool.call" && e.data.tool === tool).map((e) => e.seq);

  beforeAll(async () => {
    t = await freshDb(dialect);
    keyFile = path.join(os.tmpdir(), `live-${dialect}-${process.pid}.executor-key`);
    db = t.open({
      RETRACE_EXECUTOR_KEY_FILE: keyFile,
      // the demo bank listens on loopback: allowed as the quick start allows it (docs/live-actions.md)
      RETRACE_EXECUTOR_HOSTS: "127.0.0.1",
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-live-"));
    await runScenarios({ outDir: dir, dbDir: path.join(dir, "bank"), fixedClock: true });
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl")))
      await ingestBytes(db, bytesOf(fs.readFileSync(path.join(dir, f))), { mode: "upload", source: "upload" });
    bank = await startBankServer({ dir: path.join(dir, "bank"), port: 0, token: TOKEN });
    sandbox = (
      await addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "*",
        environment: "sandbox",
        url: bank.url,
        credential: TOKEN,
        createdBy: "test",
      })
    ).id;
    production = (
      await addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "issue_refund",
        environment: "production",
        url: bank.url,
        credential: TOKEN,
        createdBy: "test",
      })
    ).id;
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

  const ledger = async (order: string) =>
    (
      (await (await fetch(`${bank.url}/ledger?order=${order}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        payments: { id: string; idempotencyKey: string | null }[];
      }
    ).payments;

  it("lists executors without their credentials, which are stored encrypted", async () => {
    const list = await listExecutors(db, ["default"]);
    expect(list.map((e) => e.environment).sort()).toEqual(["production", "sandbox"]);
    expect(JSON.stringify(list)).not.toContain(TOKEN);
    const rows = await db.sql.all<{ credential: string }>(`SELECT "credential" FROM "Executor"`);
    for (const r of rows) {
      expect(r.credential).not.toContain(TOKEN);
      expect(Buffer.from(r.credential, "base64").toString("utf8")).not.toContain(TOKEN);
    }
  });

  it("refuses viewer, reviewer, a sandbox operator on production, and a missing confirmation; nothing reaches the bank", async () => {
    const events = await runEvents(db, RETRY);
    const [first] = callSeqs(events, "issue_refund");
    const base = { run: RETRY, seq: first, digest: "x", reason: "check the refund" };
    expect(await refusal(reexecute(db, user("viewer", "viewer", []), { ...base, executor: sandbox, password: PASSWORD }))).toMatch(
      /^\[role\].*operator role/,
    );
    expect(await refusal(reexecute(db, user("reviewer", "reviewer", []), { ...base, executor: sandbox, password: PASSWORD }))).toMatch(
      /^\[role\]/,
    );
    expect(await refusal(reexecute(db, op, { ...base, executor: production, password: PASSWORD, operationName: "issue_refund" }))).toMatch(
      /^\[environment\].*production/,
    );
    expect(await refusal(reexecute(db, op, { ...base, executor: sandbox }))).toMatch(/^\[confirmation\]/);
    expect(await refusal(reexecute(db, op, { ...base, executor: sandbox, password: "wrong password 999" }))).toMatch(/^\[confirmation\]/);
    expect(
      await refusal(reconcile(db, user("viewer", "viewer", []), { ...base, executor: sandbox, mode: "ask", password: PASSWORD })),
    ).toMatch(/^\[role\]/);
    expect(await refusal(reconcile(db, op, { ...base, executor: sandbox, mode: "mark", outcome: "succeeded" }))).toMatch(
      /^\[confirmation\]/,
    );
    // open mode (the quick start, loopback only): sandbox executors only, and the operation's name typed
    const open: Principal = { kind: "open" };
    expect(await refusal(reexecute(db, open, { ...base, executor: production, operationName: "issue_refund" }))).toMatch(
      /^\[environment\].*open mode acts only on sandbox/,
    );
    expect(await refusal(reexecute(db, open, { ...base, executor: sandbox }))).toMatch(/^\[operation name\]/);
    expect(bank.requests).toEqual([]);
    const refused = (await listAudit(db, { projects: ["default"] })).filter((e) => e.result === "refused");
    expect(refused.map((e) => (JSON.parse(e.detail) as { step: string }).step).sort()).toEqual([
      "confirmation",
      "confirmation",
      "confirmation",
      "environment",
      "environment",
      "operation name",
      "role",
      "role",
      "role",
    ]);
  });

  it("refuses to act on a run whose payloads retention dropped: no recorded request is left to send", async () => {
    const events = await runEvents(db, KEYED);
    const [first] = callSeqs(events, "issue_refund");
    const before = bank.requests.length;
    // what the purge's payload stage leaves on the run row (lib/server/retention.ts)
    const setDropped = (at: number | null) =>
      db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "payloadsDroppedAt" = ? WHERE "id" = ?`, [at, KEYED]));
    await setDropped(Date.UTC(2026, 10, 1));
    try {
      const attempt = reexecute(db, op, { run: KEYED, seq: first, digest: "x", reason: "retry", executor: sandbox, password: PASSWORD });
      await expect(attempt).rejects.toThrow(/^\[run\].*payloads dropped by retention/);
      await expect(attempt).rejects.toMatchObject({ status: 409 });
      await expect(reexecutePreview(db, op, { run: KEYED, seq: first, executor: sandbox })).rejects.toThrow(/payloads dropped/);
      expect(bank.requests.length).toBe(before);
    } finally {
      await setDropped(null);
    }
  });

  it("refuses the re-execution while the timed-out payment is unreconciled, then reconciles it on a branch run", async () => {
    const events = await runEvents(db, RETRY);
    const [first, retry] = callSeqs(events, "issue_refund");
    const before = await reexecutePreview(db, op, { run: RETRY, seq: first, executor: sandbox });
    expect(before.refusal).toMatch(/reconcile it first/);
    expect(before.unknown.map((c) => c.seq)).toEqual([first]);
    const refused = await refusal(
      reexecute(db, op, {
        run: RETRY,
        seq: first,
        executor: sandbox,
        digest: before.digest,
        reason: "retry",
        password: PASSWORD,
        operationName: "issue_refund",
      }),
    );
    expect(refused).toMatch(/^\[unreconciled\]/);
    expect(bank.requests).toEqual([]);

    // the call has no idempotency key: the bank cannot be asked, the operator marks it
    const ask = await refusal(
      reconcile(db, op, { run: RETRY, seq: first, executor: sandbox, mode: "ask", reason: "ask", password: PASSWORD }),
    );
    expect(ask).toMatch(/^\[idempotency key\]/);
    const rp = await reconcilePreview(db, op, { run: RETRY, seq: first, executor: sandbox });
    expect(rp.refusal).toBeNull();
    const done = await reconcile(db, op, {
      run: RETRY,
      seq: first,
      executor: sandbox,
      mode: "mark",
      outcome: "succeeded",
      externalId: "rf_0001",
      evidence: "the bank's ledger shows rf_0001 for A-2002",
      reason: "gateway timed out after committing",
      password: PASSWORD,
    });
    expect(done.forkOf).toEqual({ run: RETRY, seq: rp.resultSeq });
    const branch = await runEvents(db, done.branch);
    expect(branch[0].data.forkOf).toEqual({ run: RETRY, seq: rp.resultSeq });
    expect(branch.length).toBe(rp.resultSeq + 2);
    const last = branch[branch.length - 1];
    expect(last.type).toBe("reconcile");
    expect(last.data).toMatchObject({
      outcome: "succeeded",
      evidence: { externalId: "rf_0001" },
      live: { action: "reconcile", environment: "sandbox" },
    });
    // the original journal is untouched
    expect((await runEvents(db, RETRY)).length).toBe(events.length);
    const entry = (await listAudit(db, { projects: ["default"] })).find((e) => e.seq === done.auditSeq)!;
    expect(entry).toMatchObject({
      action: "live.reconcile",
      actor: "user:op-sandbox",
      result: "ok",
      reason: "gateway timed out after committing",
    });
    expect((await branchesOf(db, RETRY)).map((b) => b.runId)).toEqual([done.branch]);
    expect(bank.requests).toEqual([]);

    // the retry preview now shows the writes it would repeat and needs the operation's name
    const after = await reexecutePreview(db, op, { run: RETRY, seq: first, executor: sandbox });
    expect(after.refusal).toBeNull();
    expect(after.keySource).toBe("new");
    expect(after.confirmed.map((c) => [c.seq, c.reconciled?.externalId ?? c.externalId])).toEqual([
      [first, "rf_0001"],
      [retry, "rf_0002"],
    ]);
    expect(after.needsOperationName).toBe(true);
    const noName = await refusal(
      reexecute(db, op, {
        run: RETRY,
        seq: first,
        executor: sandbox,
        digest: after.digest,
        reason: "pay again",
        password: PASSWORD,
      }),
    );
    expect(noName).toMatch(/^\[operation name\]/);
    expect(bank.requests).toEqual([]);
    // the same request from an instance that does not allow loopback executors: refused at the
    // request, on the address the bank's host resolves to, before anything is sent or stored
    const strict = t.open({ RETRACE_EXECUTOR_KEY_FILE: keyFile });
    const branchesBefore = (await branchesOf(db, RETRY)).length;
    const unsent = reexecute(strict, op, {
      run: RETRY,
      seq: first,
      executor: sandbox,
      digest: after.digest,
      reason: "customer asked for the refund again",
      password: PASSWORD,
      operationName: "issue_refund",
    });
    await expect(unsent).rejects.toThrow(
      /^\[executor\] the endpoint 127\.0\.0\.1 a loopback address .*RETRACE_EXECUTOR_HOSTS.*nothing was sent/,
    );
    await expect(unsent).rejects.toMatchObject({ status: 403 });
    expect(bank.requests).toEqual([]);
    expect((await branchesOf(db, RETRY)).length).toBe(branchesBefore);
    const live = await reexecute(db, op, {
      run: RETRY,
      seq: first,
      executor: sandbox,
      digest: after.digest,
      reason: "customer asked for the refund again",
      password: PASSWORD,
      operationName: "issue_refund",
    });
    expect(live.status).toBe("ok");
    expect(bank.requests.map((r) => [r.path, r.idempotencyKey])).toEqual([["/call", after.idempotencyKey]]);
    const liveEvents = await runEvents(db, live.branch);
    expect(liveEvents[0].data.forkOf).toEqual({ run: RETRY, seq: first });
    expect(liveEvents.filter((e) => e.data.live !== undefined).map((e) => [e.seq, e.type])).toEqual([
      [first, "tool.call"],
      [first + 1, "tool.result"],
    ]);
    expect((await ledger("A-2002")).length).toBe(3);
  });

  it("a payment whose agent stopped before any result: re-execution refused until it is reconciled, and it can be", async () => {
    const CRASHED = `crashed-mid-refund-${dialect}`;
    const ts = (s: number) => `2026-12-01T10:00:0${s}.000Z`;
    const journal = [
      { type: "run.start", data: { workflow: { name: "refunds" }, input: { order: "A-9009" } } },
      { type: "step.start", step: "s1", data: { name: "refund" } },
      {
        type: "tool.call",
        step: "s1",
        data: {
          call: "c-pay",
          tool: "issue_refund",
          effect: "write",
          idempotencyKey: "refund-A-9009",
          args: { order: "A-9009", amount: 10 },
        },
      },
    ].map((e, seq) => JSON.stringify({ v: 1, run: CRASHED, seq, ts: ts(seq), ...e }));
    await ingestBytes(db, bytesOf(journal.join("\n") + "\n"), { mode: "upload", source: "upload" });
    const pay = 2;
    const sent = bank.requests.length;

    const before = await reexecutePreview(db, op, { run: CRASHED, seq: pay, executor: sandbox });
    expect(before.refusal).toMatch(/#2 \(no result\) of issue_refund .* reconcile it first/);
    const refused = await refusal(
      reexecute(db, op, {
        run: CRASHED,
        seq: pay,
        executor: sandbox,
        digest: before.digest,
        reason: "the agent crashed",
        password: PASSWORD,
        operationName: "issue_refund",
      }),
    );
    expect(refused).toMatch(/^\[unreconciled\]/);

    const rp = await reconcilePreview(db, op, { run: CRASHED, seq: pay, executor: sandbox });
    expect(rp).toMatchObject({ refusal: null, resultSeq: pay, status: "no result", key: "refund-A-9009" });
    const done = await reconcile(db, op, {
      run: CRASHED,
      seq: pay,
      executor: sandbox,
      mode: "mark",
      outcome: "succeeded",
      externalId: "rf_9009",
      evidence: "the ledger has it",
      reason: "the agent stopped after sending it",
      password: PASSWORD,
    });
    expect(done.forkOf).toEqual({ run: CRASHED, seq: pay });
    const branch = await runEvents(db, done.branch);
    expect(branch.map((e) => e.type)).toEqual(["run.start", "step.start", "tool.call", "reconcile"]);
    expect(branch[3]).toMatchObject({ parent: pay, step: "s1", data: { call: "c-pay", outcome: "succeeded" } });
    expect(bank.requests.length).toBe(sent); // nothing reached the bank

    const after = await reexecutePreview(db, op, { run: CRASHED, seq: pay, executor: sandbox });
    expect(after.refusal).toBeNull();
    expect(after.confirmed.map((c) => [c.seq, c.reconciled?.externalId])).toEqual([[pay, "rf_9009"]]);
    expect(after.needsOperationName).toBe(true);
    expect((await reconcilePreview(db, op, { run: CRASHED, seq: pay, executor: sandbox })).refusal).toMatch(
      /already reconciled as succeeded on branch/,
    );
  });

  it("the same idempotency key sent twice pays once (the bank's ledger)", async () => {
    const events = await runEvents(db, KEYED);
    const [pay] = callSeqs(events, "issue_refund");
    expect(await ledger("A-1001")).toHaveLength(1);
    const outcomes = [];
    for (let i = 0; i < 2; i++) {
      const p = await reexecutePreview(db, op, { run: KEYED, seq: pay, executor: sandbox });
      expect(p.keySource).toBe("recorded");
      expect(p.idempotencyKey).toBe("refund-A-1001");
      outcomes.push(
        await reexecute(db, op, {
          run: KEYED,
          seq: pay,
          executor: sandbox,
          digest: p.digest,
          reason: "same key twice",
          password: PASSWORD,
          operationName: "issue_refund",
        }),
      );
    }
    expect(outcomes.map((o) => o.externalId)).toEqual(["rf_0001", "rf_0001"]);
    const payments = await ledger("A-1001");
    expect(payments.map((p) => p.idempotencyKey)).toEqual(["refund-A-1001"]);
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it("asks the executor by idempotency key and records what it answered", async () => {
    // the keyed run as it stood before its own reconcile: the timeout not yet explained
    const events = await runEvents(db, KEYED);
    const timeout = events.find((e) => e.type === "tool.result" && e.data.status === "timeout")!;
    const cut = events
      .filter((e) => e.seq <= timeout.seq)
      .map((e) => JSON.stringify({ ...e, run: "keyed-cut" }))
      .join("\n");
    await ingestBytes(db, bytesOf(cut + "\n"), { mode: "upload", source: "upload" });
    bank.requests.length = 0;
    const r = await reconcile(db, op, {
      run: "keyed-cut",
      seq: timeout.seq,
      executor: sandbox,
      mode: "ask",
      reason: "ask the bank",
      password: PASSWORD,
    });
    expect(r).toMatchObject({ status: "succeeded", externalId: "rf_0001" });
    expect(bank.requests.map((q) => [q.path, q.idempotencyKey])).toEqual([["/lookup", "refund-A-1001"]]);
    const last = (await runEvents(db, r.branch)).at(-1)!;
    expect(last.data).toMatchObject({ outcome: "succeeded", evidence: { executorAnswer: { found: true, externalId: "rf_0001" } } });
    // a second reconcile of the same call is refused: it is already reconciled on a branch
    const again = await refusal(
      reconcile(db, op, {
        run: "keyed-cut",
        seq: timeout.seq,
        executor: sandbox,
        mode: "ask",
        reason: "again",
        password: PASSWORD,
      }),
    );
    expect(again).toMatch(/^\[outcome\].*already reconciled/);
  });
});
