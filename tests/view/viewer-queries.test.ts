import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSummary, encodeSummary, summaryRowsFromEvents } from "@/lib/graph";
import type { JournalEvent } from "@/lib/journal/types";
import { analyzeEvents } from "@/lib/analyze";
import { hashOf } from "@/lib/canonical";
import { createReplay } from "@/lib/replay";
import type { Db } from "@/lib/server/db";
import { ingestBytes } from "@/lib/server/service";
import { getRunSummaryCached, getRunSummaryText, inspectEvent, searchEvents, stateAt } from "@/lib/server/viewer";
import { getRun, listRuns, runListQuery } from "@/lib/server/queries";
import { inspectAnswerSchema, runDetailSchema, runListPageSchema, searchAnswerSchema, summaryAnswerSchema } from "@/lib/view/api-types";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const EXAMPLES = path.resolve("tests/fixtures/examples");
const read = (f: string) => fs.readFileSync(path.join(EXAMPLES, f), "utf8");
const upload = (db: Db, text: string) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
const append = (db: Db, run: string, text: string) => ingestBytes(db, bytesOf(text), { mode: "stream", source: "stream", onlyRun: run });

describe.each(DIALECTS)("viewer queries on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    for (const f of ["00-refund-clean.jsonl", "03-codefix-journal.gap.jsonl", "10-refund-approval.stale-state.jsonl"])
      expect((await upload(db, read(f))).errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  it("the SQL-built summary decodes to the same columns as the events' own", async () => {
    const events = read("00-refund-clean.jsonl")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JournalEvent);
    const expected = decodeSummary(encodeSummary("demo-refund-4185", summaryRowsFromEvents(events)));
    const got = decodeSummary(summaryAnswerSchema.parse(JSON.parse((await getRunSummaryText(db, "demo-refund-4185", -1))!)));
    expect(got.n).toBe(33);
    for (const col of ["seq", "tsMs", "type", "step", "parent", "call", "name", "status", "latencyMs", "tokens"] as const) {
      expect(Array.from(got[col] as ArrayLike<unknown>), col).toEqual(Array.from(expected[col] as ArrayLike<unknown>));
    }
  });

  it("sends explicit seqs for a run with a gap, and only later rows with after=", async () => {
    const s = summaryAnswerSchema.parse(JSON.parse((await getRunSummaryText(db, "demo-codefix-6718", -1))!));
    expect(s.seq).not.toBeNull();
    const later = decodeSummary(summaryAnswerSchema.parse(JSON.parse((await getRunSummaryText(db, "demo-refund-4185", 29))!)));
    expect(Array.from(later.seq)).toEqual([30, 31, 32]);
    expect(await getRunSummaryText(db, "no-such-run", -1)).toBeNull();
  });

  it("serves a whole-run summary from cache until the run changes", async () => {
    const run = `live-${dialect}`;
    const ev = (seq: number) =>
      JSON.stringify({
        run,
        seq,
        ts: "2026-11-07T11:00:00.000Z",
        type: seq === 0 ? "run.start" : "note",
        data: seq === 0 ? {} : { text: `e${seq}` },
      });
    await append(db, run, `${ev(0)}\n${ev(1)}\n`);
    const a = await getRunSummaryCached(db, run, -1);
    expect(await getRunSummaryCached(db, run, -1)).toBe(a);
    await new Promise((r) => setTimeout(r, 5));
    await append(db, run, `${ev(2)}\n`);
    const b = await getRunSummaryCached(db, run, -1);
    expect(b).not.toBe(a);
    expect(summaryAnswerSchema.parse(JSON.parse(b!)).count).toBe(3);
  });

  it("inspect pairs a tool call with its result, its approval, and rebuilds the state", async () => {
    const a = inspectAnswerSchema.parse(JSON.parse((await inspectEvent(db, "demo-refund-4185", 18, false))!));
    expect(a.event.event.type).toBe("tool.call");
    expect(a.related.map((r) => [r.seq, r.event.type])).toEqual([
      [16, "approval.request"],
      [17, "approval.decision"],
      [19, "tool.result"],
    ]);
    expect(a.state).toBeNull();
    const m = inspectAnswerSchema.parse(JSON.parse((await inspectEvent(db, "demo-refund-4185", 7, false))!));
    expect(m.related.map((r) => r.seq)).toEqual([5, 6]); // its context and its request
    const s = await stateAt(db, "demo-refund-4185", 10);
    expect(s.changedAt).toBe(10);
    expect(s.rebuiltHash).toBe(s.recordedHash);
    expect(s.before).toEqual({ status: "triage", order: null });
    expect(s.redacted).toBe(false);
  });

  it("says when the rebuilt state holds a secret replaced at ingest, until a set replaces it", async () => {
    const run = "state-with-secret";
    const raw = { apiKey: "sk-proj-" + "H4j5K6l7M8n9P0q1R2s3T4u5", n: 0 };
    const ev = (seq: number, type: string, data: Record<string, unknown>) =>
      JSON.stringify({ run, seq, ts: "2026-11-07T11:00:00.000Z", type, data });
    const text = [
      ev(0, "run.start", {}),
      ev(1, "state", { set: raw, hash: hashOf(raw) }),
      ev(2, "state", { patch: [{ op: "replace", path: "/n", value: 1 }], hash: hashOf({ ...raw, n: 1 }) }),
      ev(3, "state", { set: { n: 2 }, hash: hashOf({ n: 2 }) }),
    ].join("\n");
    expect((await upload(db, text + "\n")).errors).toEqual([]);
    for (const seq of [1, 2]) {
      const s = await stateAt(db, run, seq);
      expect(s.redacted).toBe(true);
      expect(JSON.stringify(s.after)).not.toContain(raw.apiKey);
      expect(s.rebuiltHash).not.toBe(s.recordedHash); // the placeholder's hash: not judged
    }
    const after = await stateAt(db, run, 3);
    expect(after).toMatchObject({ redacted: false, after: { n: 2 } });
    expect(after.rebuiltHash).toBe(after.recordedHash);
  });

  it("every answer the read queries build parses with its API schema", async () => {
    const page = runListPageSchema.parse(await listRuns(db, runListQuery.parse({}), "all"));
    expect(page.runs.length).toBeGreaterThanOrEqual(3);
    for (const { id } of page.runs) {
      const detail = runDetailSchema.parse(await getRun(db, id));
      summaryAnswerSchema.parse(JSON.parse((await getRunSummaryText(db, id, -1))!));
      for (let seq = 0; seq <= detail.maxSeq; seq++) {
        const text = await inspectEvent(db, id, seq, true);
        if (text !== null) expect(inspectAnswerSchema.parse(JSON.parse(text)).state).not.toBeNull();
      }
    }
    searchAnswerSchema.parse(await searchEvents(db, "demo-refund-4185", "refund", 2));
  });

  // Regression (issue 12): after a `state` event with no recorded hash, the approval pane
  // took the hash of {} and said "stale state" where analysis and replay find nothing.
  it("after a state event without a hash, the hash at a decision is the rebuilt state's, as analysis reads it", async () => {
    const run = "hashless-state";
    const rebuilt = hashOf({ order: "A-1", n: 1 });
    const events = [
      { run, seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "run.start", data: {} },
      { run, seq: 1, ts: "2026-11-07T11:00:01.000Z", type: "state", data: { set: { order: "A-1" }, hash: hashOf({ order: "A-1" }) } },
      { run, seq: 2, ts: "2026-11-07T11:00:02.000Z", type: "state", data: { patch: [{ op: "add", path: "/n", value: 1 }] } },
      { run, seq: 3, ts: "2026-11-07T11:00:03.000Z", type: "approval.request", data: { approval: "a1", call: "c1", stateHash: rebuilt } },
      {
        run,
        seq: 4,
        ts: "2026-11-07T11:00:04.000Z",
        type: "approval.decision",
        data: { approval: "a1", decision: "approved", by: "r", stateHash: rebuilt },
      },
    ] as JournalEvent[];
    expect((await upload(db, events.map((e) => JSON.stringify(e)).join("\n") + "\n")).errors).toEqual([]);
    const s = await stateAt(db, run, 4);
    expect(s.recordedHash).toBeNull();
    expect(s.hashAtSeq).toBe(rebuilt);
    // the three readings agree: no stale state anywhere
    expect(analyzeEvents(events).filter((f) => f.rule === "approval.stale-state")).toEqual([]);
    expect(createReplay(events).divergences.filter((d) => d.kind === "approval-state")).toEqual([]);
    const answer = inspectAnswerSchema.parse(JSON.parse((await inspectEvent(db, run, 4, false))!));
    expect(answer.state?.hashAtSeq).toBe(rebuilt);
    expect(answer.findings).toEqual([]);
  });

  it("searches stored payload text case-insensitively, with LIKE wildcards taken literally", async () => {
    expect((await searchEvents(db, "demo-refund-4185", "DUPLICATE CHARGES", 100)).seqs).toContain(4);
    expect((await searchEvents(db, "demo-refund-4185", "%", 100)).seqs).toEqual([]);
  });
});
