/**
 * A realistic synthetic journal for benchmarks: steps of context → model call → tool
 * call/result → state patch, with payloads of the sizes seen in the example journals
 * (a few hundred bytes to a few KB), a valid recorder chain, and a secret now and then.
 */
import { hashOf } from "../lib/canonical";
import { computeEventHash } from "../lib/journal/chain";
import type { JournalEvent } from "../lib/journal/types";

export function generateJournal(n: number, runId = "bench-run-1", extraPolicy: Record<string, unknown> = {}): string {
  const lines: string[] = [];
  let prev = "";
  let state: Record<string, unknown> = {};
  void state;
  const base = Date.parse("2026-11-07T11:00:00.000Z");
  const words = "the order refund customer policy approval payment invoice shipment delayed warehouse inventory".split(" ");
  const text = (k: number, len: number) => {
    let s = "";
    while (s.length < len) s += words[(k + s.length) % words.length] + " ";
    return s.slice(0, len);
  };
  for (let seq = 0; seq < n; seq++) {
    const ts = new Date(base + seq * 37).toISOString();
    const step = `s${Math.floor(seq / 8)}`;
    let type: string;
    let data: Record<string, unknown>;
    const k = seq % 8;
    if (seq === 0) {
      type = "run.start";
      data = {
        workflow: { name: "bench", version: "1" },
        agent: { name: "bench-agent", version: "1" },
        versions: { prompts: { system: "v1" }, policies: {}, tools: { lookup: "1" }, models: { planner: "m1" } },
        environment: "bench",
        initiator: { kind: "user", id: "u1" },
        input: { message: text(seq, 120) },
        policy: { requireApproval: ["pay"], maxSteps: 1_000_000, ...extraPolicy },
      };
    } else if (k === 0) {
      type = "step.start";
      data = { name: `step ${seq}` };
    } else if (k === 1) {
      type = "context";
      data = {
        messages: [
          { role: "system", content: text(seq, 400), source: "prompt:system" },
          { role: "user", content: text(seq + 3, 300) },
        ],
        instructions: ["tone"],
        template: { id: "main", version: "v7" },
        tokens: 180,
      };
    } else if (k === 2) {
      type = "model.request";
      data = { call: `m${seq}`, model: "planner", context: seq - 1, params: { temperature: 0 } };
    } else if (k === 3) {
      type = "model.response";
      data = {
        call: `m${seq - 1}`,
        output: { text: text(seq, 250), toolCalls: [{ id: `tc${seq}`, name: "lookup", args: { orderId: `A-${seq}` } }] },
        finishReason: "tool_calls",
        usage: { inputTokens: 1200, outputTokens: 40 },
        latencyMs: 380,
      };
    } else if (k === 4) {
      type = "tool.call";
      data = {
        call: `t${seq}`,
        tool: "lookup",
        args: { orderId: `A-${seq}`, note: seq % 1000 === 4 ? "key sk-" + "x".repeat(30) : "none" },
        effect: "read",
      };
    } else if (k === 5) {
      type = "tool.result";
      data = {
        call: `t${seq - 1}`,
        status: "ok",
        result: {
          order: {
            id: `A-${seq}`,
            total: 120.5,
            items: [
              { sku: "X1", qty: 1, title: text(seq, 80) },
              { sku: "Y2", qty: 2, title: text(seq + 1, 80) },
            ],
          },
        },
        latencyMs: 42,
      };
    } else if (k === 6) {
      type = "state";
      const patch = [{ op: "add", path: `/last`, value: `A-${seq}` }];
      state = { last: `A-${seq}` };
      data = { patch, hash: hashOf({ last: `A-${seq}` }) };
    } else {
      type = "step.end";
      data = { status: "ok" };
    }
    const event: Record<string, unknown> = { run: runId, seq, ts, type, ...(seq > 0 ? { step } : {}), data };
    const hash = computeEventHash(prev, event as unknown as JournalEvent);
    prev = hash;
    lines.push(JSON.stringify({ ...event, hash }));
  }
  return lines.join("\n") + "\n";
}

/**
 * A policy of 20 invariants, 4 of each kind, every one judged at or fed by each `lookup`
 * call or result of the bench journal (docs/journal-format.md, "Invariants"): once-per
 * and state-precondition keep a key per call, arg-from-input collects every scalar of each
 * lookup result, requires-before is met after the first result (4 findings at the first
 * call), confirmed-by-input and arg-from-input judge a tool the journal never calls.
 */
export function benchPolicy(): Record<string, unknown> {
  const invariants: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    invariants.push({ id: `rb${i}`, kind: "requires-before", tools: ["lookup"], after: "lookup" });
    invariants.push({
      id: `sp${i}`,
      kind: "state-precondition",
      tools: ["lookup"],
      arg: "/orderId",
      source: { tool: "lookup", arg: "/orderId", path: "/order/total" },
      in: [120.5],
    });
    invariants.push({ id: `op${i}`, kind: "once-per", tools: ["lookup"], arg: "/orderId" });
    invariants.push({ id: `cb${i}`, kind: "confirmed-by-input", tools: ["pay"], words: ["yes"] });
    invariants.push({ id: `af${i}`, kind: "arg-from-input", tools: ["pay"], arg: "/orderId", from: ["user", { tool: "lookup" }] });
  }
  return { invariants };
}
