import { describe, expect, it } from "vitest";
import { messageCalls } from "@/lib/view/message-calls";

describe("messageCalls: what the context pane shows for an assistant turn", () => {
  it("a turn recorded as empty content (the demo's contexts) shows the tools its tool messages answer", () => {
    const calls = messageCalls([
      { role: "system", content: "be careful" },
      { role: "user", content: "refund A-1001" },
      { role: "assistant", content: "" },
      { role: "tool", content: "{}", source: "tool:lookup_order" },
      { role: "tool", content: "[]", source: "tool:kb_search" },
      { role: "assistant", content: "Done." },
    ]);
    expect(calls[2]).toEqual([
      { id: null, name: "lookup_order" },
      { id: null, name: "kb_search" },
    ]);
    expect(calls[5]).toEqual([]);
    expect(calls[3]).toEqual([]);
  });

  it("a turn that carries its calls (imported toolCalls, OpenAI tool_calls) shows them with their arguments", () => {
    const calls = messageCalls([
      { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "Read", args: { path: "a.ts" } }] },
      { role: "tool", content: "x", toolCallId: "t1" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c9", type: "function", function: { name: "grep", arguments: '{"q":"<b>"}' } }],
      },
    ]);
    expect(calls[0]).toEqual([{ id: "t1", name: "Read", args: { path: "a.ts" } }]);
    expect(calls[2]).toEqual([{ id: "c9", name: "grep", args: { q: "<b>" } }]);
  });
});
