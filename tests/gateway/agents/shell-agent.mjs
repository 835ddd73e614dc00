// A small coding agent on the official `openai` SDK, run by the --isolate tests: its one
// tool, run_command, runs a shell command in its working directory (as a coding agent's
// own shell does) and sends back what it printed, or its exit status and error output.
import { execFileSync } from "node:child_process";
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const tools = [
  {
    type: "function",
    function: {
      name: "run_command",
      description: "Run a shell command in the working directory",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
  },
];
const messages = [
  { role: "system", content: "You are a coding agent with a shell." },
  { role: "user", content: "Charge the order, then note it in done.txt." },
];

function run(command) {
  try {
    return execFileSync("sh", ["-c", command], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
  } catch (e) {
    return `exit ${e.status ?? e.signal}: ${String(e.stderr ?? e.message).trim()}`;
  }
}

for (let turn = 0; turn < 8; turn++) {
  const message = (await client.chat.completions.create({ model: "gpt-test", messages, tools, temperature: 0 })).choices[0].message;
  messages.push(message);
  if (!message.tool_calls?.length) {
    console.log(message.content);
    process.exit(0);
  }
  for (const call of message.tool_calls) {
    const content = run(JSON.parse(call.function.arguments).command);
    messages.push({ role: "tool", tool_call_id: call.id, content });
  }
}
process.exit(3);
