/**
 * A scripted model upstream on loopback for the gateway's own tests (the shared fakes of
 * tests/gateway/fakes follow the same contract): each request gets the next turn of the
 * script, streamed in the API's wire format when the request asks for it. `hold` keeps a
 * streamed answer after its first event until the test releases it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Turn {
  text?: string;
  toolCalls?: Array<{ name: string; arguments: object }>;
}

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface Fake {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

type Api = "anthropic" | "openai" | "gemini";

function sse(events: Array<{ event?: string; data: unknown }>): string[] {
  return events.map(
    (e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
  );
}

function anthropic(turn: Turn, n: number, stream: boolean): { json?: unknown; chunks?: string[] } {
  const calls = (turn.toolCalls ?? []).map((c, i) => ({ type: "tool_use", id: `toolu_${n}_${i}`, name: c.name, input: c.arguments }));
  const stop = calls.length > 0 ? "tool_use" : "end_turn";
  if (!stream) {
    const content = [...(turn.text ? [{ type: "text", text: turn.text }] : []), ...calls];
    return {
      json: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "fake",
        content,
        stop_reason: stop,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    };
  }
  const ev: Array<{ event: string; data: unknown }> = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id: `msg_${n}`,
          type: "message",
          role: "assistant",
          model: "fake",
          content: [],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    },
  ];
  let index = 0;
  if (turn.text) {
    ev.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
    for (const piece of turn.text.match(/.{1,4}/gs) ?? [])
      ev.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } } });
    ev.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    index++;
  }
  for (const c of calls) {
    ev.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { ...c, input: {} } } });
    const json = JSON.stringify(c.input);
    ev.push({
      event: "content_block_delta",
      data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, 5) } },
    });
    ev.push({
      event: "content_block_delta",
      data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(5) } },
    });
    ev.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    index++;
  }
  ev.push({ event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 5 } } });
  ev.push({ event: "message_stop", data: { type: "message_stop" } });
  return { chunks: sse(ev) };
}

function openaiChat(turn: Turn, n: number, stream: boolean): { json?: unknown; chunks?: string[] } {
  const calls = (turn.toolCalls ?? []).map((c, i) => ({
    id: `call_${n}_${i}`,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  const base = { id: `chatcmpl-${n}`, object: "chat.completion", created: 1, model: "fake" };
  if (!stream)
    return {
      json: {
        ...base,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: turn.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) },
            finish_reason: finish,
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    };
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] },
  });
  const ev = [chunk({ role: "assistant", content: "" })];
  for (const piece of turn.text?.match(/.{1,4}/gs) ?? []) ev.push(chunk({ content: piece }));
  calls.forEach((c, i) => {
    ev.push(chunk({ tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] }));
    ev.push(chunk({ tool_calls: [{ index: i, function: { arguments: c.function.arguments } }] }));
  });
  ev.push(chunk({}, finish));
  return { chunks: [...sse(ev), "data: [DONE]\n\n"] };
}

function gemini(turn: Turn, stream: boolean): { json?: unknown; chunks?: string[] } {
  const parts = [
    ...(turn.text ? [{ text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.arguments } })),
  ];
  const body = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
  };
  return stream ? { chunks: sse([{ data: body }]) } : { json: body };
}

export async function startFake(api: Api, script: Turn[], opts: { delayMs?: number; hold?: Promise<void> } = {}): Promise<Fake> {
  const requests: FakeRequest[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", async () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      requests.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body });
      if (req.method === "GET")
        return void res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[{"id":"fake"}]}');
      const turn = script[n] ?? { text: "(script ended)" };
      n++;
      const b = (body ?? {}) as { stream?: boolean };
      const stream = api === "gemini" ? (req.url ?? "").includes("streamGenerateContent") : b.stream === true;
      const out = api === "anthropic" ? anthropic(turn, n, stream) : api === "openai" ? openaiChat(turn, n, stream) : gemini(turn, stream);
      if (out.json !== undefined) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out.json));
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const [i, c] of (out.chunks ?? []).entries()) {
        res.write(c);
        if (i === 0 && opts.hold) await opts.hold;
        if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
