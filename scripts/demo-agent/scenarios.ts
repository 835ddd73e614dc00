/**
 * The demo agent's scenarios, recorded with the SDK:
 * - `refund-approval`: a refund gated by an approval; the payment write times out although
 *   it committed, and a reconcile through the executor finds it (no second payment);
 * - `transfer-watch`: a loop that checks a transfer until its stop condition is met;
 * - `refund-retry-no-idempotency`: the failure mode: a stale policy document, a write
 *   without idempotency key that times out and is retried blindly, paying twice;
 * - `refund-gateway-outage`: a run that fails and can be resumed: two refunds after a
 *   durable checkpoint, the first confirmed, the second timing out (it committed); the
 *   agent stops for a person instead of guessing (docs/live-actions.md, "Resume").
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createRecorder, fileSink, httpSink, type Sink } from "../../lib/recorder";
import { demoAgent, INPUTS, INSTRUCTIONS, SCENARIOS, type ScenarioName } from "./agent";
import { Bank, type Payment } from "./bank";
import { ScriptedModel } from "./model";
import { seedScenario } from "./seeds";

export { SCENARIOS, type ScenarioName };

export interface RunOptions {
  /** Write one `<scenario>.jsonl` per scenario here. */
  outDir?: string;
  /** Stream to a running Retrace instead (e.g. http://127.0.0.1:3000). */
  url?: string;
  token?: string;
  spoolDir?: string;
  /** Folder for the SQLite banks (one file per scenario). */
  dbDir: string;
  /** A clock that starts at 2026-11-07T10:00:00Z and moves 250 ms per reading: stable journals. */
  fixedClock?: boolean;
  scenarios?: ScenarioName[];
  log?: (line: string) => void;
}

export interface ScenarioResult {
  name: ScenarioName;
  runId: string;
  file?: string;
  status: "succeeded" | "failed" | "cancelled";
  delivered: boolean;
  payments: Payment[];
}

function makeClock(fixed: boolean): () => number {
  if (!fixed) return Date.now;
  let t = Date.UTC(2026, 10, 7, 10, 0, 0);
  return () => (t += 250);
}

const POLICIES: Record<ScenarioName, Record<string, unknown>> = {
  "refund-approval": {
    requireApproval: ["issue_refund"],
    maxSteps: 8,
    retrievalMaxAgeSeconds: 30 * 86400,
    requiredInstructions: INSTRUCTIONS,
  },
  "transfer-watch": { maxSteps: 6, requiredInstructions: INSTRUCTIONS },
  "refund-retry-no-idempotency": {
    requireApproval: ["issue_refund"],
    maxSteps: 8,
    retrievalMaxAgeSeconds: 30 * 86400,
    requiredInstructions: INSTRUCTIONS,
  },
  "refund-gateway-outage": { maxSteps: 8, retrievalMaxAgeSeconds: 30 * 86400, requiredInstructions: INSTRUCTIONS },
};

const ORDER_OF: Partial<Record<ScenarioName, string>> = {
  "refund-approval": "A-1001",
  "refund-retry-no-idempotency": "A-2002",
  "refund-gateway-outage": "A-3003",
};

export async function runScenarios(opts: RunOptions): Promise<ScenarioResult[]> {
  const log = opts.log ?? (() => undefined);
  const names = opts.scenarios ?? [...SCENARIOS];
  const shared = opts.url
    ? httpSink({
        baseUrl: opts.url,
        token: opts.token,
        spoolDir: opts.spoolDir ?? join(opts.dbDir, "spool"),
        batchSize: 50,
        flushIntervalMs: 200,
      })
    : undefined;
  const results: ScenarioResult[] = [];
  for (const name of names) {
    const now = makeClock(!!opts.fixedClock);
    // A fixed clock gives stable ids; a real one needs unique ids per run.
    const runId = opts.fixedClock
      ? `demo-${name}`
      : `demo-${name}-${new Date()
          .toISOString()
          .replace(/[^0-9]/g, "")
          .slice(0, 14)}`;
    let sink: Sink;
    let file: string | undefined;
    if (shared) sink = shared;
    else {
      if (!opts.outDir) throw new Error("give outDir or url");
      file = join(opts.outDir, `${name}.jsonl`);
      rmSync(file, { force: true });
      sink = fileSink(file);
    }
    const bank = new Bank(join(opts.dbDir, `${name}.sqlite`), now);
    const model = new ScriptedModel();
    const rec = createRecorder({
      runId,
      workflow: { name: name.startsWith("refund") ? "support-refund" : "transfer-watch", version: "2026.11" },
      agent: { name: "retrace-demo-agent", version: "0.1.0" },
      versions: {
        prompts: { system: "v1" },
        policies: { default: "v1" },
        tools: { lookup_order: "1.0.0", kb_search: "1.0.0", issue_refund: "1.0.0", check_transfer: "1.0.0", find_payment: "1.0.0" },
        models: { planner: model.name },
      },
      environment: "demo",
      initiator: { kind: "user", id: name === "transfer-watch" ? "cust-9" : name === "refund-gateway-outage" ? "cust-88" : "cust-42" },
      policy: POLICIES[name],
      input: { message: INPUTS[name] },
      tags: ["demo", name],
      sink,
      clock: now,
    });
    seedScenario(name, bank, now);
    const status = (await demoAgent(name, { bank, model })(rec)) as ScenarioResult["status"];
    const delivered = await sink.flush(15_000);
    const order = ORDER_OF[name];
    const payments = order ? bank.paymentsFor(order) : [];
    bank.close();
    log(
      `${name}: run ${runId} ${status}${file ? ` → ${file}` : ""}${order ? `, payments for ${order}: ${payments.length}` : ""}${delivered ? "" : " (not all events delivered yet; spooled)"}`,
    );
    results.push({ name, runId, file, status, delivered, payments });
  }
  if (shared) await shared.close(15_000);
  return results;
}
