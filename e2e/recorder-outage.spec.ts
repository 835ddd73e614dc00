import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { expect, test } from "@playwright/test";
import { createRecorder, httpSink } from "../lib/recorder";
import { verifyChain } from "../lib/journal/chain";
import type { JournalEvent } from "../lib/journal/types";
import { PG_PORT } from "./servers";

/**
 * The recorder against a real Retrace server that is stopped for 30 s in the middle of a
 * run and started again: no event is lost, none is stored twice, and the chain verifies.
 */
const PORT = PG_PORT + 20;
const DB = path.resolve(`.tmp/outage-${PORT}.db`);
const env = { ...process.env, DATABASE_URL: `file:${DB}`, NEXT_TELEMETRY_DISABLED: "1" };

function startServer(): ChildProcess {
  return spawn(path.resolve("node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(PORT)], { env, stdio: "ignore" });
}

async function waitUp(): Promise<void> {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/api/health`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not come up");
}

async function stop(server: ChildProcess): Promise<void> {
  server.kill("SIGTERM");
  await once(server, "exit");
}

test("the recorder loses and duplicates nothing when Retrace is down for 30 s mid-run", async () => {
  test.setTimeout(180_000);
  for (const f of [DB, `${DB}-wal`, `${DB}-shm`]) fs.rmSync(f, { force: true });
  const migrate = spawnSync(process.execPath, ["scripts/retrace.mjs", "migrate"], { env, encoding: "utf8" });
  expect(migrate.status, migrate.stderr).toBe(0);
  let server = startServer();
  await waitUp();

  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-spool-"));
  const sink = httpSink({
    baseUrl: `http://127.0.0.1:${PORT}`,
    spoolDir,
    batchSize: 20,
    flushIntervalMs: 200,
    maxBuffer: 50,
    maxBackoffMs: 2000,
    requestTimeoutMs: 2000,
    onError: () => undefined,
  });
  const rec = createRecorder({
    workflow: { name: "outage", version: "1" },
    agent: { name: "outage-agent", version: "1" },
    versions: { prompts: {}, policies: {}, tools: {}, models: {} },
    environment: "test",
    initiator: { kind: "test", id: "e2e" },
    policy: {},
    sink,
    onError: () => undefined,
  });
  const tick = () => new Promise((r) => setTimeout(r, 100));

  for (let i = 0; i < 30; i++) {
    rec.note(`before the outage ${i}`);
    await tick();
  }
  await stop(server);
  const downAt = Date.now();
  let during = 0;
  while (Date.now() - downAt < 30_000) {
    rec.note(`during the outage ${during++}`);
    await rec.tool("lookup", { effect: "read" }, { n: during }, async () => ({ ok: true }));
    await tick();
  }
  server = startServer();
  await waitUp();
  for (let i = 0; i < 20; i++) {
    rec.note(`after the outage ${i}`);
    await tick();
  }
  const delivered = await rec.end("succeeded", { timeoutMs: 60_000 });
  expect(delivered).toBe(true);

  const runId = (await (await fetch(`http://127.0.0.1:${PORT}/api/runs?limit=5`)).json()).runs[0].id as string;
  const events: JournalEvent[] = [];
  let after = -1;
  for (;;) {
    const page = await (await fetch(`http://127.0.0.1:${PORT}/api/runs/${runId}/events?after=${after}&limit=1000`)).json();
    events.push(...page.events.map((e: { event: JournalEvent; recordedHash: string }) => ({ ...e.event, hash: e.recordedHash })));
    if (page.nextAfter === null) break;
    after = page.nextAfter;
  }
  const expected = 1 + 30 + during * 3 + 20 + 1;
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: expected }, (_, i) => i));
  expect(verifyChain(events).firstFailure).toBeNull();
  const run = await (await fetch(`http://127.0.0.1:${PORT}/api/runs/${runId}`)).json();
  expect(run).toMatchObject({ eventCount: expected, chainStatus: "verified", status: "succeeded", live: false });
  await stop(server);
  fs.rmSync(spoolDir, { recursive: true, force: true });
});
