/**
 * LangChain.js traced by OpenInference (the real langchain `createAgent`, @langchain/core and
 * @arizeai/openinference-instrumentation-langchain with a scripted chat model; spans
 * serialised by the real OTLP JSON serializer): a TOOL span's `input.value` is a string.
 * Arguments that are JSON become the object they encode; a one-argument tool's input is
 * written as the bare value (`"Oslo"`), which takes the argument's name from the model's
 * request it answers; a plain string nobody requested (a `DynamicTool` run by hand) is kept
 * as `{input: "…"}`. Tool arguments are always an object.
 */
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { spansFromOtlpJson, spansToRuns } from "@/lib/importers";

async function recordAgentRun() {
  const { BaseChatModel } = await import("@langchain/core/language_models/chat_models");
  const { AIMessage } = await import("@langchain/core/messages");
  const { DynamicTool, tool } = await import("@langchain/core/tools");
  const callbacks = await import("@langchain/core/callbacks/manager");
  const { awaitAllCallbacks } = await import("@langchain/core/callbacks/promises");
  const { createAgent } = await import("langchain");
  const { LangChainInstrumentation } = await import("@arizeai/openinference-instrumentation-langchain");
  type Messages = Parameters<InstanceType<typeof BaseChatModel>["_generate"]>[0];

  const turns = [
    new AIMessage({
      content: "",
      tool_calls: [
        { id: "call_w1", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" },
        { id: "call_s1", name: "search_docs", args: { query: "opening hours", limit: 3 }, type: "tool_call" },
      ],
    }),
    new AIMessage({ content: "Open until 22; 4°C in Oslo." }),
  ];
  class ScriptedChatModel extends BaseChatModel {
    calls = 0;
    _llmType() {
      return "scripted";
    }
    override bindTools() {
      return this;
    }
    async _generate(_messages: Messages) {
      const message = turns[this.calls++];
      if (!message) throw new Error("the script has no more turns");
      return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
    }
  }

  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(callbacks);
  try {
    const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 4 }), {
      name: "get_weather",
      description: "Weather for a city",
      schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    const searchDocs = tool(async () => "3 pages", {
      name: "search_docs",
      description: "Search the docs",
      schema: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" } }, required: ["query"] },
    });
    const agent = createAgent({ name: "docs-agent", model: new ScriptedChatModel({}), tools: [getWeather, searchDocs] });
    await agent.invoke({ messages: [{ role: "user", content: "Opening hours and the weather?" }] });
    // a tool run by hand, outside any model request
    await new DynamicTool({ name: "lookup", description: "Look up", func: async (q: string) => `found ${q}` }).invoke("oslo");
    // LangChain ends its callbacks (the spans) in the background
    await awaitAllCallbacks();
  } finally {
    instrumentation.disable();
  }
  const spans = exporter.getFinishedSpans();
  return { spans, otlp: JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown };
}

describe("LangChain.js tool spans (OpenInference over OTLP)", () => {
  it("tool arguments that arrive as strings are objects", async () => {
    const { spans, otlp } = await recordAgentRun();
    // what the client wrote: every tool input is a string, the one-argument one bare
    const inputs = new Map(
      spans.filter((s) => s.attributes["openinference.span.kind"] === "TOOL").map((s) => [s.name, s.attributes["input.value"]]),
    );
    expect(inputs.get("get_weather")).toBe("Oslo");
    expect(typeof inputs.get("search_docs")).toBe("string");
    expect(inputs.get("lookup")).toBe("oslo");

    const events = spansToRuns(spansFromOtlpJson(otlp)).flatMap((r) => r.events);
    const calls = new Map(events.filter((e) => e.type === "tool.call").map((e) => [e.data.tool, e.data]));
    expect(calls.get("get_weather")).toMatchObject({ call: "call_w1", args: { city: "Oslo" } });
    expect(calls.get("search_docs")).toMatchObject({ call: "call_s1", args: { query: "opening hours", limit: 3 } });
    expect(calls.get("lookup")?.args).toEqual({ input: "oslo" });
  });
});
