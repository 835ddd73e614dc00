/**
 * A NUL (U+0000) in text that is stored in a column of its own (a workflow name, a step id,
 * a tool name, a call id, a finding that quotes them) gets the same answer on both
 * databases: stored, with U+FFFD in those columns, and the event's own JSON keeping the
 * NUL exactly (as the escape \u0000). Before, PostgreSQL refused the row (a 500, which a
 * recorder retries forever) while SQLite stored the NUL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const NUL = "\u0000";
const TS = (i: number) => new Date(Date.UTC(2026, 11, 7, 10, 0, 0, i * 10)).toISOString();

function journal(run: string): string {
  const events: Array<[string, string | null, Record<string, unknown>]> = [
    ["run.start", null, { workflow: { name: `wf${NUL}x` } }],
    ["step.start", `st${NUL}ep`, { name: `look${NUL}up` }],
    ["tool.call", `st${NUL}ep`, { call: `c${NUL}1`, tool: `to${NUL}ol`, args: { q: `a${NUL}b` }, effect: "read" }],
    ["tool.result", `st${NUL}ep`, { call: `c${NUL}1`, status: "ok", output: `o${NUL}` }],
    ["step.end", `st${NUL}ep`, { status: "ok" }],
    ["run.end", null, { status: "succeeded" }],
  ];
  return (
    events.map(([type, step, data], seq) => JSON.stringify({ run, seq, ts: TS(seq), type, ...(step ? { step } : {}), data })).join("\n") +
    "\n"
  );
}

describe.each(DIALECTS)("NUL in stored text on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("stores the run, with U+FFFD in its text columns and the NUL kept in each event's JSON", async () => {
    const r = await ingestBytes(db, bytesOf(journal("nul-upload")), { mode: "upload", source: "upload" });
    expect(r.errors).toEqual([]);
    expect(r.runs).toMatchObject([{ run: "nul-upload", status: "stored", accepted: 6 }]);
    const cols = await db.sql.all<{ seq: number; step: string | null; call: string | null; name: string | null }>(
      `SELECT "seq", "step", "call", "name" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      ["nul-upload"],
    );
    expect(cols.map((c) => [c.step, c.call, c.name])).toEqual([
      [null, null, "wf\uFFFDx"],
      ["st\uFFFDep", null, "look\uFFFDup"],
      ["st\uFFFDep", "c\uFFFD1", "to\uFFFDol"],
      ["st\uFFFDep", "c\uFFFD1", "to\uFFFDol"],
      ["st\uFFFDep", null, null],
      [null, null, null],
    ]);
    expect((await getRun(db, "nul-upload"))?.workflow).toBe("wf\uFFFDx");
    const bodies = (await listEventBodies(db, "nul-upload", -1, 10)).map(
      (b) => JSON.parse(b.body) as { step?: string; data: Record<string, unknown> },
    );
    expect(bodies[2].step).toBe(`st${NUL}ep`);
    expect(bodies[2].data).toMatchObject({ call: `c${NUL}1`, tool: `to${NUL}ol`, args: { q: `a${NUL}b` } });
  });

  it("takes a live append holding a NUL (a recorder's retry is not refused forever)", async () => {
    const r = await ingestBytes(db, bytesOf(journal("nul-live")), { mode: "stream", source: "stream", onlyRun: "nul-live" });
    expect(r.errors).toEqual([]);
    expect(r.runs).toMatchObject([{ run: "nul-live", status: "stored", accepted: 6, nextSeq: 6 }]);
  });
});
