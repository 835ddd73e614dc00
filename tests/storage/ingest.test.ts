import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashOf } from "@/lib/canonical";
import { computeEventHash, verifyChain } from "@/lib/journal/chain";
import { createRng } from "@/lib/replay/testing/journal-generator";
import { parseJsonExact } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const EXAMPLES = path.resolve("tests/fixtures/examples");
const answers = JSON.parse(fs.readFileSync(path.join(EXAMPLES, "answers.json"), "utf8")) as Record<
  string,
  Array<{ rule: string; seq: number }>
>;
const TS = "2026-11-07T11:00:01.026Z";
const ev = (run: string, seq: number, type = "note", data: Record<string, unknown> = { text: `event ${seq}` }) => ({
  run,
  seq,
  ts: TS,
  type,
  data,
});
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const upload = (db: Db, text: string | Uint8Array) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
const append = (db: Db, run: string, text: string) => ingestBytes(db, bytesOf(text), { mode: "stream", source: "stream", onlyRun: run });

async function storedSeqs(db: Db, run: string): Promise<number[]> {
  return (await listEventBodies(db, run, -1, 100000)).map((r) => Number(r.seq));
}

describe.each(DIALECTS)("ingest on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("stores every example journal, in order, with the answer key's findings", async () => {
    for (const file of Object.keys(answers)) {
      const text = fs.readFileSync(path.join(EXAMPLES, file), "utf8");
      const r = await upload(db, text);
      expect(r.errors, file).toEqual([]);
      expect(r.runs).toHaveLength(1);
      const run = r.runs[0];
      expect(run.status).toBe("stored");
      const lines = text.trim().split("\n").length;
      expect(run.accepted + run.duplicates, file).toBe(lines);
      const detail = (await getRun(db, run.run))!;
      const got = detail.findings.map((f) => ({ rule: f.rule, seq: f.seq }));
      expect(got, file).toEqual([...answers[file]].sort((a, b) => a.seq - b.seq || a.rule.localeCompare(b.rule)));
      expect(detail.eventCount).toBe(run.accepted);
      const seqs = await storedSeqs(db, run.run);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });

  it("records the recorder's chain: verified for a clean journal, broken at the tampered seq", async () => {
    const runOf = (file: string) => (JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8").split("\n")[0]) as { run: string }).run;
    expect((await getRun(db, runOf("09-refund-approval.missing.jsonl")))!.chainStatus).toBe("verified");
    // a journal without hashes is not failed, only unverified
    expect((await getRun(db, "demo-refund-4185"))!.chainStatus).toBe("unverified");
    const chainFile = fs.readFileSync(path.join(EXAMPLES, "04-refund-journal.chain.jsonl"), "utf8");
    const runId = (JSON.parse(chainFile.split("\n")[0]) as { run: string }).run;
    const broken = (await getRun(db, runId))!;
    expect(broken.chainStatus).toBe("broken");
    expect(broken.chainBrokenAt).toBe(25);
  });

  it("stores a finding for every event of a journal broken at every event", async () => {
    // hashes of another run's chain: every link fails (1,200 findings: more than one insert's worth)
    let prev = "";
    const lines: string[] = [];
    for (let seq = 0; seq < 1200; seq++) {
      const e = ev("everywhere-broken", seq, seq === 0 ? "run.start" : "note");
      prev = computeEventHash(prev, { ...e, run: "some-other-run" } as JournalEvent);
      lines.push(JSON.stringify({ ...e, hash: prev }));
    }
    const r = await upload(db, lines.join("\n") + "\n");
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: 1200 });
    const detail = (await getRun(db, "everywhere-broken"))!;
    expect(detail).toMatchObject({ chainStatus: "broken", chainBrokenAt: 0, findingCount: 1200 });
    const chainFindings = detail.findings.filter((f) => f.rule === "journal.chain").map((f) => f.seq);
    expect(chainFindings).toEqual(Array.from({ length: 1200 }, (_, i) => i));
  });

  it("keeps a server chain over what it stored that any v1 verifier accepts", async () => {
    const rows = await listEventBodies(db, "demo-refund-4185", -1, 1000);
    const events = rows.map((r) => ({ ...(parseJsonExact(r.body) as JournalEvent), hash: r.hash! }));
    const { verdicts, firstFailure } = verifyChain(events);
    expect(firstFailure).toBeNull();
    expect(verdicts.every((v) => v === "ok")).toBe(true);
    expect((await getRun(db, "demo-refund-4185"))!.serverLastHash).toBe(events[events.length - 1].hash);
  });

  it("stores every event column as it was derived: strings, numbers, fractions, unicode and nulls", async () => {
    const run = "cols-1";
    const events = [
      ev(run, 0, "run.start", {}),
      { ...ev(run, 1, "tool.call", { call: "c1", tool: "lookup‮ünï", args: { q: "x" }, effect: "read" }), step: "s-☃", parent: 0 },
      { ...ev(run, 2, "tool.result", { call: "c1", status: "ok", result: { rows: 3 }, latencyMs: 12.75 }), step: "s-☃", parent: 1 },
      ev(run, 3, "model.response", {
        call: "m1",
        output: { text: "" },
        usage: { inputTokens: 7, outputTokens: 5 },
        latencyMs: 0.5,
        finishReason: "stop",
      }),
    ];
    const r = await upload(db, nd(events));
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: 4 });
    const rows = await db.sql.all<Record<string, unknown>>(
      `SELECT "seq", "ts", "tsMs", "type", "step", "parent", "call", "name", "status", "latencyMs", "tokens", "bytes", "chain", "redactions" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      [run],
    );
    const plain = rows.map((x) =>
      Object.fromEntries(
        Object.entries(x).map(([k, v]) => [
          k,
          typeof v === "bigint" || (typeof v === "string" && /^(seq|parent|tokens|bytes|redactions|tsMs|latencyMs)$/.test(k))
            ? Number(v)
            : v,
        ]),
      ),
    );
    const tsMs = Date.parse(TS);
    const lineBytes = events.map((e) => Buffer.byteLength(JSON.stringify(e)));
    expect(plain).toEqual([
      {
        seq: 0,
        ts: TS,
        tsMs,
        type: "run.start",
        step: null,
        parent: null,
        call: null,
        name: null,
        status: null,
        latencyMs: null,
        tokens: null,
        bytes: lineBytes[0],
        chain: "none",
        redactions: 0,
      },
      {
        seq: 1,
        ts: TS,
        tsMs,
        type: "tool.call",
        step: "s-☃",
        parent: 0,
        call: "c1",
        name: "lookup‮ünï",
        status: "read",
        latencyMs: null,
        tokens: null,
        bytes: lineBytes[1],
        chain: "none",
        redactions: 0,
      },
      {
        seq: 2,
        ts: TS,
        tsMs,
        type: "tool.result",
        step: "s-☃",
        parent: 1,
        call: "c1",
        name: "lookup‮ünï",
        status: "ok",
        latencyMs: 12.75,
        tokens: null,
        bytes: lineBytes[2],
        chain: "none",
        redactions: 0,
      },
      {
        seq: 3,
        ts: TS,
        tsMs,
        type: "model.response",
        step: null,
        parent: null,
        call: "m1",
        name: null,
        status: "stop",
        latencyMs: 0.5,
        tokens: 12,
        bytes: lineBytes[3],
        chain: "none",
        redactions: 0,
      },
    ]);
  });

  it("reads gzip bodies", async () => {
    const r = await upload(db, gzipSync(Buffer.from(nd([ev("gz-1", 0, "run.start", {}), ev("gz-1", 1)]))));
    expect(r.runs).toMatchObject([{ run: "gz-1", status: "stored", accepted: 2 }]);
  });

  describe("malformed input: a clear error with its line, nothing of the run stored", () => {
    const cases: Array<[string, () => string | Uint8Array, RegExp]> = [
      ["a truncated line", () => nd([ev("bad-trunc", 0), ev("bad-trunc", 1)]) + '{"run":"bad-trunc","seq":2,"ts":"2026-11-0', /truncated/],
      [
        "invalid UTF-8",
        () =>
          Buffer.concat([
            Buffer.from(nd([ev("bad-utf8", 0)])),
            Buffer.from('{"run":"bad-utf8","seq":1,"ts":"' + TS + '","type":"note","data":{"text":"'),
            Buffer.from([0xc3, 0x28]),
            Buffer.from('"}}\n'),
          ]),
        /UTF-8/,
      ],
      ["a field of the wrong type", () => nd([ev("bad-type", 0), { ...ev("bad-type", 1), ts: 5 }]), /^ts: /],
      [
        "a different event at a seq already in the file",
        () => nd([ev("bad-dup", 0), ev("bad-dup", 1), { ...ev("bad-dup", 1), data: { text: "other" } }]),
        /seq 1 was already sent at line 4/,
      ],
      [
        "10,000-deep nesting",
        () =>
          nd([ev("bad-deep", 0)]) +
          `{"run":"bad-deep","seq":1,"ts":"${TS}","type":"note","data":{"text":"x","n":${"[".repeat(10000)}${"]".repeat(10000)}}}\n`,
        /nesting deeper/,
      ],
      [
        "a seq beyond 2^53",
        () => nd([ev("bad-big", 0)]) + `{"run":"bad-big","seq":9007199254740993,"ts":"${TS}","type":"note","data":{"text":"x"}}\n`,
        /beyond 2\^53/,
      ],
    ];
    for (const [name, make, message] of cases) {
      it(`refuses ${name}`, async () => {
        const input = make();
        const run = /"run":"([^"]+)"/.exec(Buffer.from(input).toString("utf8"))![1];
        // a good run in the same request is stored: runs are atomic one by one
        const good = `good-${run}`;
        const r = await upload(db, Buffer.concat([Buffer.from(nd([ev(good, 0), ev(good, 1)])), Buffer.from(input)]));
        expect(r.errors).toHaveLength(1);
        expect(r.errors[0].line).toBeGreaterThan(2);
        expect(r.errors[0].message).toMatch(message);
        expect(r.runs.find((x) => x.run === run)?.status).toBe("rejected");
        expect(r.runs.find((x) => x.run === good)?.status).toBe("stored");
        expect(await getRun(db, run)).toBeNull();
        expect(await storedSeqs(db, run)).toEqual([]);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }

    it("refuses a 20 MB line over the line limit without storing anything of the request", async () => {
      const limited = t.open({ RETRACE_MAX_LINE_BYTES: String(1024 * 1024) });
      const huge = JSON.stringify(ev("bad-huge", 1, "note", { text: "x".repeat(20 * 1024 * 1024) }));
      const r = await upload(limited, nd([ev("bad-huge", 0)]) + huge + "\n" + nd([ev("bad-huge", 2)]));
      expect(r.errors).toMatchObject([{ line: 2 }]);
      expect(r.errors[0].message).toMatch(/over the 1048576-byte limit/);
      expect(r.committed).toBe(false);
      expect(await getRun(db, "bad-huge")).toBeNull();
    });

    it("stores a run with a gap and warns with the line", async () => {
      const r = await upload(db, nd([ev("gap-1", 0, "run.start", {}), ev("gap-1", 1), ev("gap-1", 3)]));
      expect(r.runs).toMatchObject([{ run: "gap-1", status: "stored", accepted: 3, nextSeq: 2 }]);
      expect(r.warnings).toMatchObject([{ line: 3, seq: 3 }]);
      const detail = (await getRun(db, "gap-1"))!;
      expect(detail.findings.map((f) => [f.rule, f.seq])).toContainEqual(["journal.gap", 3]);
    });

    it("keeps integers beyond 2^53 in data exact", async () => {
      const text = `{"run":"big-data","seq":0,"ts":"${TS}","type":"note","data":{"text":"x","orderId":123456789012345678901234567890}}\n`;
      const r = await upload(db, text);
      expect(r.runs[0].status).toBe("stored");
      const rows = await listEventBodies(db, "big-data", -1, 10);
      expect(rows[0].body).toContain('"orderId":123456789012345678901234567890');
      // keys already in canonical order take another path to the stored text
      const sorted = `{"data":{"orderId":123456789012345678901234567891,"text":"x"},"run":"big-sorted","seq":0,"ts":"${TS}","type":"note"}\n`;
      expect((await upload(db, sorted)).runs[0].status).toBe("stored");
      expect((await listEventBodies(db, "big-sorted", -1, 10))[0].body).toBe(sorted.trim());
    });
  });

  it("treats a re-upload as duplicates and a changed event at a stored seq as a conflict", async () => {
    const first = nd([ev("reup", 0, "run.start", {}), ev("reup", 1)]);
    expect((await upload(db, first)).runs[0]).toMatchObject({ accepted: 2, duplicates: 0 });
    expect((await upload(db, first)).runs[0]).toMatchObject({ accepted: 0, duplicates: 2 });
    const changed = await upload(db, nd([ev("reup", 1, "note", { text: "changed" }), ev("reup", 2)]));
    expect(changed.errors).toMatchObject([{ kind: "conflict", seq: 1 }]);
    expect(await storedSeqs(db, "reup")).toEqual([0, 1]);
  });

  it("compares a resent journal of thousands of events with what is stored, in any order, and names a changed one", async () => {
    const events = [ev("resend", 0, "run.start", {}), ...Array.from({ length: 4999 }, (_, i) => ev("resend", i + 1))];
    expect((await upload(db, nd(events))).runs[0]).toMatchObject({ accepted: 5000 });
    // a shuffled resend: windows of stored bodies are read in whatever order seqs come
    const shuffled = [...events].sort((a, b) => ((a.seq * 7919) % 5000) - ((b.seq * 7919) % 5000));
    expect((await upload(db, nd(shuffled))).runs[0]).toMatchObject({ accepted: 0, duplicates: 5000 });
    const changedLate = events.map((e) => (e.seq === 4321 ? ev("resend", 4321, "note", { text: "changed" }) : e));
    const r = await upload(db, nd(changedLate));
    expect(r.errors).toMatchObject([{ kind: "conflict", seq: 4321, line: 4322 }]);
    expect((await storedSeqs(db, "resend")).length).toBe(5000);
  });

  it("appends live batches out of order, idempotent by seq, live until run.end", async () => {
    const run = "live-1";
    const b = (seqs: number[]) =>
      nd(seqs.map((s) => (s === 0 ? ev(run, 0, "run.start", {}) : s === 9 ? ev(run, 9, "run.end", { status: "succeeded" }) : ev(run, s))));
    let r = await append(db, run, b([0, 1, 2]));
    expect(r.runs[0]).toMatchObject({ accepted: 3, duplicates: 0, nextSeq: 3 });
    r = await append(db, run, b([5, 6]));
    expect(r.runs[0]).toMatchObject({ accepted: 2, nextSeq: 3 });
    expect((await getRun(db, run))!.live).toBe(true);
    r = await append(db, run, b([4, 3, 2]));
    expect(r.runs[0]).toMatchObject({ accepted: 2, duplicates: 1, nextSeq: 7 });
    const conflict = await append(db, run, nd([ev(run, 4, "note", { text: "different" })]));
    expect(conflict.errors).toMatchObject([{ kind: "conflict", seq: 4 }]);
    r = await append(db, run, b([9, 8, 7]));
    expect(r.runs[0]).toMatchObject({ accepted: 3, nextSeq: 10 });
    const detail = (await getRun(db, run))!;
    expect(detail).toMatchObject({ live: false, status: "succeeded", eventCount: 10 });
    expect(detail.findings.filter((f) => f.rule === "journal.gap")).toEqual([]);
    // the server chain was recomputed across the late-filled gap
    const rows = await listEventBodies(db, run, -1, 100);
    const { firstFailure } = verifyChain(rows.map((x) => ({ ...(parseJsonExact(x.body) as JournalEvent), hash: x.hash! })));
    expect(firstFailure).toBeNull();
  });

  it("checks a live run's state hashes across requests even when its state held a secret", async () => {
    // The stored analysis snapshot is redacted, so the state continued from is not the
    // recorder's: its hashes are not checked (no false mismatch) until a `set` or a
    // checkpoint replaces it whole, and then they are again. The same holds when a late
    // batch fills a gap and the run is analysed again from its stored (redacted) events.
    const secret = "sk-proj-" + "Q7f2LmX9aB3cD4eF5gH6iJ7kL8mN";
    const at = (run: string, seq: number, type: string, data: Record<string, unknown>) => ({ run, seq, ts: TS, type, data });
    const st = { apiKey: secret, n: 0 };
    const st1 = { apiKey: secret, n: 1 };
    const events = (run: string) => [
      at(run, 0, "run.start", {}),
      at(run, 1, "state", { set: st, hash: hashOf(st) }),
      at(run, 2, "state", { patch: [{ op: "replace", path: "/n", value: 1 }], hash: hashOf(st1) }),
      at(run, 3, "approval.decision", { approval: "a1", decision: "approved", by: "u1", stateHash: hashOf(st1) }),
      at(run, 4, "state", { set: { n: 5 }, hash: hashOf({ n: 6 }) }), // a real mismatch, after a replacement
      at(run, 5, "run.end", { status: "succeeded" }),
    ];
    const rules = async (run: string) => (await getRun(db, run))!.findings.map((f) => `${f.rule}@${f.seq}`).sort();
    const expected = ["secret.exposed@1", "state.hash-mismatch@4"];

    const live = events("live-secret-state");
    expect((await append(db, "live-secret-state", nd(live.slice(0, 2)))).errors).toEqual([]);
    expect((await append(db, "live-secret-state", nd(live.slice(2)))).errors).toEqual([]);
    expect(await rules("live-secret-state")).toEqual(expected);

    const gap = events("gap-secret-state");
    await append(db, "gap-secret-state", nd(gap.filter((e) => e.seq !== 3)));
    await append(db, "gap-secret-state", nd([gap[3]])); // fills the gap: analysed again from what is stored
    expect(await rules("gap-secret-state")).toEqual(expected);

    // in one request the fold holds the raw state throughout, as before
    expect((await upload(db, nd(events("one-secret-state")))).errors).toEqual([]);
    expect(await rules("one-secret-state")).toEqual(expected);
  });

  it("rejects a live batch naming another run", async () => {
    const r = await append(db, "live-2", nd([ev("live-3", 0)]));
    expect(r.committed).toBe(false);
    expect(r.errors[0].message).toMatch(/belongs to run "live-3"/);
  });

  it("ends with exactly one copy of each event when two writers send overlapping, shuffled, repeated batches", async () => {
    const run = "concurrent-1";
    const N = 400;
    const events = Array.from({ length: N }, (_, i) => (i === 0 ? ev(run, 0, "run.start", {}) : ev(run, i)));
    const rnd = createRng(dialect === "sqlite" ? 7 : 11).next;
    const batches = (count: number) =>
      Array.from({ length: count }, () => {
        const start = Math.floor(rnd() * N);
        const slice = events.slice(start, Math.min(N, start + 1 + Math.floor(rnd() * 60)));
        return nd(slice.sort(() => rnd() - 0.5));
      });
    const writer = async (instance: Db, list: string[]) => {
      for (const body of list) {
        const r = await append(instance, run, body);
        expect(r.errors).toEqual([]);
      }
    };
    const a = t.open();
    const b = t.open();
    // both writers also send everything once, so the union is complete
    const all = nd([...events].sort(() => rnd() - 0.5));
    await Promise.all([writer(a, [...batches(25), all]), writer(b, [...batches(25), all])]);
    const seqs = await storedSeqs(db, run);
    expect(seqs).toEqual(Array.from({ length: N }, (_, i) => i));
    expect((await getRun(db, run))!.nextSeq).toBe(N);
  });
});
