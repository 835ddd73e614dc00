// What OpenAI's Chat Completions refuses with a 400 in a request's `messages`, checked the way
// the API checks them: a tool message answers a `tool_call_id` of the assistant message before
// it; an assistant message with `tool_calls` is followed by a tool message for each of them;
// every tool call has an `id`, `type: "function"` and `function {name, arguments: string}`;
// an assistant message has text or tool calls (not an empty content and nothing else).

type Msg = Record<string, unknown>;

/** The first thing a strict endpoint refuses in this body, or null when it is valid. */
export function strictChatProblem(body: unknown): string | null {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array";
  let open: string[] = [];
  for (const [i, raw] of messages.entries()) {
    const m = (raw ?? {}) as Msg;
    const at = `messages[${i}]`;
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string") return `${at}: Missing parameter 'tool_call_id'`;
      if (!open.includes(m.tool_call_id))
        return `Invalid parameter: ${at} with role 'tool' must be a response to a preceeding message with 'tool_calls'`;
      open = open.filter((id) => id !== m.tool_call_id);
      if (typeof m.content !== "string") return `${at}.content: expected a string`;
      continue;
    }
    if (open.length > 0)
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`;
    if (m.role !== "assistant") continue;
    const calls = m.tool_calls;
    if (calls !== undefined) {
      if (!Array.isArray(calls) || calls.length === 0) return `${at}.tool_calls: expected a non-empty array`;
      for (const [j, c] of (calls as Msg[]).entries()) {
        const f = (c?.function ?? {}) as Msg;
        if (typeof c?.id !== "string" || c.type !== "function" || typeof f.name !== "string" || typeof f.arguments !== "string")
          return `${at}.tool_calls[${j}]: expected {id, type: "function", function: {name, arguments: string}}`;
      }
      open = (calls as Msg[]).map((c) => c.id as string);
      if (m.content !== null && m.content !== undefined && typeof m.content !== "string") return `${at}.content: expected a string or null`;
    } else if (typeof m.content !== "string" || m.content === "")
      return `Invalid ${at}: an assistant message must have content or tool_calls`;
  }
  return null;
}
