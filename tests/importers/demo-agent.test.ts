/**
 * The demo agent's scenarios run for real (SQLite bank, recorder, file sink), and their
 * journals are read back with the journal reader. The bank is checked directly with SQL,
 * independently of the agent: the reconciled refund paid once, the blind retry paid twice.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { readJournalText } from "@/lib/journal/reader";
import type { JournalEvent } from "@/lib/journal/types";
import { verifyChain } from "@/lib/recorder";
import { appendServer, stored } from "@/lib/recorder/testing/append-server";
import { runScenarios, SCENARIOS, type ScenarioResult } from "@/scripts/demo-agent/scenarios";

const tmp = mkdtempSync(join(tmpdir(), "retrace-demo-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function paymentsInBank(dbFile: string, orderId: string): Array<{ id: string; amount_cents: number; idempotency_key: string | null }> {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare("SELECT id, amount_cents, idempotency_key FROM payments WHERE order_id = ? ORDER BY id").all(orderId) as Array<{
      id: string;
      amount_cents: number;
      idempotency_key: string | null;
    }>;
  } finally {
    db.close();
  }
}

describe("demo agent", () => {
  const out = join(tmp, "out");
  const dbDir = join(tmp, "banks");
  let results: ScenarioResult[];
  const journals = new Map<string, JournalEvent[]>();

  beforeAll(async () => {
    results = await runScenarios({ outDir: out, dbDir, fixedClock: true });
    for (const name of SCENARIOS) {
      const { events, errors } = await readJournalText(readFileSync(join(out, `${name}.jsonl`), "utf8"));
      expect(errors).toEqual([]);
      journals.set(name, events);
    }
  });

  it("writes one journal per scenario that the reader reads without errors and whose chain verifies", () => {
    expect(results.map((r) => [r.name, r.status, r.delivered])).toEqual(
      SCENARIOS.map((n) => [n, n === "refund-gateway-outage" ? "failed" : "succeeded", true]),
    );
    for (const name of SCENARIOS) {
      const events = journals.get(name)!;
      expect(events.length).toBeGreaterThan(10);
      expect(events.map((e) => e.seq)).toEqual([...events.keys()]);
      expect(events[0].type).toBe("run.start");
      expect(events.at(-1)?.type).toBe("run.end");
      expect(new Set(events.map((e) => e.run))).toEqual(new Set([`demo-${name}`]));
      expect(verifyChain(events).firstFailure).toBeNull();
    }
  });

  it("refund-approval: the write timed out but had committed; reconcile finds it and the bank paid exactly once", () => {
    const events = journals.get("refund-approval")!;
    const types = events.map((e) => e.type);
    const pay = events.find((e) => e.type === "tool.call" && e.data.tool === "issue_refund")!;
    expect(pay.data).toMatchObject({ effect: "write", idempotencyKey: "refund-A-1001" });
    const approvalDecision = events.findIndex((e) => e.type === "approval.decision" && e.data.decision === "approved");
    expect(approvalDecision).toBeGreaterThan(0);
    expect(approvalDecision).toBeLessThan(pay.seq);
    const result = events.find((e) => e.type === "tool.result" && e.data.call === pay.data.call)!;
    expect(result.data.status).toBe("timeout");
    const reconcile = events.find((e) => e.type === "reconcile")!;
    expect(reconcile.data).toMatchObject({ call: pay.data.call, outcome: "succeeded", evidence: { paymentId: "rf_0001" } });
    expect(events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund")).toHaveLength(1);
    expect(types).toContain("checkpoint");
    expect(types).toContain("state");
    // Independently of the agent: one row in the payments table.
    const rows = paymentsInBank(join(dbDir, "refund-approval.sqlite"), "A-1001");
    expect(rows).toEqual([{ id: "rf_0001", amount_cents: 4999, idempotency_key: "refund-A-1001" }]);
    expect(analyzeEvents(events)).toEqual([]);
  });

  it("transfer-watch: stops when its stop condition is met, and nothing comes after the stop", () => {
    const events = journals.get("transfer-watch")!;
    const decisions = events.filter((e) => e.type === "decision");
    expect(decisions.map((d) => d.data.action)).toEqual(["continue", "continue", "continue", "stop"]);
    expect(decisions.at(-1)?.data.stop).toEqual({ condition: "transfer settled", met: true });
    const stopSeq = decisions.at(-1)!.seq;
    expect(events.slice(stopSeq + 1).map((e) => e.type)).toEqual(["run.end"]);
    expect(events.filter((e) => e.type === "tool.result").map((e) => (e.data.result as { status: string }).status)).toEqual([
      "pending",
      "pending",
      "settled",
    ]);
    expect(analyzeEvents(events)).toEqual([]);
  });

  it("refund-retry-no-idempotency: the blind retry pays twice, and analysis finds why", () => {
    const events = journals.get("refund-retry-no-idempotency")!;
    const pays = events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund");
    expect(pays).toHaveLength(2);
    expect(pays.every((p) => p.data.idempotencyKey === undefined)).toBe(true);
    expect(events.some((e) => e.type === "reconcile")).toBe(false);
    const rows = paymentsInBank(join(dbDir, "refund-retry-no-idempotency.sqlite"), "A-2002");
    expect(rows.map((r) => r.id)).toEqual(["rf_0001", "rf_0002"]);
    const rules = analyzeEvents(events).map((f) => f.rule);
    expect(rules).toEqual(
      expect.arrayContaining(["retrieval.stale", "effect.no-idempotency", "effect.retry-after-unknown", "approval.missing"]),
    );
  });

  it("refund-gateway-outage: fails after a durable checkpoint with one refund confirmed and one timed out (it committed)", () => {
    const events = journals.get("refund-gateway-outage")!;
    const cps = events.filter((e) => e.type === "checkpoint").map((e) => [e.data.id, e.data.durable]);
    expect(cps).toEqual([
      ["received", true],
      ["triaged", true],
      ["refunded-2", false],
    ]);
    const pays = events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund");
    expect(pays.map((p) => p.data.idempotencyKey)).toEqual(["refund-A-3003-charge-2", "refund-A-3003-charge-3"]);
    const statuses = pays.map((p) => events.find((e) => e.type === "tool.result" && e.data.call === p.data.call)?.data.status);
    expect(statuses).toEqual(["ok", "timeout"]);
    expect(events.at(-1)?.data).toMatchObject({ status: "failed" });
    expect(events.some((e) => e.type === "reconcile")).toBe(false);
    // the bank committed both: the second is what a reconcile by idempotency key finds
    const rows = paymentsInBank(join(dbDir, "refund-gateway-outage.sqlite"), "A-3003");
    expect(rows.map((r) => r.idempotency_key)).toEqual(["refund-A-3003-charge-2", "refund-A-3003-charge-3"]);
  });

  it("is deterministic with the fixed clock: a second run writes the same bytes", async () => {
    const again = join(tmp, "again");
    await runScenarios({ outDir: again, dbDir: join(tmp, "banks-again"), fixedClock: true });
    for (const name of SCENARIOS)
      expect(readFileSync(join(again, `${name}.jsonl`), "utf8")).toBe(readFileSync(join(out, `${name}.jsonl`), "utf8"));
  });

  it("the CLI (npx tsx scripts/demo-agent/main.ts --out DIR) writes the same journals", () => {
    const cli = join(tmp, "cli");
    const stdout = execFileSync(
      join(process.cwd(), "node_modules/.bin/tsx"),
      ["scripts/demo-agent/main.ts", "--out", cli, "--db", join(tmp, "banks-cli")],
      {
        cwd: process.cwd(),
        encoding: "utf8",
      },
    );
    expect(stdout).toMatch(/payments for A-1001: 1/);
    expect(stdout).toMatch(/payments for A-2002: 2/);
    for (const name of SCENARIOS)
      expect(readFileSync(join(cli, `${name}.jsonl`), "utf8")).toBe(readFileSync(join(out, `${name}.jsonl`), "utf8"));
  });

  it("streams to a server with --url semantics: every event arrives once", async () => {
    const server = await appendServer();
    try {
      const streamed = await runScenarios({
        url: `http://127.0.0.1:${server.port}`,
        dbDir: join(tmp, "banks-url"),
        spoolDir: join(tmp, "spool"),
        fixedClock: true,
      });
      expect(streamed.every((r) => r.delivered)).toBe(true);
      for (const name of SCENARIOS) {
        expect(stored(server, `demo-${name}`).map((e) => e.seq)).toEqual(journals.get(name)!.map((e) => e.seq));
      }
    } finally {
      await server.stop();
    }
  });
});
