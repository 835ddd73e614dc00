/**
 * A live run's analysis continues from the snapshot on its row, request after request. The
 * findings live in the Finding table alone, the snapshot's map entries are redacted once,
 * and a process reuses the snapshot it wrote last: none of that may change what is stored.
 * Appends read back cold (as another server instance would) store the same analysis, the
 * same findings and the same count as appends read warm, and as the journal uploaded whole.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { generateRun } from "@/lib/replay/testing/journal-generator";
import type { Db } from "@/lib/server/db";
import { forgetWrittenAnalyses } from "@/lib/server/ingest/analysis";
import { getRun } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const SECRET = "AKIA" + "Q7F2LMX9AB3CD4EF";
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

/** A generated run (faults on: findings of many rules) ending with a write call whose id and args hold a secret. */
function journal(seed: number, run: string): JournalEvent[] {
  const events = generateRun({ seed, faults: 0.3, run }).filter((e) => e.type !== "run.end");
  const seen = new Set<number>();
  const kept = events.filter((e) => !seen.has(e.seq) && seen.add(e.seq));
  const last = kept[kept.length - 1];
  const at = (i: number) => ({ run, seq: last.seq + 1 + i, ts: last.ts });
  const pay = (call: string, key: string) => ({ call, tool: "pay", effect: "write", idempotencyKey: key, args: { token: SECRET } });
  return [
    ...kept,
    // a timed-out payment retried under another key: effect.retry-after-unknown, across requests
    { ...at(0), type: "tool.call", data: pay(`pay-${SECRET}`, `k1-${SECRET}`) },
    { ...at(1), type: "tool.result", data: { call: `pay-${SECRET}`, status: "timeout" } },
    { ...at(2), type: "tool.call", data: pay(`pay-again-${SECRET}`, `k2-${SECRET}`) },
    { ...at(3), type: "tool.result", data: { call: `pay-again-${SECRET}`, status: "ok", externalId: `tx-${SECRET}` } },
    // the same operation again (same key, same external id): no effect.duplicate, across requests
    { ...at(4), type: "tool.result", data: { call: `pay-${SECRET}`, status: "ok", externalId: `tx-${SECRET}` } },
    { ...at(5), type: "tool.call", data: { ...pay(`pay-3-${SECRET}`, `k2-${SECRET}`) } },
    { ...at(6), type: "note", data: { text: "between" } },
    { ...at(7), type: "note", data: { text: "between" } },
    { ...at(8), type: "tool.result", data: { call: `pay-3-${SECRET}`, status: "ok", externalId: `tx-${SECRET}` } },
  ] as JournalEvent[];
}

async function stored(db: Db, run: string) {
  const rows = await db.sql.all<{ analysis: string; findingCount: number }>(`SELECT "analysis", "findingCount" FROM "Run" WHERE "id" = ?`, [
    run,
  ]);
  const count = await db.sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Finding" WHERE "runId" = ?`, [run]);
  const findings = (await getRun(db, run))!.findings.map((f) => ({ rule: f.rule, seq: f.seq, severity: f.severity, message: f.message }));
  return {
    analysis: rows[0].analysis.replaceAll(run, "RUN"),
    findingCount: Number(rows[0].findingCount),
    rows: Number(count[0].n),
    findings,
  };
}

describe.each(DIALECTS)("a live run's analysis across requests, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("stores the same analysis and findings read warm, read cold and uploaded whole", async () => {
    for (const seed of [3, 17, 41]) {
      const runs = { warm: `warm-${seed}`, cold: `cold-${seed}`, whole: `whole-${seed}` };
      for (const [mode, run] of Object.entries(runs)) {
        const events = journal(seed, run);
        if (mode === "whole") {
          const r = await ingestBytes(db, bytesOf(nd(events)), { mode: "upload", source: "upload" });
          expect(r.errors).toEqual([]);
          continue;
        }
        for (let i = 0; i < events.length; i += 4) {
          if (mode === "cold") forgetWrittenAnalyses();
          const r = await ingestBytes(db, bytesOf(nd(events.slice(i, i + 4))), { mode: "stream", source: "stream", onlyRun: run });
          expect(r.errors).toEqual([]);
        }
      }
      const warm = await stored(db, runs.warm);
      const cold = await stored(db, runs.cold);
      const whole = await stored(db, runs.whole);
      expect(warm.analysis).toBe(cold.analysis);
      expect(warm.findings).toEqual(whole.findings);
      expect(cold.findings).toEqual(whole.findings);
      // the retry of the timed-out payment is found, at the retry
      expect(warm.findings.map((f) => f.rule)).toContain("effect.retry-after-unknown");
      for (const s of [warm, cold, whole]) {
        expect(s.findingCount).toBe(s.rows);
        expect(s.findingCount).toBeGreaterThan(2);
        expect(s.analysis).not.toContain(SECRET);
      }
    }
  });
});
