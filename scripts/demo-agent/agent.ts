/**
 * The demo agent itself, as an importable module: what it does in each scenario, through a
 * recorder it is given. Recording (scenarios.ts, `npm start`) gives it a recorder that writes
 * a journal; a replay (`replayAgainst` / `expectAgentToMatchJournal` from lib/recorder)
 * gives it one that answers its model and tool calls from that journal, so a changed line
 * here can be tested against a recorded run:
 *
 *   const agent = demoAgent("refund-approval", { bank, model: new ScriptedModel() });
 *   await expectAgentToMatchJournal(agent, "data/demo/refund-approval.jsonl");
 *
 * The bank's seed data (seeds.ts) is the world the agent ran in, not the agent: a replay
 * opens the bank the recording left (its tools are never called) and seeds nothing.
 */
import { ToolTimeoutError, type Recorder, type ReplayableAgent } from "../../lib/recorder";
import type { Bank, KbDoc, Payment } from "./bank";
import { ScriptedModel, type ChatMessage } from "./model";

export const SCENARIOS = ["refund-approval", "transfer-watch", "refund-retry-no-idempotency", "refund-gateway-outage"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface DemoDeps {
  bank: Bank;
  model: ScriptedModel;
}

export const INPUTS: Record<ScenarioName, string> = {
  "refund-approval": "Hi, I was charged twice for order A-1001. Please refund the duplicate.",
  "transfer-watch": "Tell me when transfer TR-7 has settled.",
  "refund-retry-no-idempotency": "Order A-2002 was charged twice, refund it please.",
  "refund-gateway-outage": "Order A-3003 was charged three times; please refund the two duplicate charges.",
};

export const SYSTEM = "You are a careful support agent for a small bank. Follow the refund policy. Ask for approval before moving money.";
export const INSTRUCTIONS = ["refund-policy", "tone"];

interface Ctx {
  rec: Recorder;
  bank: Bank;
  model: ScriptedModel;
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

/** The agent of one scenario: runs it through `rec` and ends the run (failed, with the error, when it throws). */
export function demoAgent(name: ScenarioName, deps: DemoDeps): ReplayableAgent {
  return async (rec) => {
    try {
      return await RUNNERS[name]({ rec, ...deps });
    } catch (e) {
      await rec.end("failed", { error: e instanceof Error ? e : String(e) });
      return "failed";
    }
  };
}
