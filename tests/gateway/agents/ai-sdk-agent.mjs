// A small agent on the Vercel AI SDK (`ai` with `@ai-sdk/openai` on Chat Completions), run by
// the gateway tests: the SDK runs the tool loop itself (generateText / streamText with
// stopWhen). AGENT_STREAM=1 streams; AGENT_MODEL and AGENT_INSTRUCTIONS change the run.
import { importClient } from "./clients.mjs";
import { MODEL, STREAM, SYSTEM, TASK, TOOL_SCHEMAS, runTool } from "./file-tools.mjs";

const { generateText, streamText, tool, jsonSchema, stepCountIs } = await importClient("ai");
const { createOpenAI } = await importClient("@ai-sdk/openai");
const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const tools = Object.fromEntries(
  Object.entries(TOOL_SCHEMAS).map(([name, t]) => [
    name,
    tool({ description: t.description, inputSchema: jsonSchema(t.parameters), execute: async (args) => runTool(name, args) }),
  ]),
);
const options = {
  model: openai.chat(MODEL ?? "gpt-test"),
  system: SYSTEM,
  prompt: TASK,
  tools,
  temperature: 0,
  maxRetries: 0,
  stopWhen: stepCountIs(8),
};
if (STREAM) {
  const result = streamText(options);
  let text = "";
  for await (const part of result.textStream) text += part;
  console.log(text);
} else {
  console.log((await generateText(options)).text);
}
