// A small agent on the official `openai` SDK, run by the gateway tests: it asks the model,
// runs the tools the model calls (read_file and write_file, relative to its working
// directory or absolute) and sends their results back, until the model answers in text.
// AGENT_STREAM=1 streams every request; AGENT_MODEL and AGENT_INSTRUCTIONS change the run.
import OpenAI from "openai";
import { MODEL, STREAM, SYSTEM, TASK, TOOL_SCHEMAS, runTool } from "./file-tools.mjs";

const client = new OpenAI({ maxRetries: 0 });
const stream = STREAM;
const tools = Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({ type: "function", function: { name, ...t } }));
const messages = [
  { role: "system", content: SYSTEM },
  { role: "user", content: TASK },
];

async function ask() {
  const request = { model: MODEL ?? "gpt-test", messages, tools, temperature: 0 };
  if (!stream) return (await client.chat.completions.create(request)).choices[0].message;
  const message = { role: "assistant", content: "", tool_calls: [] };
  for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
    const delta = chunk.choices[0]?.delta ?? {};
    if (delta.content) message.content += delta.content;
    for (const c of delta.tool_calls ?? []) {
      const call = (message.tool_calls[c.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (c.id) call.id = c.id;
      if (c.function?.name) call.function.name += c.function.name;
      if (c.function?.arguments) call.function.arguments += c.function.arguments;
    }
  }
  if (message.tool_calls.length === 0) delete message.tool_calls;
  return message;
}

for (let turn = 0; turn < 8; turn++) {
  const message = await ask();
  messages.push(message);
  if (!message.tool_calls?.length) {
    console.log(message.content);
    process.exit(0);
  }
  for (const call of message.tool_calls) {
    let content;
    try {
      content = runTool(call.function.name, JSON.parse(call.function.arguments));
    } catch (e) {
      content = `error: ${e.message}`;
    }
    messages.push({ role: "tool", tool_call_id: call.id, content });
  }
}
process.exit(3);
