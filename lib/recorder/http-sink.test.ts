/**
 * The HTTP sink against a real HTTP server implementing the append contract
 * (`POST /api/runs/{run}/events`, NDJSON, idempotent by seq, answers {accepted, duplicates,
 * nextSeq}). The server goes away mid-run and comes back: nothing may be lost or stored twice.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../canonical";
import { createRecorder, httpSink, memorySink, verifyChain, type Sink } from "./index";
import { appendServer, stored } from "./testing/append-server";

/** Records into an HTTP sink and keeps a copy of every event written. */
function tee(sink: Sink) {
  const copy = memorySink();
  const both: Sink = {
    write: (e) => {
      copy.write(e);
      sink.write(e);
    },
    flush: (t) => sink.flush(t),
    close: (t) => sink.close(t),
  };
  return { sink: both, events: copy.events };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = mkdtempSync(join(tmpdir(), "retrace-http-sink-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("httpSink", () => {
  it("loses no event and stores none twice when Retrace is down for a while mid-run", async () => {
    const server = await appendServer();
    const spoolDir = join(tmp, "outage");
    const errors: string[] = [];
    const http = httpSink({
      baseUrl: `http://127.0.0.1:${server.port}/`,
      token: "test-token",
      spoolDir,
      batchSize: 5,
      flushIntervalMs: 20,
      maxBuffer: 20,
      maxBackoffMs: 100,
      requestTimeoutMs: 2000,
      onError: (e) => errors.push(e.message),
    });
    const { sink, events } = tee(http);
    const rec = createRecorder({ runId: "outage-run-1", workflow: { name: "outage" }, sink });

    for (let i = 0; i < 10; i++) {
      await rec.step(`before-${i}`, async () => {
        await rec.tool("lookup", { effect: "read" }, { i }, async () => ({ ok: i }));
      });
    }
    expect(await http.flush(5000)).toBe(true);
    const before = events.length;
    expect(stored(server, rec.runId)).toHaveLength(before);

    await server.stop();
    // While Retrace is away the agent keeps going, faster than the buffer allows.
    for (let i = 0; i < 60; i++) rec.note(`offline ${i}`);
    await rec.step("offline-step", async () => {
      await rec.tool("pay", { effect: "write", idempotencyKey: "pay-1" }, { amount: 5 }, async () => ({ id: "pay_1" }));
    });
    await sleep(300);
    expect(http.stats().memoryEvents).toBeLessThanOrEqual(20);
    expect(http.stats().failedAttempts).toBeGreaterThan(0);
    expect(readdirSync(spoolDir).some((f) => f.endsWith(".ndjson"))).toBe(true);
    expect(stored(server, rec.runId)).toHaveLength(before);

    await server.start();
    for (let i = 0; i < 10; i++) rec.note(`back online ${i}`);
    expect(await rec.end("succeeded", { timeoutMs: 10_000 })).toBe(true);

    const got = stored(server, rec.runId);
    expect(got.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(got.map((e) => canonicalJson(e))).toEqual(events.map((e) => canonicalJson(e)));
    expect(verifyChain(got).firstFailure).toBeNull();
    // Resending is allowed by the contract; storing twice is not (the map holds one per seq).
    expect(server.runs.get(rec.runId)?.size).toBe(events.length);
    expect(readdirSync(spoolDir).filter((f) => f.endsWith(".ndjson"))).toEqual([]);
    expect(server.authorization.every((a) => a === "Bearer test-token")).toBe(true);
    expect(errors.some((m) => /unreachable/.test(m))).toBe(true);
    await http.close(1000);
    await server.stop();
  });

  it("resends what an earlier process left in the spool", async () => {
    const server = await appendServer();
    await server.stop();
    const spoolDir = join(tmp, "restart");
    const first = httpSink({
      baseUrl: `http://127.0.0.1:${server.port}`,
      spoolDir,
      batchSize: 10,
      flushIntervalMs: 20,
      maxBackoffMs: 50,
      onError: () => undefined,
    });
    const a = tee(first);
    const rec = createRecorder({ runId: "restart-run", workflow: { name: "restart" }, sink: a.sink });
    for (let i = 0; i < 25; i++) rec.note(`n${i}`);
    expect(await rec.end("succeeded", { timeoutMs: 300 })).toBe(false);
    expect(await first.close(100)).toBe(false);
    expect(existsSync(join(spoolDir, "restart-run.ndjson"))).toBe(true);

    await server.start();
    const second = httpSink({
      baseUrl: `http://127.0.0.1:${server.port}`,
      spoolDir,
      batchSize: 10,
      flushIntervalMs: 20,
      onError: () => undefined,
    });
    expect(await second.flush(5000)).toBe(true);
    expect(stored(server, "restart-run").map((e) => canonicalJson(e))).toEqual(a.events.map((e) => canonicalJson(e)));
    expect(existsSync(join(spoolDir, "restart-run.ndjson"))).toBe(false);
    await second.close(100);
    await server.stop();
  });

  it("keeps refused batches aside instead of retrying them forever", async () => {
    const server = await appendServer();
    server.rejectRun = "bad-run";
    const spoolDir = join(tmp, "rejected");
    const errors: string[] = [];
    const sink = httpSink({
      baseUrl: `http://127.0.0.1:${server.port}`,
      spoolDir,
      batchSize: 4,
      flushIntervalMs: 20,
      onError: (e) => errors.push(e.message),
    });
    const bad = createRecorder({ runId: "bad-run", workflow: { name: "w" }, sink });
    const good = createRecorder({ runId: "good-run", workflow: { name: "w" }, sink });
    bad.note("x");
    good.note("y");
    await bad.end("succeeded");
    expect(await good.end("succeeded")).toBe(true);
    expect(stored(server, "good-run")).toHaveLength(3);
    expect(readFileSync(join(spoolDir, "bad-run.rejected.ndjson"), "utf8").trim().split("\n")).toHaveLength(3);
    expect(sink.stats().rejectedEvents).toBe(3);
    expect(errors.some((m) => /HTTP 422/.test(m))).toBe(true);
    await sink.close(100);
    await server.stop();
  });

  it("never throws into the agent, even with an unusable URL", async () => {
    const sink = httpSink({
      baseUrl: "http://127.0.0.1:1",
      spoolDir: join(tmp, "unusable"),
      flushIntervalMs: 20,
      maxBackoffMs: 50,
      onError: () => undefined,
    });
    const rec = createRecorder({ runId: "no-server", workflow: { name: "w" }, sink });
    for (let i = 0; i < 100; i++) rec.note(`${i}`);
    expect(await rec.end("succeeded", { timeoutMs: 200 })).toBe(false);
    expect(await sink.close(50)).toBe(false);
    expect(
      readFileSync(join(tmp, "unusable", "no-server.ndjson"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(102);
  });
});
