/**
 * The gateway's HTTP edge in-process, with real clients against the shared fakes: streams
 * pass through as they arrive, every wire format's answer becomes model.response and
 * tool.call events, credentials are forwarded and never recorded, concurrent requests
 * replay by what they are, not by when they come.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { ExchangeRecorder, JournalWriter, DEFAULT_ORIGINS, type UpstreamApi } from "@/lib/gateway";
import { placeMap, readGatewayRecording, RequestMatcher } from "@/lib/playback";
import { memorySink } from "@/lib/recorder";
import { Redactor } from "@/lib/redact";
import type { JournalEvent } from "@/lib/journal/types";
import { analyzeEvents } from "@/lib/analyze";
import { startGatewayServer, type GatewayServer } from "@/lib/cli/gateway/http-edge";
import { recordSession } from "@/lib/cli/gateway/record-session";
import { replaySession } from "@/lib/cli/gateway/replay-session";
import { startFake, type Fake } from "./fakes";
import { importClient } from "./test-clients";

const ANTHROPIC_KEY = "sk-ant-api03-edgetestKEY0123456789abcdef";
const GEMINI_KEY = "AIzaSyEdgeTest0123456789abcdefghijklmn";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function fakeOf(api: UpstreamApi, script: Parameters<typeof startFake>[1], opts?: Parameters<typeof startFake>[2]): Promise<Fake> {
  const f = await startFake(api, script, opts);
  closers.push(() => f.close());
  return f;
}

async function recordingGateway(api: UpstreamApi, origin: string): Promise<{ server: GatewayServer; events: JournalEvent[] }> {
  const sink = memorySink();
  const journal = new JournalWriter("edge-run", sink, new Redactor(new Uint8Array(32).fill(7)));
  const session = recordSession({ journal, recorder: new ExchangeRecorder(journal), origins: { ...DEFAULT_ORIGINS, [api]: origin } });
  const server = await startGatewayServer(0, session.handle, (e) => {
    throw e;
  });
  closers.push(() => server.close());
  return { server, events: sink.events };
}

const of = (events: JournalEvent[], type: string) => events.filter((e) => e.type === type);

type AnthropicClient = {
  messages: {
    create(p: object): Promise<{ content: Array<{ type: string; id?: string; name?: string; input?: unknown; text?: string }> }>;
    stream(p: object): { finalMessage(): Promise<{ content: Array<{ type: string; id?: string; name?: string; input?: unknown }> }> };
  };
};

describe("record through the gateway", () => {
  it("a slow upstream's first chunk reaches the client before the upstream has written the rest", async () => {
    const fake = await fakeOf("anthropic", [{ text: "one two three four five six seven eight nine ten eleven twelve" }], { delayMs: 150 });
    const { server } = await recordingGateway("anthropic", fake.url);
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "count" }] }),
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    const writtenAtFirst = fake.eventsWritten();
    expect(new TextDecoder().decode(first.value)).toContain("message_start");
    while (!(await reader.read()).done);
    expect(writtenAtFirst).toBeLessThan(fake.eventsWritten());
  });

  it("@anthropic-ai/sdk, streamed and not: tool calls with object args, an is_error result as status error, no key kept", async () => {
    const fake = await fakeOf("anthropic", [
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "B" } }] },
      { text: "Done." },
    ]);
    const { server, events } = await recordingGateway("anthropic", fake.url);
    const { default: Anthropic } = await importClient<{ default: new (o: object) => AnthropicClient }>("@anthropic-ai/sdk");
    const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: server.url, maxRetries: 0 });
    const tools = [{ name: "read_file", description: "read", input_schema: { type: "object", properties: { path: { type: "string" } } } }];
    const messages: object[] = [{ role: "user", content: "go" }];
    const m1 = await client.messages.stream({ model: "claude-x", max_tokens: 100, tools, messages }).finalMessage();
    const use1 = m1.content.find((c) => c.type === "tool_use")!;
    messages.push(
      { role: "assistant", content: m1.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use1.id, content: "no such file", is_error: true }] },
    );
    const m2 = await client.messages.create({ model: "claude-x", max_tokens: 100, tools, messages });
    const use2 = m2.content.find((c) => c.type === "tool_use")!;
    messages.push(
      { role: "assistant", content: m2.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use2.id, content: "ok" }] },
    );
    await client.messages.create({ model: "claude-x", max_tokens: 100, tools, messages });

    expect(of(events, "model.request").map((e) => e.data.stream)).toEqual([true, false, false]);
    expect(of(events, "tool.call").map((e) => [e.data.call, e.data.tool, e.data.args, e.data.effect])).toEqual([
      [use1.id, "read_file", { path: "a.txt" }, "read"],
      [use2.id, "write_file", { path: "b.txt", content: "B" }, "write"],
    ]);
    expect(of(events, "tool.result").map((e) => [e.data.call, e.data.status, e.data.result])).toEqual([
      [use1.id, "error", "no such file"],
      [use2.id, "ok", "ok"],
    ]);
    const first = of(events, "model.response")[0];
    // time to the first chunk (message_start) and to the first output delta, which follows it
    expect(first.data.firstTokenMs as number).toBeGreaterThanOrEqual(first.data.firstChunkMs as number);
    expect(of(events, "model.response")[1].data.firstTokenMs).toBeUndefined();
    expect(first.data.output).toEqual({ text: "", toolCalls: [{ id: use1.id, name: "read_file", args: { path: "a.txt" } }] });
    // SDK 1.17 sends this key as a bearer token; the gateway forwards it as sent
    expect(fake.requests.find((r) => r.method === "POST")?.headers.authorization).toBe(`Bearer ${ANTHROPIC_KEY}`);
    expect(JSON.stringify(events)).not.toContain(ANTHROPIC_KEY);
  });

  it("what the user says becomes one input each, before the request that first sends it, so confirmed-by-input judges it", async () => {
    const fake = await fakeOf("openai", [
      { text: "Refund order A-1 for 40 EUR: shall I?" },
      { toolCalls: [{ name: "refund", arguments: { order: "A-1" } }] },
      { text: "Summary." },
    ]);
    const { server, events } = await recordingGateway("openai", fake.url);
    const client = new OpenAI({ apiKey: "sk-openaiedge0123456789abcdefghij", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const tools = [{ type: "function" as const, function: { name: "refund", parameters: { type: "object", properties: {} } } }];
    const ask = "Please refund order A-1";
    await client.chat.completions.create({
      model: "gpt-x",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: ask },
      ],
    });
    // the agent resends the conversation with the user's answer
    await client.chat.completions.create({
      model: "gpt-x",
      tools,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: ask },
        { role: "assistant", content: "Refund order A-1 for 40 EUR: shall I?" },
        { role: "user", content: "yes" },
      ],
    });
    // a sub-agent's own conversation
    await client.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "Summarise the refund" }] });
    const inputs = of(events, "input");
    expect(inputs.map((e) => e.data)).toEqual([
      { source: "user", content: ask },
      { source: "user", content: "yes" },
      { source: "user", content: "Summarise the refund" },
    ]);
    // each before the context of the request that first sent it
    const contexts = of(events, "context").map((e) => e.seq);
    expect(inputs.map((e) => e.seq < contexts[inputs.indexOf(e)])).toEqual([true, true, true]);
    expect(inputs[1].seq).toBeGreaterThan(contexts[0]);
    // judged by a policy that wants a "yes" before a refund: the refund after "yes" holds
    const call = of(events, "tool.call")[0];
    const start = {
      run: events[0].run,
      seq: -1,
      ts: events[0].ts,
      type: "run.start",
      data: { policy: { invariants: [{ id: "yes", kind: "confirmed-by-input", tools: ["refund"], words: ["yes"] }] } },
    } as unknown as JournalEvent;
    const judged = [start, ...events.filter((e) => e.seq <= call.seq)].map((e, i) => ({ ...e, seq: i }) as unknown as JournalEvent);
    expect(analyzeEvents(judged).filter((f) => f.rule.startsWith("policy."))).toEqual([]);
    const withoutYes = judged
      .filter((e) => !(e.type === "input" && e.data.content === "yes"))
      .map((e, i) => ({ ...e, seq: i }) as unknown as JournalEvent);
    expect(analyzeEvents(withoutYes).map((f) => f.rule)).toContain("policy.confirmed-by-input");
  });

  it("openai SDK on the Responses API, streamed: the function call becomes a tool.call", async () => {
    const fake = await fakeOf("openai", [{ toolCalls: [{ name: "exec_command", arguments: { cmd: "echo hi > x.txt" } }] }]);
    const { server, events } = await recordingGateway("openai", fake.url);
    const client = new OpenAI({ apiKey: "sk-openaiedge0123456789abcdefghij", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const stream = await client.responses.create({
      model: "gpt-x",
      instructions: "Be brief.",
      input: "make x.txt",
      stream: true,
      tools: [
        { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } } }, strict: false },
      ],
    });
    for await (const event of stream) void event;
    expect(of(events, "context")[0].data).toMatchObject({
      system: "Be brief.",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "make x.txt" },
      ],
    });
    // a shell command that writes is a write, as the importers infer it
    expect(of(events, "tool.call")[0].data).toMatchObject({
      tool: "exec_command",
      args: { cmd: "echo hi > x.txt" },
      effect: "write",
      effectInferred: true,
    });
    expect(JSON.stringify(events)).not.toContain("sk-openaiedge");
  });

  it("Gemini streamGenerateContent with ?key= and x-goog-api-key: forwarded, recorded without them", async () => {
    const fake = await fakeOf("gemini", [{ toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] }]);
    const { server, events } = await recordingGateway("gemini", fake.url);
    const res = await fetch(`${server.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=${GEMINI_KEY}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": GEMINI_KEY },
      body: JSON.stringify({ systemInstruction: { parts: [{ text: "Sys." }] }, contents: [{ role: "user", parts: [{ text: "read a" }] }] }),
    });
    await res.text();
    expect(fake.requests[0].path).toContain(`key=${GEMINI_KEY}`);
    expect(fake.requests[0].headers["x-goog-api-key"]).toBe(GEMINI_KEY);
    const request = of(events, "model.request")[0];
    expect(request.data).toMatchObject({
      model: "gemini-x",
      api: "gemini",
      stream: true,
      raw: { path: "/v1beta/models/gemini-x:streamGenerateContent?alt=sse" },
    });
    expect(of(events, "tool.call")[0].data).toMatchObject({ tool: "read_file", args: { path: "a.txt" } });
    expect(JSON.stringify(events)).not.toContain(GEMINI_KEY);
  });

  it("side requests: HEAD / answered, GET /v1/models forwarded and kept for replay", async () => {
    const fake = await fakeOf("openai", []);
    const { server, events } = await recordingGateway("openai", fake.url);
    expect((await fetch(server.url, { method: "HEAD" })).status).toBe(200);
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: "Bearer sk-sidekey0123456789abcdefghijkl" } });
    expect(models.status).toBe(200);
    const side = of(events, "x-gateway.side");
    expect(side).toHaveLength(1);
    expect(side[0].data).toMatchObject({
      api: "openai",
      method: "GET",
      path: "/v1/models",
      answer: { status: 200, body: await models.text() },
    });
  });
});

describe("replay matching", () => {
  it("a title request sent concurrently with the first turn is matched by what it is, not by arrival order", async () => {
    const fake = await fakeOf("anthropic", [{ text: "A title" }, { toolCalls: [{ name: "read_file", arguments: { path: "a" } }] }]);
    const { server, events } = await recordingGateway("anthropic", fake.url);
    const post = (url: string, body: object) =>
      fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      });
    const title = { model: "claude-small", max_tokens: 20, messages: [{ role: "user", content: "Title for: read a" }] };
    const turn = {
      model: "claude-x",
      max_tokens: 100,
      tools: [{ name: "read_file", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: "read a" }],
    };
    const recordedTitle = await (await post(server.url, title)).text();
    const recordedTurn = await (await post(server.url, turn)).text();

    const recording = readGatewayRecording(events)!;
    const matcher = new RequestMatcher(recording, { places: placeMap({}, {}) });
    const sink = memorySink();
    const journal = new JournalWriter("edge-replay", sink, new Redactor(new Uint8Array(32).fill(9)));
    const session = replaySession({
      recording,
      matcher,
      journal,
      recorder: new ExchangeRecorder(journal),
      onDivergence: "stop",
      origins: DEFAULT_ORIGINS,
      toReplay: placeMap({}, {}),
    });
    const replay = await startGatewayServer(0, session.handle, (e) => {
      throw e;
    });
    closers.push(() => replay.close());
    const [turnAnswer, titleAnswer] = await Promise.all([
      post(replay.url, turn).then((r) => r.text()),
      post(replay.url, title).then((r) => r.text()),
    ]);
    expect(turnAnswer).toBe(recordedTurn);
    expect(titleAnswer).toBe(recordedTitle);
    expect(session.divergence).toBeNull();
    expect(matcher.missing()).toBeNull();
  });

  it("a replay that stops early misses the next recorded request; one that goes on has an extra request", async () => {
    const fake = await fakeOf("openai", [{ text: "one" }, { text: "two" }]);
    const { server, events } = await recordingGateway("openai", fake.url);
    const ask = (url: string, content: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
      });
    await (await ask(server.url, "first")).text();
    await (await ask(server.url, "second")).text();
    const recording = readGatewayRecording(events)!;
    const secondContext = of(events, "context")[1].seq;

    const early = new RequestMatcher(recording);
    expect(
      early.match("openai-chat", "/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "first" }] }).divergence,
    ).toBeNull();
    expect(early.missing()).toMatchObject({ kind: "missing-request", seq: secondContext });

    const long = new RequestMatcher(recording);
    for (const content of ["first", "second"])
      long.match("openai-chat", "/v1/chat/completions", { model: "m", messages: [{ role: "user", content }] });
    const extra = long.match("openai-chat", "/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "third" }] });
    expect(extra).toMatchObject({ exchange: null, divergence: { kind: "extra-request", seq: events[events.length - 1].seq + 1 } });
    expect(long.missing()).toBeNull();
  });
});
