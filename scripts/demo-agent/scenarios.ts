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
import { createRecorder, fileSink, httpSink, ToolTimeoutError, type Recorder, type Sink } from "../../lib/recorder";
import { Bank, type KbDoc, type Payment } from "./bank";
import { ScriptedModel, type ChatMessage } from "./model";

export const SCENARIOS = ["refund-approval", "transfer-watch", "refund-retry-no-idempotency", "refund-gateway-outage"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

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

const INPUTS: Record<ScenarioName, string> = {
  "refund-approval": "Hi, I was charged twice for order A-1001. Please refund the duplicate.",
  "transfer-watch": "Tell me when transfer TR-7 has settled.",
  "refund-retry-no-idempotency": "Order A-2002 was charged twice, refund it please.",
  "refund-gateway-outage": "Order A-3003 was charged three times; please refund the two duplicate charges.",
};

const SYSTEM = "You are a careful support agent for a small bank. Follow the refund policy. Ask for approval before moving money.";
const INSTRUCTIONS = ["refund-policy", "tone"];
const DAY = 86_400_000;

function makeClock(fixed: boolean): () => number {
  if (!fixed) return Date.now;
  let t = Date.UTC(2026, 10, 7, 10, 0, 0);
  return () => (t += 250);
}

interface Ctx {
  rec: Recorder;
  bank: Bank;
  model: ScriptedModel;
  now: () => number;
}

const TOOLS = ["lookup_order", "kb_search", "issue_refund", "check_transfer"];

/** One agent turn: context → model → the tool calls it asked for. Returns the final text, if any. */
async function turn(
  c: Ctx,
  n: number,
  messages: ChatMessage[],
  runTool: (name: string, id: string, args: Record<string, unknown>) => Promise<unknown>,
): Promise<string | undefined> {
  return c.rec.step(
    `turn-${n}`,
    async () => {
      const ctx = c.rec.context({
        messages: messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { source: `tool:${m.name}` } : {}) })),
        instructions: INSTRUCTIONS,
        template: { id: "main", version: "v1" },
      });
      const completion = await c.rec.model({ model: c.model.name, context: ctx, params: { temperature: 0 }, tools: TOOLS }, async () =>
        c.model.complete(messages),
      );
      const msg = completion.choices[0].message;
      messages.push({ role: "assistant", content: msg.content ?? "", ...(msg.tool_calls ? { tool_calls: msg.tool_calls } : {}) });
      if (!msg.tool_calls || msg.tool_calls.length === 0) return msg.content ?? "";
      for (const tc of msg.tool_calls) {
        const args = JSON.parse(tc.function.arguments) as Record<string, unknown>;
        const result = await runTool(tc.function.name, tc.id, args);
        messages.push({ role: "tool", name: tc.function.name, tool_call_id: tc.id, content: JSON.stringify(result ?? null) });
      }
      return undefined;
    },
    { kind: "agent" },
  );
}

async function lookupAndSearch(c: Ctx, name: string, id: string, args: Record<string, unknown>): Promise<unknown> {
  if (name === "lookup_order") {
    const order = await c.rec.tool(
      "lookup_order",
      { effect: "read", call: id, version: "1.0.0" },
      args,
      async (a) => c.bank.lookupOrder(String(a.orderId)) ?? null,
    );
    if (order) c.rec.state([{ op: "add", path: "/order", value: order }]);
    return order;
  }
  if (name === "kb_search") {
    const docs = await c.rec.tool("kb_search", { effect: "read", call: id, version: "1.0.0" }, args, async (a) =>
      c.bank.searchKb(String(a.query)),
    );
    c.rec.retrieval(
      args.query,
      docs.map((d: KbDoc) => ({ id: d.id, version: d.version, indexedAt: d.indexedAt, content: d.content })),
    );
    return docs.map((d) => d.content);
  }
  throw new Error(`unknown tool ${name}`);
}

// (a) -----------------------------------------------------------------------------------
async function refundApproval(c: Ctx): Promise<"succeeded"> {
  const orderId = "A-1001";
  c.bank.seed({
    orders: [{ id: orderId, customer: "cust-42", amountCents: 4999, chargedTimes: 2, status: "charged-twice" }],
    kb: [
      {
        id: "kb-refunds",
        version: "7",
        indexedAt: new Date(c.now() - 2 * DAY).toISOString(),
        content: "Duplicate charge: refund the duplicate in full. Refunds need supervisor approval.",
      },
      {
        id: "kb-tone",
        version: "3",
        indexedAt: new Date(c.now() - 5 * DAY).toISOString(),
        content: "Be brief and friendly; confirm the refund policy amount.",
      },
    ],
  });
  // The gateway commits the first refund and then times out: the classic "did it pay?".
  c.bank.failAfterCommit(1);
  const text = INPUTS["refund-approval"];
  c.rec.input(text);
  c.rec.state([{ op: "add", path: "/phase", value: "triage" }]);
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: text },
  ];
  let final: string | undefined;
  for (let n = 1; n <= 6 && final === undefined; n++) {
    final = await turn(c, n, messages, async (name, id, args) => {
      if (name !== "issue_refund") return lookupAndSearch(c, name, id, args);
      const key = `refund-${orderId}`;
      c.rec.state([{ op: "replace", path: "/phase", value: "refund" }]);
      const approval = c.rec.approvalRequest(id, { id: "default", version: "v1" });
      c.rec.approvalDecision(approval, "approved", "supervisor@bank.test", "duplicate charge confirmed in the order record");
      let payment: Payment | undefined;
      try {
        payment = await c.rec.tool(
          "issue_refund",
          { effect: "write", idempotencyKey: key, target: "bank.sqlite", call: id, version: "1.0.0", externalId: (p) => (p as Payment).id },
          args,
          async (a) => c.bank.pay({ orderId: String(a.orderId), amountCents: Number(a.amountCents), idempotencyKey: key }),
        );
      } catch (e) {
        if (!(e instanceof ToolTimeoutError)) throw e;
        // Never retry a write blindly: ask the executor what happened to this idempotency key.
        const found = await c.rec.tool(
          "find_payment",
          { effect: "read", version: "1.0.0" },
          { idempotencyKey: key },
          async (a) => c.bank.findPaymentByKey(a.idempotencyKey) ?? null,
        );
        c.rec.reconcile(id, found ? "succeeded" : "failed", {
          evidence: found ? { paymentId: found.id, idempotencyKey: key } : { idempotencyKey: key },
          by: "executor",
        });
        payment = found ?? undefined;
      }
      if (!payment) throw new Error("refund could not be confirmed");
      c.rec.state([
        { op: "replace", path: "/phase", value: "refunded" },
        { op: "add", path: "/refund", value: { paymentId: payment.id, amountCents: payment.amountCents } },
      ]);
      c.rec.checkpoint({ durable: true });
      return payment;
    });
    if (final === undefined) c.rec.decision("continue", { reason: "tool results to read" });
  }
  c.rec.decision("stop", { reason: "the customer has an answer", stop: { condition: "refund confirmed and answered", met: true } });
  await c.rec.end("succeeded", { output: final });
  return "succeeded";
}

// (b) -----------------------------------------------------------------------------------
async function transferWatch(c: Ctx): Promise<"succeeded"> {
  const transferId = "TR-7";
  c.bank.seed({ transfers: [{ id: transferId, settlesAfter: 3 }] });
  const text = INPUTS["transfer-watch"];
  c.rec.input(text);
  c.rec.state([{ op: "add", path: "/transfer", value: { id: transferId, status: "unknown" } }]);
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: text },
  ];
  let final: string | undefined;
  for (let n = 1; n <= 6 && final === undefined; n++) {
    let status = "unknown";
    final = await turn(c, n, messages, async (name, id, args) => {
      const r = await c.rec.tool("check_transfer", { effect: "read", call: id, version: "1.0.0" }, args, async (a) =>
        c.bank.checkTransfer(String(a.transferId)),
      );
      status = r.status;
      c.rec.state([{ op: "replace", path: "/transfer/status", value: r.status }]);
      return r;
    });
    if (final !== undefined) break;
    c.rec.decision("continue", { reason: `transfer is ${status}`, stop: { condition: "transfer settled", met: false } });
  }
  c.rec.decision("stop", { reason: "stop condition met", stop: { condition: "transfer settled", met: true } });
  await c.rec.end("succeeded", { output: final });
  return "succeeded";
}

// (c) -----------------------------------------------------------------------------------
async function refundRetryNoIdempotency(c: Ctx): Promise<"succeeded"> {
  const orderId = "A-2002";
  c.bank.seed({
    orders: [{ id: orderId, customer: "cust-77", amountCents: 12900, chargedTimes: 2, status: "charged-twice" }],
    // Indexed more than a year ago: the policy has changed since (retrieval.stale).
    kb: [
      {
        id: "kb-refunds",
        version: "2",
        indexedAt: new Date(c.now() - 400 * DAY).toISOString(),
        content: "Duplicate charge: refund immediately, no approval needed.",
      },
    ],
  });
  c.bank.failAfterCommit(1);
  const text = INPUTS["refund-retry-no-idempotency"];
  c.rec.input(text);
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: text },
  ];
  let final: string | undefined;
  for (let n = 1; n <= 6 && final === undefined; n++) {
    final = await turn(c, n, messages, async (name, id, args) => {
      if (name !== "issue_refund") return lookupAndSearch(c, name, id, args);
      const approval = c.rec.approvalRequest(id, { id: "default", version: "v1" });
      c.rec.approvalDecision(approval, "approved", "supervisor@bank.test");
      const pay = (callId: string) =>
        c.rec.tool(
          "issue_refund",
          { effect: "write", target: "bank.sqlite", call: callId, version: "1.0.0", externalId: (p) => (p as Payment).id },
          args,
          async (a) => c.bank.pay({ orderId: String(a.orderId), amountCents: Number(a.amountCents) }),
        );
      try {
        return await pay(id);
      } catch (e) {
        if (!(e instanceof ToolTimeoutError)) throw e;
        // The bug on purpose: a blind retry, no idempotency key, no reconcile, no new approval.
        c.rec.error("issue_refund timed out; retrying", { code: "timeout", retryable: true });
        return await pay(`${id}-retry`);
      }
    });
    if (final === undefined) c.rec.decision("continue");
  }
  c.rec.decision("stop", { reason: "answered", stop: { condition: "refund sent", met: true } });
  await c.rec.end("succeeded", { output: final });
  return "succeeded";
}

// (d) -----------------------------------------------------------------------------------
async function refundGatewayOutage(c: Ctx): Promise<"succeeded"> {
  const orderId = "A-3003";
  c.bank.seed({
    orders: [{ id: orderId, customer: "cust-88", amountCents: 2500, chargedTimes: 3, status: "charged-three-times" }],
    kb: [
      {
        id: "kb-refunds",
        version: "7",
        indexedAt: new Date(c.now() - 2 * DAY).toISOString(),
        content: "Duplicate charge: refund each duplicate in full, one refund per charge.",
      },
    ],
  });
  const text = INPUTS["refund-gateway-outage"];
  c.rec.input(text);
  c.rec.state([{ op: "add", path: "/phase", value: "triage" }]);
  c.rec.checkpoint({ id: "received", durable: true });
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: text },
  ];
  let final: string | undefined;
  for (let n = 1; n <= 6 && final === undefined; n++) {
    final = await turn(c, n, messages, async (name, id, args) => {
      if (name !== "issue_refund") {
        const r = await lookupAndSearch(c, name, id, args);
        if (name === "lookup_order") {
          c.rec.state([{ op: "replace", path: "/phase", value: "triaged" }]);
          // the order is known: a restart from here need not look it up again
          c.rec.checkpoint({ id: "triaged", durable: true });
        }
        return r;
      }
      const charge = Number(args.charge);
      const key = `refund-${orderId}-charge-${charge}`;
      // the gateway commits the second refund and then times out
      if (charge === 3) c.bank.failAfterCommit(1);
      try {
        const payment = await c.rec.tool(
          "issue_refund",
          { effect: "write", idempotencyKey: key, target: "bank.sqlite", call: id, version: "1.0.0", externalId: (p) => (p as Payment).id },
          args,
          async (a) => c.bank.pay({ orderId: String(a.orderId), amountCents: Number(a.amountCents), idempotencyKey: key }),
        );
        c.rec.state([{ op: "add", path: `/refund-${charge}`, value: { paymentId: payment.id } }]);
        // kept in memory only: the agent's process would lose it
        c.rec.checkpoint({ id: `refunded-${charge}`, durable: false });
        return payment;
      } catch (e) {
        if (!(e instanceof ToolTimeoutError)) throw e;
        // Not retried and not guessed: the run stops for a person (who reconciles, then resumes).
        c.rec.error(`issue_refund for charge ${charge} timed out: the outcome is unknown`, { code: "timeout", retryable: false });
        throw new Error(`refund of charge ${charge} could not be confirmed; stopping for a person`);
      }
    });
    if (final === undefined) c.rec.decision("continue", { reason: "tool results to read" });
  }
  await c.rec.end("succeeded", { output: final });
  return "succeeded";
}

const RUNNERS: Record<ScenarioName, (c: Ctx) => Promise<"succeeded">> = {
  "refund-approval": refundApproval,
  "transfer-watch": transferWatch,
  "refund-retry-no-idempotency": refundRetryNoIdempotency,
  "refund-gateway-outage": refundGatewayOutage,
};

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
    let status: ScenarioResult["status"] = "succeeded";
    try {
      status = await RUNNERS[name]({ rec, bank, model, now });
    } catch (e) {
      status = "failed";
      await rec.end("failed", { error: e instanceof Error ? e : String(e) });
    }
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
