// A small agent on the official `@anthropic-ai/sdk`, run by the gateway tests: Messages API
// with tool_use / tool_result blocks (a failing tool sends is_error), streamed with
// AGENT_STREAM=1. AGENT_MODEL and AGENT_INSTRUCTIONS change the run.
import { importClient } from "./clients.mjs";
import { MODEL, STREAM, SYSTEM, TASK, TOOL_SCHEMAS, runTool } from "./file-tools.mjs";

const { default: Anthropic } = await importClient("@anthropic-ai/sdk");
const client = new Anthropic({ maxRetries: 0, baseURL: process.env.ANTHROPIC_BASE_URL });
const tools = Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({ name, description: t.description, input_schema: t.parameters }));
const messages = [{ role: "user", content: TASK }];

for (let turn = 0; turn < 8; turn++) {
  const request = { model: MODEL ?? "claude-test", max_tokens: 1024, system: SYSTEM, messages, tools };
  const message = STREAM ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
  messages.push({ role: "assistant", content: message.content });
  const uses = message.content.filter((b) => b.type === "tool_use");
  if (uses.length === 0) {
    console.log(message.content.map((b) => (b.type === "text" ? b.text : "")).join(""));
    process.exit(0);
  }
  const results = uses.map((u) => {
    try {
      return { type: "tool_result", tool_use_id: u.id, content: runTool(u.name, u.input) };
    } catch (e) {
      return { type: "tool_result", tool_use_id: u.id, content: `error: ${e.message}`, is_error: true };
    }
  });
  messages.push({ role: "user", content: results });
}
process.exit(3);
