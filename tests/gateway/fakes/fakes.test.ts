// The fake upstreams speak each API's real wire format: the official SDKs, which parse and
// check the streams they receive, read the scripted text and tool calls back from them.
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { importClient } from "../test-clients.ts";
import { type Fake, type Turn, startFake, withoutTools } from "./index.ts";

// the little of @anthropic-ai/sdk and @google/genai these tests use (they live in the
// test-only package, not in the app's dependencies)
type AnthropicContent = { type: string; text?: string; thinking?: string; name?: string; input?: unknown };
interface AnthropicMessage {
  content: AnthropicContent[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}
interface AnthropicClient {
  messages: {
    create(params: object): Promise<AnthropicMessage & AsyncIterable<{ type: string }>>;
    stream(params: object): AsyncIterable<{ type: string }> & { finalMessage(): Promise<AnthropicMessage> };
    countTokens(params: object): Promise<{ input_tokens: number }>;
  };
  models: { list(): Promise<{ data: Array<{ id: string }> }> };
}
type AnthropicModule = { default: new (options: { apiKey: string; baseURL: string }) => AnthropicClient };

interface GeminiResponse {
  text?: string;
  functionCalls?: Array<{ name?: string; args?: Record<string, unknown> }>;
  usageMetadata?: { totalTokenCount?: number };
}
interface GeminiClient {
  models: {
    generateContent(params: object): Promise<GeminiResponse>;
    generateContentStream(params: object): Promise<AsyncIterable<GeminiResponse>>;
  };
}
type GenaiModule = {
  GoogleGenAI: new (options: { apiKey: string; httpOptions: { baseUrl: string; apiVersion: string } }) => GeminiClient;
};

const WRITE_CALL = { name: "write_file", arguments: { path: "out.txt", content: "hello\nworld" } };
const SCRIPT: Turn[] = [{ toolCalls: [WRITE_CALL] }, { text: "Wrote out.txt for you, as asked." }];
const WRITE_TOOL = {
  name: "write_file",
  description: "write a file",
  parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } },
};

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function anthropicClient(url: string): Promise<AnthropicClient> {
  const { default: Anthropic } = await importClient<AnthropicModule>("@anthropic-ai/sdk");
  return new Anthropic({ apiKey: "sk-ant-test-fake", baseURL: url });
}

describe("fake Anthropic Messages", () => {
  const params = {
    model: "claude-fake-1",
    max_tokens: 1024,
    tools: [{ name: "write_file", description: "write a file", input_schema: WRITE_TOOL.parameters }],
    messages: [{ role: "user", content: "write hello" }],
  };

  it("streams thinking, then a tool call the SDK assembles from input_json_delta pieces", async () => {
    fake = await startFake("anthropic", SCRIPT);
    const client = await anthropicClient(fake.url);
    const message = await client.messages.stream({ ...params, thinking: { type: "enabled", budget_tokens: 1024 } }).finalMessage();
    expect(message.content.map((c) => c.type)).toEqual(["thinking", "tool_use"]);
    expect(message.content[1]).toMatchObject({ name: "write_file", input: WRITE_CALL.arguments });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    const second = await client.messages.stream(params).finalMessage();
    expect(second.content).toEqual([{ type: "text", text: "Wrote out.txt for you, as asked." }]);
    expect(second.stop_reason).toBe("end_turn");
    expect(fake.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
  });

  it("answers without streaming when the request does not ask, and answers count_tokens and models", async () => {
    fake = await startFake("anthropic", SCRIPT);
    const client = await anthropicClient(fake.url);
    const message = await client.messages.create(params);
    expect(message.content[0]).toMatchObject({ type: "tool_use", input: WRITE_CALL.arguments });
    expect((await client.messages.countTokens(params)).input_tokens).toBeGreaterThan(0);
    expect((await client.models.list()).data.length).toBe(1);
    expect(fake.turnsUsed()).toBe(1);
  });

  it("answers a side request without tools with a short text and keeps the turn for the model request", async () => {
    fake = await startFake("anthropic", SCRIPT, { isSide: withoutTools, sideText: "A title" });
    const client = await anthropicClient(fake.url);
    const title = await client.messages.create({ ...params, tools: undefined });
    expect(title.content).toEqual([{ type: "text", text: "A title" }]);
    const turn = await client.messages.create(params);
    expect(turn.content[0]).toMatchObject({ type: "tool_use", name: "write_file" });
  });

  it("paces a stream with delayMs, so the first delta arrives before the last event is written", async () => {
    fake = await startFake("anthropic", [{ text: "one two three four five six seven eight nine ten" }], {
      delayMs: 20,
    });
    const client = await anthropicClient(fake.url);
    const stream = await client.messages.create({ ...params, stream: true });
    let writtenAtFirstDelta = -1;
    for await (const event of stream) {
      if (event.type === "content_block_delta" && writtenAtFirstDelta < 0) writtenAtFirstDelta = fake.eventsWritten();
    }
    expect(writtenAtFirstDelta).toBeGreaterThan(0);
    expect(writtenAtFirstDelta).toBeLessThan(fake.eventsWritten());
  });

  it("refuses a request past the end of its script with an API error", async () => {
    fake = await startFake("anthropic", []);
    const client = await anthropicClient(fake.url);
    await expect(client.messages.create(params)).rejects.toThrow(/script exhausted/);
  });
});

describe("fake OpenAI", () => {
  const tools = [{ type: "function" as const, function: WRITE_TOOL }];
  const messages = [{ role: "user" as const, content: "write hello" }];

  it("streams Chat Completions chunks the SDK assembles into a tool call, then text, with usage", async () => {
    fake = await startFake("openai", SCRIPT);
    const client = new OpenAI({ apiKey: "sk-test-fake", baseURL: `${fake.url}/v1` });
    const first = await client.chat.completions
      .stream({ model: "gpt-fake-1", messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const call = first.choices[0].message.tool_calls?.[0];
    expect(call?.type === "function" && call.function.name).toBe("write_file");
    expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual(WRITE_CALL.arguments);
    expect(first.choices[0].finish_reason).toBe("tool_calls");
    expect(first.usage?.total_tokens).toBeGreaterThan(0);

    const second = await client.chat.completions.create({ model: "gpt-fake-1", messages, tools });
    expect(second.choices[0].message.content).toBe("Wrote out.txt for you, as asked.");
    expect(second.choices[0].finish_reason).toBe("stop");
  });

  it("streams Responses events the SDK checks and folds into the final response", async () => {
    fake = await startFake("openai", SCRIPT);
    const client = new OpenAI({ apiKey: "sk-test-fake", baseURL: `${fake.url}/v1` });
    const responseTools = [{ type: "function" as const, strict: false, ...WRITE_TOOL }];
    const stream = client.responses.stream({ model: "gpt-fake-1", input: "write hello", tools: responseTools });
    const types = new Set<string>();
    for await (const event of stream) types.add(event.type);
    const first = await stream.finalResponse();
    expect(first.output[0]).toMatchObject({ type: "function_call", name: "write_file" });
    const output = first.output[0];
    expect(output.type === "function_call" && JSON.parse(output.arguments)).toEqual(WRITE_CALL.arguments);
    expect(types).toContain("response.function_call_arguments.delta");
    expect(first.usage?.output_tokens).toBeGreaterThan(0);

    const second = await client.responses.stream({ model: "gpt-fake-1", input: "go on" }).finalResponse();
    expect(second.output_text).toBe("Wrote out.txt for you, as asked.");
    expect(fake.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
  });

  it("answers a Responses request without streaming, and lists models", async () => {
    fake = await startFake("openai", [{ text: "plain" }]);
    const client = new OpenAI({ apiKey: "sk-test-fake", baseURL: `${fake.url}/v1` });
    expect((await client.responses.create({ model: "gpt-fake-1", input: "hi" })).output_text).toBe("plain");
    expect((await client.models.list()).data[0].id).toBe("gpt-fake-1");
  });
});

describe("fake Gemini", () => {
  const config = { tools: [{ functionDeclarations: [WRITE_TOOL] }] };

  async function geminiClient(url: string): Promise<GeminiClient> {
    const { GoogleGenAI } = await importClient<GenaiModule>("@google/genai");
    // @google/genai 3.6 says `/v1/models/…` unless told; the Gemini API's documented path is v1beta
    return new GoogleGenAI({ apiKey: "fake-gemini-key", httpOptions: { baseUrl: url, apiVersion: "v1beta" } });
  }

  it("answers generateContent with a function call, then streams text over SSE", async () => {
    fake = await startFake("gemini", SCRIPT);
    const client = await geminiClient(fake.url);
    const first = await client.models.generateContent({ model: "gemini-fake-1", contents: "write hello", config });
    expect(first.functionCalls).toEqual([{ name: "write_file", args: WRITE_CALL.arguments }]);

    let text = "";
    let chunks = 0;
    let total: number | undefined;
    for await (const chunk of await client.models.generateContentStream({
      model: "gemini-fake-1",
      contents: "go on",
      config,
    })) {
      text += chunk.text ?? "";
      chunks += 1;
      total = chunk.usageMetadata?.totalTokenCount ?? total;
    }
    expect(text).toBe("Wrote out.txt for you, as asked.");
    expect(chunks).toBeGreaterThan(1);
    expect(total).toBeGreaterThan(0);
    expect(fake.requests.map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-fake-1:generateContent",
      "/v1beta/models/gemini-fake-1:streamGenerateContent?alt=sse",
    ]);
  });
});
