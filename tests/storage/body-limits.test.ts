/**
 * Every body is read as a stream and its limits are enforced while reading: over a real
 * HTTP connection, a chunked body far over a limit is refused (413) once the limit is
 * passed, and the server has pulled no more than the limit plus the chunk in hand. The
 * bytes are counted where the server reads them from the socket (no timing).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gunzipLimited, InflateLimitError } from "@/lib/server/gunzip";
import type { Db } from "@/lib/server/db";
import { answerOtlp } from "@/lib/server/otlp-receiver";
import { readFileSync } from "node:fs";
import path from "node:path";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { answerUpload } from "@/lib/server/upload";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 64 * KiB;

interface Served {
  url: string;
  /** Bytes of the last request's body the handler pulled from the socket. */
  pulled: () => number;
  close: () => Promise<void>;
}

/** A node HTTP server handing each request, as a web Request whose body is read only when pulled, to `handle`. */
async function serve(handle: (req: Request) => Promise<Response>): Promise<Served> {
  let pulled = 0;
  const server = http.createServer((nodeReq, nodeRes) => {
    pulled = 0;
    const it = nodeReq[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(ctrl) {
          const r = await it.next();
          if (r.done) return ctrl.close();
          pulled += r.value.length;
          ctrl.enqueue(new Uint8Array(r.value));
        },
        // nothing more is pulled; node discards the rest once the answer is sent
        cancel: () => undefined,
      },
      { highWaterMark: 0 },
    );
    const headers = new Headers();
    for (const [k, v] of Object.entries(nodeReq.headers)) if (typeof v === "string") headers.set(k, v);
    const req = new Request(`http://127.0.0.1${nodeReq.url}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    void handle(req).then(async (res) => {
      nodeRes.writeHead(res.status, { "content-type": res.headers.get("content-type") ?? "application/json" });
      nodeRes.end(Buffer.from(await res.arrayBuffer()));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pulled: () => pulled,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * POSTs `head`, then `filler` over and over (chunked, no content-length) until the answer
 * comes or `total` bytes were sent; the answer and how much was sent.
 */
async function postChunked(url: string, type: string, head: Buffer, filler: Buffer, total: number) {
  const req = http.request(url, { method: "POST", headers: { "content-type": type } });
  req.on("error", () => undefined); // destroyed below, once answered
  let answer: http.IncomingMessage | null = null;
  const answered = new Promise<http.IncomingMessage>((resolve) => req.on("response", (r) => resolve((answer = r))));
  let sent = 0;
  req.write(head);
  sent += head.length;
  while (answer === null && sent < total) {
    if (!req.write(filler)) await Promise.race([once(req, "drain"), answered]);
    sent += filler.length;
  }
  if (answer === null) req.end();
  const res = await answered;
  const parts: Buffer[] = [];
  for await (const p of res) parts.push(p as Buffer);
  req.destroy();
  return { status: res.statusCode, body: JSON.parse(Buffer.concat(parts).toString("utf8")) as { error?: string }, sent };
}

describe("body limits, enforced while reading", () => {
  let t: TestDb;
  let db: Db;
  let imports: Served;
  let traces: Served;
  const BODY_LIMIT = 2 * MiB;
  const DOC_LIMIT = 1 * MiB;
  const SESSION_LIMIT = 1.5 * MiB;
  beforeAll(async () => {
    t = await freshDb("sqlite");
    db = t.open({
      RETRACE_MAX_BODY_BYTES: String(BODY_LIMIT),
      RETRACE_MAX_DOCUMENT_BYTES: String(DOC_LIMIT),
      RETRACE_MAX_SESSION_BYTES: String(SESSION_LIMIT),
    });
    imports = await serve((req) => answerUpload(db, req, "any", "default").then(({ status, body }) => Response.json(body, { status })));
    traces = await serve((req) => answerOtlp(db, req, "default"));
  });
  afterAll(async () => {
    await imports.close();
    await traces.close();
    await t.cleanup();
  });

  const line = (seq: number) =>
    JSON.stringify({ run: "huge", seq, ts: "2026-11-07T11:00:01.026Z", type: "note", data: { text: "x".repeat(900) } }) + "\n";
  const lines = (from: number, n: number) => Buffer.from(Array.from({ length: n }, (_, i) => line(from + i)).join(""));

  it("refuses a journal body streaming far past the body limit, having read only up to it", async () => {
    const r = await postChunked(`${imports.url}/api/imports`, "application/x-ndjson", lines(0, 10), lines(10, 64), 200 * MiB);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/RETRACE_MAX_BODY_BYTES/);
    expect(r.sent).toBeGreaterThan(BODY_LIMIT); // the answer came while the client was still sending
    expect(imports.pulled()).toBeLessThanOrEqual(BODY_LIMIT + CHUNK);
    expect(await getRun(db, "huge")).toBeNull();
  });

  it("refuses a single-document export past the document limit, having read only up to it", async () => {
    const step = Buffer.from(JSON.stringify({ action: "ls", observation: "y".repeat(4000) }) + ",");
    const r = await postChunked(`${imports.url}/api/imports`, "application/json", Buffer.from(`{"trajectory":[`), step, 200 * MiB);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/RETRACE_MAX_DOCUMENT_BYTES/);
    expect(imports.pulled()).toBeLessThanOrEqual(DOC_LIMIT + CHUNK);
  });

  /**
   * A real Claude Code 2.1 session repeated, each round with its own uuids and message ids and
   * chained to the one before, until it is `bytes` long: one long session.
   */
  function longSession(bytes: number, sessionId: string): string {
    const src = readFileSync(path.resolve(__dirname, "../fixtures/agent-cli/claude-code-2.1.337-session.jsonl"), "utf8");
    const lines = src.split("\n").filter((l) => l.trim());
    const out: string[] = [];
    let size = 0;
    let last: string | null = null;
    for (let round = 0; size < bytes; round++) {
      for (const raw of lines) {
        const l = JSON.parse(raw) as Record<string, unknown>;
        if (typeof l.sessionId === "string") l.sessionId = sessionId;
        if (typeof l.uuid === "string") l.uuid = `${l.uuid}-${round}`;
        if ("parentUuid" in l) l.parentUuid = typeof l.parentUuid === "string" ? `${l.parentUuid}-${round}` : last;
        const m = l.message as Record<string, unknown> | undefined;
        if (m && typeof m.id === "string") m.id = `${m.id}_${round}`;
        const text = JSON.stringify(l);
        out.push(text);
        size += text.length + 1;
        if (typeof l.uuid === "string") last = l.uuid;
      }
    }
    return out.join("\n") + "\n";
  }

  it("stores a coding-agent session past the document limit whole: it is read line by line, under the session limit", async () => {
    const text = longSession(1.2 * MiB, "long-session-1");
    expect(text.length).toBeGreaterThan(DOC_LIMIT);
    const r = await postChunked(`${imports.url}/api/imports`, "application/x-ndjson", Buffer.from(text), Buffer.alloc(0), text.length);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    // every API response of the file is a model call: distinct assistant message ids, counted from the text
    const ids = new Set(
      text
        .split("\n")
        .filter((l) => /"type":"assistant"/.test(l))
        .map((l) => /"id":"(msg_[^"]+)"/.exec(l)?.[1]),
    );
    ids.delete(undefined);
    expect(ids.size).toBeGreaterThan(20);
    const bodies = await listEventBodies(db, "claude-long-session-1", -1, 1_000_000);
    const calls = bodies.map((b) => JSON.parse(b.body) as { type: string }).filter((e) => e.type === "model.request");
    expect(calls).toHaveLength(ids.size);
  });

  it("tells a session whose first prompt is longer than the detection head by reading on, and stores it", async () => {
    const lines = longSession(200 * KiB, "long-first-line")
      .trimEnd()
      .split("\n");
    const at = lines.findIndex((l) => l.includes('"type":"user"'));
    const first = JSON.parse(lines[at]) as { message: { content: unknown } };
    first.message.content = "pasted:\n" + "a log line\n".repeat(40_000); // 440 KB, past the 256 KB head
    lines[at] = JSON.stringify(first);
    const text = lines.join("\n") + "\n";
    const r = await postChunked(`${imports.url}/api/imports`, "application/x-ndjson", Buffer.from(text), Buffer.alloc(0), text.length);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((r.body as { format?: string }).format).toBe("claude-code");
    expect(await getRun(db, "claude-long-first-line")).not.toBeNull();
  });

  it("refuses a coding-agent session past the session limit, naming it, and stores nothing", async () => {
    const text = longSession(3 * MiB, "long-session-2");
    const whole = Buffer.from(text);
    const big = await postChunked(
      `${imports.url}/api/imports`,
      "application/x-ndjson",
      whole.subarray(0, CHUNK),
      whole.subarray(CHUNK, 2 * CHUNK),
      200 * MiB,
    );
    expect(big.status).toBe(413);
    expect(big.body.error).toMatch(/RETRACE_MAX_SESSION_BYTES/);
    expect(big.sent).toBeGreaterThan(SESSION_LIMIT); // the answer came while the client was still sending
    expect(imports.pulled()).toBeLessThanOrEqual(SESSION_LIMIT + CHUNK);
    expect(await getRun(db, "claude-long-session-2")).toBeNull();
  });

  const runCount = async () => (await db.sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Run"`))[0].n;
  const evalFile = (name: string) => readFileSync(path.resolve(__dirname, "../fixtures/corpus/openhands-eval", name), "utf8");

  it("stores OpenHands evaluation output past the document limit: one instance per line, converted as it is read", async () => {
    const text =
      evalFile("python-openhands-fastjson2-2775-codeact-v0.output.jsonl") +
      evalFile("openhands-benchmarks-openagentsafety-gpt-4o-v1sdk.output.jsonl");
    expect(Buffer.byteLength(text)).toBeGreaterThan(DOC_LIMIT);
    const instances = text.split("\n").filter((l) => l.trim()).length;
    const before = await runCount();
    const r = await postChunked(`${imports.url}/api/imports`, "application/x-ndjson", Buffer.from(text), Buffer.alloc(0), text.length);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((r.body as { runs: unknown[] }).runs).toHaveLength(instances);
    expect((await runCount()) - before).toBe(instances);
  });

  it("refuses OpenHands evaluation output past the body limit and keeps none of the instances read before it", async () => {
    const line = evalFile("openhands-benchmarks-openagentsafety-gpt-4o-v1sdk.output.jsonl").split("\n")[0];
    const copies = (from: number, n: number) =>
      Buffer.from(Array.from({ length: n }, (_, i) => line.replace('"instance_id"', `"copy":${from + i},"instance_id"`) + "\n").join(""));
    const before = await runCount();
    const r = await postChunked(`${imports.url}/api/imports`, "application/x-ndjson", copies(0, 10), copies(10, 4), 200 * MiB);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/RETRACE_MAX_BODY_BYTES/);
    expect(r.sent).toBeGreaterThan(BODY_LIMIT);
    expect(await runCount()).toBe(before);
  });

  it("refuses an OTLP/HTTP request past the document limit, having read only up to it", async () => {
    const span = Buffer.from(`{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"${"s".repeat(4000)}"},`);
    const r = await postChunked(
      `${traces.url}/v1/traces`,
      "application/json",
      Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[`),
      span,
      200 * MiB,
    );
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/RETRACE_MAX_DOCUMENT_BYTES/);
    expect(traces.pulled()).toBeLessThanOrEqual(DOC_LIMIT + CHUNK);
  });

  it("refuses a gzip bomb after inflating about a mebibyte of it", async () => {
    const bomb = gzipSync(lines(0, 1).toString().repeat(20_000), { level: 9 }); // 19 MB of journal, ~1,000:1
    expect(bomb.length).toBeLessThan(BODY_LIMIT);
    let inflated = 0;
    await expect(
      (async () => {
        for await (const c of gunzipLimited(bytesOf(bomb), { maxRatio: 100 })) inflated += c.length;
      })(),
    ).rejects.toBeInstanceOf(InflateLimitError);
    expect(inflated).toBeLessThan(2 * MiB);
    const r = await postChunked(`${imports.url}/api/imports`, "application/gzip", bomb, Buffer.alloc(0), bomb.length);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/RETRACE_MAX_GZIP_RATIO/);
    expect(await getRun(db, "huge")).toBeNull();
  });

  it("still takes gzip bodies of ordinary compression, and gzip OTLP requests", async () => {
    const ok = gzipSync(lines(0, 500));
    const r = await postChunked(`${imports.url}/api/imports`, "application/gzip", ok, Buffer.alloc(0), ok.length);
    expect(r.status).toBe(201);
    expect((await getRun(db, "huge"))!.eventCount).toBe(500);
    const otlp = gzipSync(
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"1af7651916cd43dd8448eb211c80319c","spanId":"c7ad6b7169203331","name":"x","startTimeUnixNano":"1762513201026000000","endTimeUnixNano":"1762513202026000000"}]}]}]}`,
    );
    const o = await postChunked(`${traces.url}/v1/traces`, "application/json", otlp, Buffer.alloc(0), otlp.length);
    expect(o.status).toBe(200);
    expect(await getRun(db, "otel-1af7651916cd43dd8448eb211c80319c")).not.toBeNull();
  });
});
