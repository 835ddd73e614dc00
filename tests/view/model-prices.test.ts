/** A project's model prices stored and read back, and a run's model usage, on both databases (lib/server/prices.ts). */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { modelPricesOf, runModelUsage, setModelPrices } from "@/lib/server/prices";
import { ingestBytes } from "@/lib/server/service";
import { usageAnswerSchema } from "@/lib/view/api-types";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const read = (f: string) => fs.readFileSync(path.resolve("tests/fixtures/examples", f), "utf8");

describe.each(DIALECTS)("model prices on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    expect((await ingestBytes(db, bytesOf(read("00-refund-clean.jsonl")), { mode: "upload", source: "upload" })).errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  it("a project has no prices until an admin sets them, and an empty table removes them", async () => {
    expect(await modelPricesOf(db, "default")).toEqual({});
    await setModelPrices(db, "default", { planner: { input: 3, output: 15 } });
    await setModelPrices(db, "default", { planner: { input: 2.5, output: 10 }, "gpt-4o": { input: 2.5, output: 10 } });
    expect(await modelPricesOf(db, "default")).toEqual({ planner: { input: 2.5, output: 10 }, "gpt-4o": { input: 2.5, output: 10 } });
    await setModelPrices(db, "default", {});
    expect(await modelPricesOf(db, "default")).toEqual({});
  });
  it("refuses a project that does not exist", async () => {
    await expect(setModelPrices(db, "no-such-project", { a: { input: 1, output: 1 } })).rejects.toThrow(/not found/);
  });
  it("reads the run's model usage from its stored events", async () => {
    const calls = await runModelUsage(db, "demo-refund-4185");
    // the example's three model.response events (seq 7, 15, 26), model named by each request
    expect(usageAnswerSchema.parse({ calls, prices: {} }).calls).toEqual([
      { seq: 7, model: "planner", inputTokens: 1383, outputTokens: 21 },
      { seq: 15, model: "planner", inputTokens: 2747, outputTokens: 42 },
      { seq: 26, model: "planner", inputTokens: 2886, outputTokens: 209 },
    ]);
    expect(await runModelUsage(db, "no-such-run")).toEqual([]);
  });
});
