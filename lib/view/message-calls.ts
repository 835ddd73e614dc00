/**
 * The tool calls of a recorded context's messages, for the context pane: an assistant turn
 * that only called tools shows its calls, not an empty box. A message's own calls are read
 * (the journal's `toolCalls [{id, name, args}]` or OpenAI's `tool_calls`); a context that
 * kept `{role, content, source?}` only still says which tools the turn called, from the tool
 * messages after it (`source: "tool:NAME"`), their arguments unknown.
 */

export interface MessageCall {
  id: string | null;
  name: string;
  /** the arguments as recorded; undefined when the context does not say them */
  args?: unknown;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function ownCalls(m: Record<string, unknown>): MessageCall[] {
  if (Array.isArray(m.toolCalls)) return m.toolCalls.filter(isObj).map((c) => ({ id: str(c.id), name: str(c.name) ?? "?", args: c.args }));
  if (Array.isArray(m.tool_calls))
    return m.tool_calls.filter(isObj).map((c) => {
      const f = isObj(c.function) ? c.function : {};
      let args: unknown = f.arguments;
      if (typeof args === "string")
        try {
          args = JSON.parse(args);
        } catch {
          // kept as the text it was sent as
        }
      return { id: str(c.id), name: str(f.name) ?? "?", args };
    });
  return [];
}

/** The tool a tool message answers, by its `source: "tool:NAME"` or `name`. */
function toolName(m: Record<string, unknown>): string | null {
  const source = str(m.source);
  return source?.startsWith("tool:") ? source.slice(5) : str(m.name);
}

/** Per message, the tool calls it made (empty for every message that made none). */
export function messageCalls(messages: readonly unknown[]): MessageCall[][] {
  return messages.map((raw, i) => {
    const m = isObj(raw) ? raw : {};
    const own = ownCalls(m);
    if (own.length > 0 || m.role !== "assistant") return own;
    const called: MessageCall[] = [];
    for (let j = i + 1; j < messages.length; j++) {
      const t = messages[j];
      if (!isObj(t) || t.role !== "tool") break;
      called.push({ id: str(t.toolCallId) ?? str(t.tool_call_id), name: toolName(t) ?? "?" });
    }
    return called;
  });
}
