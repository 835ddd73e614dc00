/**
 * The runs list's error count through ingest: one failure counted once (a failed tool, the
 * error naming its call, the step.end of the steps around it), whether the run arrives in
 * one request or in many (the count's state is kept on the run row between requests), and
 * recounted from the stored events when a gap is filled late.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJournalBatches } from "@/lib/journal/reader";
import type { Db } from "@/lib/server/db";
import { ingest } from "@/lib/server/ingest";
import { redactorFor } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const TS = (i: number) => new Date(Date.UTC(2026, 10, 7, 11, 0, 0, i * 10)).toISOString();

/** A run with two failed tools (one inside nested steps that all end in error), one plain error, and a failed run.end: 3 failures. */
function lines(run: string): string[] {
  const specs: Array<[string, string | null, Record<string, unknown>, number?]> = [
    ["run.start", null, { workflow: { name: "w" } }],
    ["step.start", "outer", { name: "outer" }],
    ["step.start", "inner", { name: "inner" }, 1],
    ["tool.call", "inner", { call: "c1", tool: "book", args: {}, effect: "write" }],
    ["error", "inner", { message: "no table", call: "c1" }],
    ["tool.result", "inner", { call: "c1", status: "error", error: "no table" }],
    ["step.end", "inner", { status: "error" }],
    ["tool.call", "outer", { call: "c2", tool: "pay", args: {}, effect: "write" }],
    ["tool.result", "outer", { call: "c2", status: "timeout" }],
    ["step.end", "outer", { status: "error" }],
    ["error", null, { message: "the agent gave up" }],
    ["run.end", null, { status: "failed" }],
  ];
  return specs.map(([type, step, data, parent], seq) =>
    JSON.stringify({ run, seq, ts: TS(seq), type, ...(step ? { step } : {}), ...(parent !== undefined ? { parent } : {}), data }),
  );
}

describe.each(DIALECTS)("the error count on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const send = async (ls: string[], stream: boolean) =>
    ingest(db.sql, await redactorFor(db), readJournalBatches(bytesOf(ls.join("\n") + "\n")), {
      mode: stream ? "stream" : "upload",
      source: stream ? "stream" : "upload",
      maxEventsPerRun: 1000,
    });
  const errorCount = async (run: string) =>
    Number((await db.sql.all<{ n: number }>(`SELECT "errorCount" AS "n" FROM "Run" WHERE "id" = ?`, [run]))[0].n);

  it("counts each failure once in one request", async () => {
    await send(lines("ec-one"), false);
    expect(await errorCount("ec-one")).toBe(3);
  });

  it("counts the same when every event comes in a request of its own", async () => {
    for (const l of lines("ec-many")) await send([l], true);
    expect(await errorCount("ec-many")).toBe(3);
  });

  it("recounts from the stored events when a gap is filled after later events", async () => {
    const ls = lines("ec-gap");
    await send(ls.slice(0, 4), true);
    await send(ls.slice(6), true);
    await send(ls.slice(4, 6), true);
    expect(await errorCount("ec-gap")).toBe(3);
  });
});
