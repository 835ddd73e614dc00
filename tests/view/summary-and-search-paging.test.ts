/**
 * What the run page reads at a million events, on SQLite and PostgreSQL: the binary
 * summary (built from the rows, stored for long runs, rebuilt when the run changes) holds
 * the JSON summary's columns; the payload search's pages, followed by their cursors, are
 * exactly the matches of a full scan.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSummary } from "@/lib/graph";
import { decodeSummaryBinary } from "@/lib/graph/summary-binary";
import type { Db } from "@/lib/server/db";
import { ingestBytes } from "@/lib/server/service";
import {
  getRunSummaryBinary,
  getRunSummaryCached,
  getRunSummaryText,
  prepareStoredSummary,
  searchEvents,
  STORED_SUMMARY_EVENTS,
} from "@/lib/server/viewer";
import { summaryAnswerSchema } from "@/lib/view/api-types";
import { generateJournal } from "../../scripts/bench-journal";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const RUN = "paging-run";
const N = STORED_SUMMARY_EVENTS + 37;
const upload = (db: Db, text: string) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
/** A summary as plain JSON, without the dictionary codes only the binary decoder keeps. */
const plain = ({ codes: _codes, ...s }: ReturnType<typeof decodeSummary>) =>
  JSON.parse(
    JSON.stringify({
      ...s,
      tsMs: Array.from(s.tsMs),
      seq: Array.from(s.seq),
      parent: Array.from(s.parent),
      latencyMs: Array.from(s.latencyMs, (v) => (Number.isNaN(v) ? null : v)),
      tokens: Array.from(s.tokens, (v) => (Number.isNaN(v) ? null : v)),
      redactions: Array.from(s.redactions),
    }),
  );

describe.each(DIALECTS)("run page reads on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let journal: string;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    journal = generateJournal(N, RUN);
    // all but the last ten now, those later: the stored summary must follow
    const lines = journal.trim().split("\n");
    expect((await upload(db, lines.slice(0, -10).join("\n") + "\n")).errors).toEqual([]);
  }, 120_000);
  afterAll(async () => t.cleanup());

  it("the binary summary holds the JSON summary's columns, whole and after a seq", async () => {
    const json = decodeSummary(summaryAnswerSchema.parse(JSON.parse((await getRunSummaryText(db, RUN, -1))!)));
    const binary = decodeSummaryBinary((await getRunSummaryBinary(db, RUN, -1))!);
    expect(binary.n).toBe(N - 10);
    expect(plain(binary)).toEqual(plain(json));
    const later = decodeSummaryBinary((await getRunSummaryBinary(db, RUN, N - 20))!);
    expect(Array.from(later.seq)).toEqual(Array.from({ length: 9 }, (_, i) => N - 19 + i));
    expect(await getRunSummaryBinary(db, "no-such-run", -1)).toBeNull();
  });

  it("a run with gaps wider than a read page has every stored row in the binary summary, in seq order", async () => {
    const run = "gappy-run";
    const seqs = [0, 1, 2, 70_000, 70_001, 250_000];
    const text = seqs
      .map((seq) =>
        JSON.stringify({
          run,
          seq,
          ts: `2026-11-07T11:00:0${seqs.indexOf(seq)}.000Z`,
          type: seq === 0 ? "run.start" : "error",
          data: seq === 0 ? {} : { message: `e${seq}` },
        }),
      )
      .join("\n");
    expect((await upload(db, text + "\n")).errors).toEqual([]);
    expect(Array.from(decodeSummaryBinary((await getRunSummaryBinary(db, run, -1))!).seq)).toEqual(seqs);
    expect(Array.from(decodeSummaryBinary((await getRunSummaryBinary(db, run, 2))!).seq)).toEqual([70_000, 70_001, 250_000]);
  });

  it("a long run's summary is stored at its version and rebuilt when events are added", async () => {
    expect(await prepareStoredSummary(db, RUN)).toBe(true);
    const stored = await db.sql.all<{ version: string; bytes: Uint8Array }>(
      `SELECT "version", "bytes" FROM "RunSummaryBlob" WHERE "runId" = ?`,
      [RUN],
    );
    expect(stored).toHaveLength(1);
    expect(decodeSummaryBinary(gunzipSync(stored[0].bytes)).n).toBe(N - 10);
    const lines = journal.trim().split("\n");
    await new Promise((r) => setTimeout(r, 5));
    expect(
      (await ingestBytes(db, bytesOf(lines.slice(-10).join("\n") + "\n"), { mode: "stream", source: "stream", onlyRun: RUN })).errors,
    ).toEqual([]);
    const served = await getRunSummaryCached(db, RUN, -1, "binary");
    const now = decodeSummaryBinary(gunzipSync(served!.gzip));
    expect(now.n).toBe(N);
    expect(now.seq[N - 1]).toBe(N - 1);
    const again = await db.sql.all<{ version: string }>(`SELECT "version" FROM "RunSummaryBlob" WHERE "runId" = ?`, [RUN]);
    expect(again[0].version).not.toBe(stored[0].version);
  });

  it("pages of the payload search, followed by their cursors, are exactly a full scan's matches", async () => {
    const bodies = await db.sql.all<{ seq: number; body: string }>(`SELECT "seq", "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [
      RUN,
    ]);
    for (const q of ["A-12", "STEP 4", "lookup", "sk-", "no such text"]) {
      const full = bodies.filter((b) => b.body.toLowerCase().includes(q.toLowerCase())).map((b) => Number(b.seq));
      // a page of one where that stays a few hundred pages
      for (const limit of full.length < 300 ? [1, 7, 256, 5000] : [7, 256, 5000]) {
        const got: number[] = [];
        let after = -1;
        for (let pages = 0; ; pages++) {
          const page = await searchEvents(db, RUN, q, limit, after);
          expect(page.seqs.length).toBeLessThanOrEqual(limit);
          got.push(...page.seqs);
          if (page.next === null) break;
          expect(page.truncated).toBe(true);
          after = page.next;
          if (pages > full.length + 1) throw new Error("paging does not end");
        }
        expect(got).toEqual(full);
      }
    }
  }, 120_000);
});
