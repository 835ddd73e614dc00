/**
 * Numbers a recorder sent that the summary columns cannot hold as they are (fractional or
 * huge token counts, a latency of 1e300) are data: the run is stored on both databases,
 * the body keeps every number as sent, and the columns hold what they can.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { importStream } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const RUN = "odd-numbers";
const ts = (i: number) => `2026-11-07T11:00:0${i}.000Z`;
const journal = [
  { seq: 0, type: "run.start", data: { workflow: { name: "odd", version: "1" } } },
  { seq: 1, type: "model.request", data: { call: "m1", model: "x", messages: [] } },
  { seq: 2, type: "model.response", data: { call: "m1", output: { text: "a" }, usage: { inputTokens: 1.5, outputTokens: 2.25 } } },
  { seq: 3, type: "model.request", data: { call: "m2", model: "x", messages: [] } },
  {
    seq: 4,
    type: "model.response",
    data: { call: "m2", output: { text: "b" }, usage: { inputTokens: 1e12, outputTokens: 1 }, latencyMs: 1e300 },
  },
  { seq: 5, type: "run.end", data: { status: "succeeded" } },
]
  .map((e) => JSON.stringify({ run: RUN, ts: ts(e.seq), ...e }))
  .join("\n");

describe.each(DIALECTS)("odd numbers in a journal on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  }, 60_000);
  afterAll(async () => t.cleanup());

  it("stores the run, keeps the numbers in the body and the columns what they can hold", async () => {
    const r = await importStream(db, bytesOf(`${journal}\n`), { accept: "journal", source: "import" });
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: 6 });
    const rows = await db.sql.all<{ seq: number | string; tokens: number | string | null; body: string }>(
      `SELECT "seq", "tokens", "body" FROM "Event" WHERE "runId" = '${RUN}' AND "type" = 'model.response' ORDER BY "seq"`,
    );
    expect(rows.map((x) => (x.tokens === null ? null : Number(x.tokens)))).toEqual([4, null]);
    const usage = rows.map((x) => (JSON.parse(x.body) as { data: { usage: unknown } }).data.usage);
    expect(usage).toEqual([
      { inputTokens: 1.5, outputTokens: 2.25 },
      { inputTokens: 1e12, outputTokens: 1 },
    ]);
  }, 60_000);
});
