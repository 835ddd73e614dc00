/**
 * Runs belong to a project: a write from another project never reads, extends, replaces or
 * deletes them, whether it comes as an upload, a live append or OTLP spans.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addProject } from "@/lib/server/access/accounts";
import type { Db } from "@/lib/server/db";
import { receiveSpans } from "@/lib/server/otlp-receiver";
import { getRun, listEventBodies, listRuns, runListQuery, runProjectOf } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { ingestStatus } from "@/lib/server/ingest-status";
import type { NormalizedSpan } from "@/lib/importers";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const TS = "2026-11-07T11:00:01.026Z";
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const journal = (run: string, seqs: number[], text = "hello") =>
  nd(
    seqs.map((seq) => (seq === 0 ? { run, seq, ts: TS, type: "run.start", data: {} } : { run, seq, ts: TS, type: "note", data: { text } })),
  );

const span = (traceId: string, spanId: string, name: string): NormalizedSpan => ({
  traceId,
  spanId,
  parentSpanId: undefined,
  name,
  kind: "internal",
  startTimeUnixNano: "1700000000000000000",
  endTimeUnixNano: "1700000001000000000",
  attributes: {},
  status: { code: "ok" },
  events: [],
  resource: {},
});

describe.each(DIALECTS)("project isolation on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    await addProject(db, "team-b", "Team B");
  });
  afterAll(() => t.cleanup());

  it("stores a run in the project the write names, default when none", async () => {
    await ingestBytes(db, bytesOf(journal("iso-a", [0, 1])), { mode: "upload", source: "upload" });
    await ingestBytes(db, bytesOf(journal("iso-b", [0, 1])), { mode: "upload", source: "upload", project: "team-b" });
    expect(await runProjectOf(db, "iso-a")).toBe("default");
    expect(await runProjectOf(db, "iso-b")).toBe("team-b");
    const listed = async (readable: string[]) => (await listRuns(db, runListQuery.parse({}), readable)).runs.map((r) => r.id);
    expect(await listed(["team-b"])).toEqual(["iso-b"]);
    expect(await listed(["default"])).toContain("iso-a");
    expect(await listed(["default"])).not.toContain("iso-b");
  });

  it("refuses an upload, a resend and a live append to another project's run id, and leaves it whole", async () => {
    const before = await listEventBodies(db, "iso-a", -1, 100);
    const upload = await ingestBytes(db, bytesOf(journal("iso-a", [0, 1, 2], "intruder")), {
      mode: "upload",
      source: "upload",
      project: "team-b",
    });
    expect(upload.committed).toBe(false);
    expect(ingestStatus(upload, "upload")).toBe(409);
    expect(upload.errors).toEqual([
      expect.objectContaining({ kind: "conflict", run: "iso-a", message: expect.stringContaining("another project") }),
    ]);
    // a byte-identical resend is not a duplicate for the other project either: it learns nothing
    const resend = await ingestBytes(db, bytesOf(journal("iso-a", [0, 1])), { mode: "upload", source: "upload", project: "team-b" });
    expect(ingestStatus(resend, "upload")).toBe(409);
    expect(resend.runs.some((r) => r.duplicates > 0)).toBe(false);
    const live = await ingestBytes(db, bytesOf(journal("iso-a", [2], "intruder")), {
      mode: "stream",
      source: "stream",
      onlyRun: "iso-a",
      project: "team-b",
    });
    expect(ingestStatus(live, "stream")).toBe(409);
    expect(await listEventBodies(db, "iso-a", -1, 100)).toEqual(before);
    expect((await getRun(db, "iso-a"))?.eventCount).toBe(2);
  });

  it("does not mix another project's OTLP spans into a trace's run", async () => {
    const trace = "a".repeat(32);
    await receiveSpans(db, [span(trace, "1".repeat(16), "root")], "default");
    const run = `otel-${trace}`;
    const stored = (await getRun(db, run))?.eventCount;
    expect(stored).toBeGreaterThan(0);
    const r = await receiveSpans(db, [span(trace, "2".repeat(16), "intruder span")], "team-b");
    expect(r).toEqual({ runs: [], rejected: 1 });
    expect((await getRun(db, run))?.eventCount).toBe(stored);
    const bodies = (await listEventBodies(db, run, -1, 100)).map((b) => b.body).join("\n");
    expect(bodies).not.toContain("intruder");
    expect(await runProjectOf(db, run)).toBe("default");
  });
});
