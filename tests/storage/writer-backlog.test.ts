import { describe, expect, it } from "vitest";
import { freshDb, bytesOf } from "../helpers/db";
import { ingestBytes } from "@/lib/server/service";
import type { IngestRow } from "@/lib/server/sql";

/** A finished Event row (nothing left for the writer to derive). */
function row(runId: string, seq: number): IngestRow {
  return {
    runId,
    seq,
    ts: "2026-11-29T10:00:00.000Z",
    tsMs: Date.parse("2026-11-29T10:00:00.000Z"),
    type: "note",
    step: null,
    parent: null,
    call: null,
    name: null,
    status: null,
    latencyMs: null,
    tokens: null,
    bytes: 10,
    body: `{"seq":${seq}}`,
    recordedHash: null,
    chain: "none",
    hash: "sha256:" + "0".repeat(64),
    redactions: 0,
    work: 0,
    prevHash: null,
    chainSeed: null,
  };
}

/** Waits, without ever yielding to the event loop, until the writer has taken every batch sent. */
function spinUntilTaken(backlog: () => number): number {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + 10_000;
  while (backlog() > 0 && Date.now() < end) Atomics.wait(nap, 0, 0, 2);
  return backlog();
}

describe("SQLite writer backlog", () => {
  // Ingest hands the writer raw lines to canonicalise only while its backlog is small; the
  // backlog must be true while ingest keeps its thread busy (it rarely turns to its event
  // loop, where the writer's answers arrive), or the work never moves to an idle writer.
  it("falls as the writer takes batches, seen without this thread's event loop, failed batches included", async () => {
    const t = await freshDb("sqlite");
    const db = t.open();
    const journal = '{"run":"wb","seq":0,"ts":"2026-11-29T10:00:00.000Z","type":"run.start","data":{"workflow":{"name":"w"}}}\n';
    expect((await ingestBytes(db, bytesOf(journal), { mode: "upload", source: "upload" })).runs[0]?.status).toBe("stored");

    await db.sql.transaction(async (tx) => {
      await tx.insertEvents([row("wb", 1), row("wb", 2)]);
      await tx.insertEvents([row("wb", 3)]);
      expect(spinUntilTaken(() => tx.backlog())).toBe(0);
    });
    const failed = db.sql.transaction(async (tx) => {
      await tx.insertEvents([row("wb", 4)]);
      await tx.insertEvents([row("wb", 1)]); // taken: that seq is stored, so the writer fails it
      expect(spinUntilTaken(() => tx.backlog())).toBe(0);
      await tx.all(`SELECT 1`); // the failure surfaces at the next awaited call
    });
    await expect(failed).rejects.toThrow(/UNIQUE/);
    await db.sql.transaction(async (tx) => {
      expect(tx.backlog()).toBe(0);
    });
    const seqs = await db.sql.all<{ seq: number }>(`SELECT "seq" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, ["wb"]);
    expect(seqs.map((r) => Number(r.seq))).toEqual([0, 1, 2, 3]);
    await t.cleanup();
  });
});
