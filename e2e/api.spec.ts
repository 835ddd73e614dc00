import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { journalJsonSchema } from "../lib/journal/schema";
import { SERVERS } from "./servers";

const EXAMPLES = path.resolve("tests/fixtures/examples");
const TS = "2026-11-07T11:00:01.026Z";
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const ev = (run: string, seq: number, type = "note", data: object = { text: `e${seq}` }) => ({ run, seq, ts: TS, type, data });
const NDJSON = { "content-type": "application/x-ndjson" };

async function postJournal(request: APIRequestContext, base: string, body: string | Buffer, headers: Record<string, string> = NDJSON) {
  return request.post(`${base}/api/journals`, { data: body, headers });
}

test("serves the JSON Schema generated from the zod schema", async ({ request }) => {
  const res = await request.get("/schema/journal-v1.json");
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual(JSON.parse(JSON.stringify(journalJsonSchema())));
});

for (const { name, base } of SERVERS) {
  test.describe(`API on ${name}`, () => {
    test("POST /api/journals stores a journal; the runs list, the run and its events read back", async ({ request }) => {
      const text = fs.readFileSync(path.join(EXAMPLES, "09-refund-approval.missing.jsonl"), "utf8");
      const runId = (JSON.parse(text.split("\n")[0]) as { run: string }).run;
      const res = await postJournal(request, base, gzipSync(Buffer.from(text)), {
        "content-type": "application/x-ndjson",
        "content-encoding": "identity",
      });
      expect(res.status()).toBe(201);
      const body = await res.json();
      expect(body.runs).toMatchObject([{ run: runId, status: "stored", accepted: 31 }]);

      const list = await (await request.get(`${base}/api/runs?workflow=support-refund&limit=10`)).json();
      expect(list.runs.map((r: { id: string }) => r.id)).toContain(runId);
      const run = await (await request.get(`${base}/api/runs/${runId}`)).json();
      expect(run).toMatchObject({ id: runId, eventCount: 31, chainStatus: "verified", status: "succeeded" });
      expect(run.findings).toMatchObject([{ rule: "approval.missing", seq: 16, severity: "error" }]);

      const page1 = await (await request.get(`${base}/api/runs/${runId}/events?after=-1&limit=20`)).json();
      expect(page1.events).toHaveLength(20);
      expect(page1.nextAfter).toBe(19);
      const page2 = await (await request.get(`${base}/api/runs/${runId}/events?after=${page1.nextAfter}&limit=20`)).json();
      expect(page2.events.map((e: { seq: number }) => e.seq)[0]).toBe(20);
      expect(page2.nextAfter).toBeNull();
      expect((await request.get(`${base}/api/runs/no-such-run`)).status()).toBe(404);
    });

    test("answers 415 for a wrong content type and names another trace format", async ({ request }) => {
      expect((await postJournal(request, base, "<xml/>", { "content-type": "application/xml" })).status()).toBe(415);
      const otlp = JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [] }] }, null, 2);
      const res = await postJournal(request, base, otlp);
      expect(res.status()).toBe(415);
      expect((await res.json()).error).toMatch(/OTLP JSON export request \(OpenTelemetry\)/);
    });

    test("answers 400 with every error's line and stores nothing of the bad run; the server keeps serving", async ({ request }) => {
      const run = `bad-${name}`;
      const body =
        nd([ev(run, 0), { ...ev(run, 1), seq: "one" }, ev(run, 2)]) +
        `{"run":"${run}","seq":3,"ts":"${TS}","type":"note","data":{"text":"x","__proto__":{}}}\n` +
        '{"run":"x","seq":';
      const res = await postJournal(request, base, body);
      expect(res.status()).toBe(400);
      const json = await res.json();
      expect(json.errors.map((e: { line: number }) => e.line)).toEqual([2, 4, 5]);
      expect((await request.get(`${base}/api/runs/${run}`)).status()).toBe(404);
      expect((await request.get(`${base}/api/health`)).status()).toBe(200);
    });

    test("answers 413 for a body over the limit and 400 for a line over the line limit", async ({ request }) => {
      const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
      expect((await postJournal(request, base, big)).status()).toBe(413);
      const run = `longline-${name}`;
      const res = await postJournal(request, base, nd([ev(run, 0), ev(run, 1, "note", { text: "y".repeat(7 * 1024 * 1024) })]));
      expect(res.status()).toBe(400);
      expect((await res.json()).errors[0]).toMatchObject({ line: 2 });
    });

    test("live append is idempotent by seq, 409 names a conflicting seq, nextSeq is the first missing one", async ({ request }) => {
      const run = `live-${name}-${Date.now()}`;
      const post = (events: object[]) => request.post(`${base}/api/runs/${run}/events`, { data: nd(events), headers: NDJSON });
      let res = await post([ev(run, 0, "run.start", {}), ev(run, 1), ev(run, 3)]);
      expect(res.status()).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: 3, duplicates: 0, nextSeq: 2 });
      res = await post([ev(run, 2), ev(run, 1)]);
      expect(await res.json()).toMatchObject({ accepted: 1, duplicates: 1, nextSeq: 4 });
      res = await post([ev(run, 3, "note", { text: "not what was sent" })]);
      expect(res.status()).toBe(409);
      expect(await res.json()).toMatchObject({ seq: 3 });
      expect((await (await request.get(`${base}/api/runs/${run}`)).json()).live).toBe(true);
      res = await post([ev(run, 4, "run.end", { status: "failed" })]);
      const detail = await (await request.get(`${base}/api/runs/${run}`)).json();
      expect(detail).toMatchObject({ live: false, status: "failed", eventCount: 5 });
    });
  });
}
