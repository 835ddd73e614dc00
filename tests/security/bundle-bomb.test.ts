/**
 * Bundle verify under hostile bodies. A 2 MB gzip bomb (2 GB of zeros behind Retrace's
 * own gzip header) is refused 413 once it has inflated to the document limit, and is
 * inflated and checked off the event loop: a request sent while it is being processed is
 * answered first. Before, the bundle was inflated whole on the event loop and compressed
 * again at level 9 there, blocking every request for half a minute. A body over the limit
 * is read to its end and answered 413, not cut off with a connection reset.
 *
 * The server hands the handler a body stream built the way Next.js builds it
 * (next/dist/server/body-streams.js: the socket read in `start()`, so cancelling the
 * stream ends the loop over the socket, which destroys it).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { constants, deflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEFAULT_MAX_TAR_BYTES } from "@/lib/evidence";
import { answerVerify } from "@/lib/server/bundle-verify";
import type { Db } from "@/lib/server/db";
import { freshDb, type TestDb } from "../helpers/db";

const MiB = 1024 * 1024;

/** Retrace's fixed gzip header, then copies of a byte-aligned non-final deflate block of 16 MiB of zeros: `copies` × 16 MiB inflated. */
function gzipBomb(copies: number): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03]);
  const block = deflateRawSync(Buffer.alloc(16 * MiB), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const final = Buffer.from([0x03, 0x00]); // an empty final block (fixed Huffman, end of block)
  return Buffer.concat([header, ...Array.from({ length: copies }, () => block), final, Buffer.alloc(8)]);
}

interface Served {
  url: string;
  /** Bytes of request bodies received on the socket so far. */
  received: () => number;
  close: () => Promise<void>;
}

async function serve(db: Db): Promise<Served> {
  let received = 0;
  const server = http.createServer((nodeReq, nodeRes) => {
    nodeReq.on("data", (c: Buffer) => (received += c.length));
    if (nodeReq.url === "/api/health") {
      nodeRes.writeHead(200, { "content-type": "application/json" });
      nodeRes.end(`{"ok":true}`);
      return;
    }
    // as Next.js does: the whole socket read in start(); a cancel ends the loop, destroying it
    const body = new ReadableStream<Uint8Array>({
      async start(ctrl) {
        for await (const chunk of nodeReq) ctrl.enqueue(new Uint8Array(chunk as Buffer));
        ctrl.close();
      },
    });
    const req = new Request(`http://127.0.0.1${nodeReq.url}`, { method: "POST", body, duplex: "half" } as RequestInit);
    void answerVerify(db, req).then(async (res) => {
      nodeRes.writeHead(res.status, { "content-type": "application/json" });
      nodeRes.end(Buffer.from(await res.arrayBuffer()));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * POSTs `body` whole (chunked): the status, the JSON answer and the socket's error if any,
 * once the answer is read and the request is closed (a reset after the answer counts too).
 */
async function post(url: string, body: Buffer): Promise<{ status: number; body: { error?: string }; socket?: string }> {
  const req = http.request(url, { method: "POST", headers: { "content-type": "application/gzip" } });
  let socket: string | undefined;
  req.on("error", (e: NodeJS.ErrnoException) => (socket = e.code ?? e.message));
  const closed = once(req, "close");
  const answered = new Promise<{ status: number; body: { error?: string } }>((resolve) =>
    req.on("response", async (res) => {
      const parts: Buffer[] = [];
      for await (const p of res) parts.push(p as Buffer);
      resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString("utf8")) as { error?: string } });
    }),
  );
  for (let at = 0; at < body.length && socket === undefined; at += 64 * 1024) {
    if (!req.write(body.subarray(at, at + 64 * 1024))) await Promise.race([once(req, "drain"), closed]);
  }
  req.end();
  await closed;
  const r = await Promise.race([answered, new Promise<null>((resolve) => setImmediate(() => resolve(null)))]);
  return { ...(r ?? { status: 0, body: {} }), ...(socket !== undefined ? { socket } : {}) };
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) =>
    http.get(url, (res) => res.resume().on("end", () => resolve(res.statusCode ?? 0))).on("error", reject),
  );
}

describe("bundle verify, bounded", () => {
  let t: TestDb;
  let server: Served;
  let small: Served;
  const SMALL_LIMIT = 1 * MiB;
  beforeAll(async () => {
    t = await freshDb("sqlite");
    server = await serve(t.open());
    small = await serve(t.open({ RETRACE_MAX_DOCUMENT_BYTES: String(SMALL_LIMIT) }));
  });
  afterAll(async () => {
    await server.close();
    await small.close();
    await t.cleanup();
  });

  it("refuses a 2 MB gzip bomb with 413 at the document limit, answering other requests meanwhile", async () => {
    const bomb = gzipBomb(128); // 2 GiB inflated
    expect(bomb.length).toBeLessThan(3 * MiB);
    const order: string[] = [];
    const verifying = post(`${server.url}/api/bundles/verify`, bomb).then((r) => (order.push("bomb"), r));
    // once the server holds the whole bomb, it is inflating it: ask for something else
    while (server.received() < bomb.length) await new Promise((resolve) => setImmediate(resolve));
    const health = await get(`${server.url}/api/health`);
    order.push("health");
    const r = await verifying;
    expect(health).toBe(200);
    expect(r).toEqual({
      status: 413,
      body: {
        error: `the archive inflates to more than ${DEFAULT_MAX_TAR_BYTES} bytes; it was not read further (RETRACE_MAX_DOCUMENT_BYTES)`,
      },
    });
    expect(order).toEqual(["health", "bomb"]);
  });

  it("answers a body over the document limit with 413 after reading it, not with a connection reset", async () => {
    const r = await post(`${small.url}/api/bundles/verify`, Buffer.alloc(32 * SMALL_LIMIT, 7));
    expect(r).toEqual({ status: 413, body: { error: expect.stringMatching(/over 1048576 bytes \(RETRACE_MAX_DOCUMENT_BYTES\)/) } });
  });

  it("still reports a damaged small archive as a failure of the archive (200)", async () => {
    const r = await post(`${server.url}/api/bundles/verify`, gzipBomb(1).subarray(0, 5000));
    expect(r).toMatchObject({ status: 200, body: { ok: false, failures: [{ member: "archive" }] } });
  });
});

describe("retrace verify of a gzip bomb", () => {
  it("stops at the document limit and exits 1 naming it", async () => {
    const file = path.join(inject("tmpDir"), "bomb.tar.gz");
    fs.writeFileSync(file, gzipBomb(128));
    const r = await promisify(execFile)(process.execPath, [path.resolve("scripts/retrace.mjs"), "verify", file]).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the archive inflates to more than ${DEFAULT_MAX_TAR_BYTES} bytes`);
  });
});
