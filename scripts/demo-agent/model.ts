/**
 * A deterministic stand-in for a model: it reads the conversation and picks the next tool
 * call from a script (no network, no randomness), answering in the OpenAI chat-completion
 * shape so the recorder reads it like a real client's result. Token counts are derived from
 * the text length, so they are stable too.
 */

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_call_id?: string;
  name?: string;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
}

export interface Completion {
  id: string;
  model: string;
  choices: Array<{
    message: { role: "assistant"; content: string | null; tool_calls?: ChatMessage["tool_calls"] };
    finish_reason: "stop" | "tool_calls";
  }>;
  usage: { prompt_tokens: number; completion_tokens: number };
}

const tokens = (s: string) => Math.ceil(s.length / 4);

function lastResult(messages: ChatMessage[], tool: string): unknown {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool" && m.name === tool) {
      try {
        return JSON.parse(m.content);
      } catch {
        return m.content;
      }
    }
  }
  return undefined;
}

/** Every result of `tool` in the conversation, oldest first. */
function results(messages: ChatMessage[], tool: string): unknown[] {
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.role !== "tool" || m.name !== tool) continue;
    let v: unknown;
    try {
      v = JSON.parse(m.content);
    } catch {
      v = m.content;
    }
    out.push(v ?? null);
  }
  return out;
}

export class ScriptedModel {
  private calls = 0;
  constructor(readonly name = "scripted-planner-1") {}

  complete(messages: ChatMessage[]): Completion {
    this.calls++;
    const user = messages.find((m) => m.role === "user")?.content ?? "";
    const call = (name: string, args: Record<string, unknown>): Completion["choices"][number] => ({
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: `call_${this.calls}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
      },
      finish_reason: "tool_calls",
    });
    const say = (text: string): Completion["choices"][number] => ({ message: { role: "assistant", content: text }, finish_reason: "stop" });
    let choice: Completion["choices"][number];

    const transfer = /transfer\s+([A-Z]+-\d+)/i.exec(user)?.[1];
    const order = /order\s+([A-Z]-\d+)/i.exec(user)?.[1];
    if (transfer) {
      const status = lastResult(messages, "check_transfer") as { status?: string } | undefined;
      choice = status?.status === "settled" ? say(`Transfer ${transfer} has settled.`) : call("check_transfer", { transferId: transfer });
    } else if (order) {
      const found = lastResult(messages, "lookup_order") as { amountCents?: number; chargedTimes?: number } | undefined;
      const policy = lastResult(messages, "kb_search");
      // a null result counts too: a refund confirmed by a reconcile comes back without its payment
      const refunds = results(messages, "issue_refund") as Array<{ id?: string } | null>;
      const single = lastResult(messages, "issue_refund") as { id?: string } | undefined;
      // one refund per duplicate charge; the charge is named only when there are several
      const duplicates = Math.max(1, (found?.chargedTimes ?? 2) - 1);
      const amount = found?.amountCents ?? 0;
      if (!found) choice = call("lookup_order", { orderId: order });
      else if (policy === undefined) choice = call("kb_search", { query: "duplicate charge refund policy" });
      else if (duplicates === 1 && !single) choice = call("issue_refund", { orderId: order, amountCents: amount });
      else if (duplicates === 1) choice = say(`Refunded ${(amount / 100).toFixed(2)} for order ${order} (payment ${single?.id}).`);
      else if (refunds.length < duplicates)
        choice = call("issue_refund", { orderId: order, amountCents: amount, charge: refunds.length + 2 });
      else {
        const ids = refunds.map((r) => r?.id).filter((id): id is string => typeof id === "string");
        const others = refunds.length - ids.length;
        choice = say(
          `Refunded ${((amount * duplicates) / 100).toFixed(2)} for order ${order} (payments ${ids.join(", ")}${others > 0 ? ` and ${others} confirmed by a reconcile` : ""}).`,
        );
      }
    } else {
      choice = say("I can help with refunds and transfers. Which order or transfer is it about?");
    }
    const prompt = messages.map((m) => m.content).join("\n");
    const out = choice.message.content ?? JSON.stringify(choice.message.tool_calls);
    return {
      id: `cmpl_${this.calls}`,
      model: this.name,
      choices: [choice],
      usage: { prompt_tokens: tokens(prompt), completion_tokens: tokens(out) },
    };
  }
}
