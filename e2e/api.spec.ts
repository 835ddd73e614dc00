import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { journalJsonSchema } from "../lib/journal/schema";
import {
  appendAnswerSchema,
  appendRejectedSchema,
  errorAnswerSchema,
  eventsPageSchema,
  healthAnswerSchema,
  inspectAnswerSchema,
  journalsAnswerSchema,
  runDetailSchema,
  runListPageSchema,
  searchAnswerSchema,
  summaryAnswerSchema,
} from "../lib/view/api-types";
import { answer, getAnswer } from "./api-answers";
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

test("/runs, the parent of every run's path, leads to the runs list", async ({ request }) => {
  const res = await request.get("/runs?project=default", { maxRedirects: 0 });
  expect(res.status()).toBe(307);
  expect(res.headers()["location"]).toBe("/?project=default");
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
      const body = await answer(res, journalsAnswerSchema, 201);
      expect(body.runs).toMatchObject([{ run: runId, status: "stored", accepted: 31 }]);

      const list = await getAnswer(request, `${base}/api/runs?workflow=support-refund&limit=10`, runListPageSchema);
      expect(list.runs.map((r) => r.id)).toContain(runId);
      const run = await getAnswer(request, `${base}/api/runs/${runId}`, runDetailSchema);
      expect(run).toMatchObject({ id: runId, eventCount: 31, chainStatus: "verified", status: "succeeded" });
      expect(run.findings).toMatchObject([{ rule: "approval.missing", seq: 16, severity: "error" }]);

      const page1 = await getAnswer(request, `${base}/api/runs/${runId}/events?after=-1&limit=20`, eventsPageSchema);
      expect(page1.events).toHaveLength(20);
      expect(page1.nextAfter).toBe(19);
      const page2 = await getAnswer(request, `${base}/api/runs/${runId}/events?after=${page1.nextAfter}&limit=20`, eventsPageSchema);
      expect(page2.events.map((e) => e.seq)[0]).toBe(20);
      expect(page2.nextAfter).toBeNull();
      await getAnswer(request, `${base}/api/runs/no-such-run`, errorAnswerSchema, 404);
    });

    test("the viewer's routes answer in their schemas: summary, inspect with state, search, health, errors", async ({ request }) => {
      const text = fs.readFileSync(path.join(EXAMPLES, "10-refund-approval.stale-state.jsonl"), "utf8");
      const runId = (JSON.parse(text.split("\n")[0]) as { run: string }).run;
      expect((await postJournal(request, base, text)).status()).toBeLessThan(300);
      const events = text.split("\n").filter(Boolean).length;
      const runs = `${base}/api/runs/${runId}`;

      const summary = await getAnswer(request, `${runs}/summary`, summaryAnswerSchema);
      expect(summary).toMatchObject({ run: runId, count: events });
      const later = await getAnswer(request, `${runs}/summary?after=${events - 3}`, summaryAnswerSchema);
      expect(later.count).toBe(2);

      const detail = await getAnswer(request, runs, runDetailSchema);
      const stateSeq = (await getAnswer(request, `${runs}/events?limit=500`, eventsPageSchema)).events.find(
        (e) => e.event.type === "state",
      )?.seq;
      expect(stateSeq).toBeDefined();
      const inspected = await getAnswer(request, `${runs}/inspect?seq=${stateSeq}`, inspectAnswerSchema);
      expect(inspected.seq).toBe(stateSeq);
      expect(inspected.state).not.toBeNull();
      const withState = await getAnswer(request, `${runs}/inspect?seq=${detail.findings[0]?.seq ?? 0}&state=1`, inspectAnswerSchema);
      expect(withState.state).not.toBeNull();
      expect(withState.findings.length).toBeGreaterThan(0);

      const found = await getAnswer(request, `${runs}/search?q=refund`, searchAnswerSchema);
      expect(found.seqs.length).toBeGreaterThan(0);
      expect(found.truncated).toBe(false);

      expect(await getAnswer(request, `${base}/api/health`, healthAnswerSchema)).toEqual({ ok: true, database: name });
      await getAnswer(request, `${runs}/inspect?seq=${events + 5}`, errorAnswerSchema, 404);
      await getAnswer(request, `${runs}/inspect?seq=x`, errorAnswerSchema, 400);
      await getAnswer(request, `${base}/api/runs/no-such-run/summary`, errorAnswerSchema, 404);
      await getAnswer(request, `${base}/api/runs/no-such-run/events`, errorAnswerSchema, 404);
      await getAnswer(request, `${base}/api/runs?sort=sideways`, errorAnswerSchema, 400);
      await getAnswer(request, `${base}/api/runs?cursor=not-ours`, errorAnswerSchema, 400);
    });

    test("answers 415 for a wrong content type and names another trace format", async ({ request }) => {
      await answer(await postJournal(request, base, "<xml/>", { "content-type": "application/xml" }), errorAnswerSchema, 415);
      // text/plain is what a cross-site form or no-cors fetch can send: never a journal
      const simple = `{"run":"plain-text-1","seq":0,"ts":"2026-11-07T11:00:00Z","type":"run.start","data":{}}\n`;
      await answer(await postJournal(request, base, simple, { "content-type": "text/plain" }), errorAnswerSchema, 415);
      expect((await request.get(`${base}/api/runs/plain-text-1`)).status()).toBe(404);
      const otlp = JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [] }] }, null, 2);
      const json = await answer(await postJournal(request, base, otlp), journalsAnswerSchema, 415);
      expect(json.error).toMatch(/OTLP JSON export request \(OpenTelemetry\)/);
    });

    test("answers 400 with every error's line and stores nothing of the bad run; the server keeps serving", async ({ request }) => {
      const run = `bad-${name}`;
      const body =
        nd([ev(run, 0), { ...ev(run, 1), seq: "one" }, ev(run, 2)]) +
        `{"run":"${run}","seq":3,"ts":"${TS}","type":"note","data":{"text":"x","__proto__":{}}}\n` +
        '{"run":"x","seq":';
      const json = await answer(await postJournal(request, base, body), journalsAnswerSchema, 400);
      // line 4 holds a `__proto__` key: payloads are data, so it is not an error
      expect(json.errors.map((e) => e.line)).toEqual([2, 5]);
      await getAnswer(request, `${base}/api/runs/${run}`, errorAnswerSchema, 404);
      await getAnswer(request, `${base}/api/health`, healthAnswerSchema);
    });

    test("answers 413 for a body over the limit and 400 for a line over the line limit", async ({ request }) => {
      const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
      await answer(await postJournal(request, base, big), errorAnswerSchema, 413);
      const run = `longline-${name}`;
      const res = await postJournal(request, base, nd([ev(run, 0), ev(run, 1, "note", { text: "y".repeat(7 * 1024 * 1024) })]));
      expect((await answer(res, journalsAnswerSchema, 400)).errors[0]).toMatchObject({ line: 2 });
    });

    test("live append is idempotent by seq, 409 names a conflicting seq, nextSeq is the first missing one", async ({ request }) => {
      const run = `live-${name}-${Date.now()}`;
      const post = (events: object[]) => request.post(`${base}/api/runs/${run}/events`, { data: nd(events), headers: NDJSON });
      expect(await answer(await post([ev(run, 0, "run.start", {}), ev(run, 1), ev(run, 3)]), appendAnswerSchema, 200)).toMatchObject({
        accepted: 3,
        duplicates: 0,
        nextSeq: 2,
      });
      expect(await answer(await post([ev(run, 2), ev(run, 1)]), appendAnswerSchema, 200)).toMatchObject({
        accepted: 1,
        duplicates: 1,
        nextSeq: 4,
      });
      const conflict = await answer(await post([ev(run, 3, "note", { text: "not what was sent" })]), appendRejectedSchema, 409);
      expect(conflict).toMatchObject({ seq: 3 });
      expect((await getAnswer(request, `${base}/api/runs/${run}`, runDetailSchema)).live).toBe(true);
      await answer(await post([ev(run, 4, "run.end", { status: "failed" })]), appendAnswerSchema, 200);
      const detail = await getAnswer(request, `${base}/api/runs/${run}`, runDetailSchema);
      expect(detail).toMatchObject({ live: false, status: "failed", eventCount: 5 });
      await answer(
        await request.post(`${base}/api/runs/${run}/events`, { data: nd([{ ...ev(run, 5), seq: "five" }]), headers: NDJSON }),
        appendRejectedSchema,
        400,
      );
    });
  });
}
