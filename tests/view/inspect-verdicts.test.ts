/**
 * The inspect answer's verdicts, built on the server (lib/server/inspect-verdicts.ts) from
 * the rows a verdict needs, equal the verdicts lib/semantics gives over the whole run, and
 * say what the stored findings say at the same seq: the retry of a write whose result
 * never came, a document 60.4 s old against a 60 s limit, a decision on a stale state, a
 * call the policy wanted approved and nobody did (at the call, and at the request and
 * decision of the call they gate).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashOf } from "@/lib/canonical";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { findingsOf } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { inspectEvent } from "@/lib/server/viewer";
import { eventVerdicts } from "@/lib/semantics";
import { inspectAnswerSchema } from "@/lib/view/api-types";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const RUN = "verdicts-1";
const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const A = { step: 1 };
const B = { step: 2 };
const ARGS = { order: "A-1", amount: 5 };
const items: Array<[string, Record<string, unknown>, number]> = [
  ["run.start", { workflow: { name: "w" }, policy: { retrievalMaxAgeSeconds: 60, requireApproval: ["pay"] } }, 0],
  ["checkpoint", { id: "c0", state: A, hash: hashOf(A), durable: true }, 1],
  ["retrieval", { query: "q", documents: [{ id: "kb", indexedAt: new Date(T0).toISOString() }] }, 60_400],
  ["approval.request", { approval: "ap1", call: "c1", stateHash: hashOf(A) }, 60_500],
  ["state", { set: B, hash: hashOf(B) }, 60_600],
  ["approval.decision", { approval: "ap1", decision: "approved", by: "rev", stateHash: hashOf(A) }, 60_700],
  ["tool.call", { call: "c1", tool: "pay", args: ARGS, effect: "write", idempotencyKey: "k1" }, 60_800],
  ["tool.call", { call: "c2", tool: "pay", args: ARGS, effect: "write", idempotencyKey: "k2" }, 60_900],
  ["tool.result", { call: "c2", status: "ok" }, 61_000],
  ["run.end", { status: "failed" }, 61_100],
];
const events = items.map(([type, data, at], seq) => ({ run: RUN, seq, ts: new Date(T0 + at).toISOString(), type, data }) as JournalEvent);
const text = events.map((e) => JSON.stringify(e)).join("\n") + "\n";

describe.each(DIALECTS)("inspect verdicts on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    expect((await ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" })).errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  const answerAt = async (seq: number) => inspectAnswerSchema.parse(JSON.parse((await inspectEvent(db, RUN, seq, false))!));

  it("sends, for every event, the verdicts lib/semantics gives over the whole run", async () => {
    for (const e of events) expect((await answerAt(e.seq)).verdicts, `seq ${e.seq} ${e.type}`).toEqual(eventVerdicts(events, e.seq));
  });

  it("says what the stored findings say, at the same seqs", async () => {
    const rules = async (seq: number) => (await findingsOf(db, RUN, seq)).map((f) => f.rule);
    const retrieval = await answerAt(2);
    expect(retrieval.verdicts.retrieval).toMatchObject({ maxAgeSeconds: 60, stale: true, documents: [{ ageMs: 60_400, stale: true }] });
    expect(await rules(2)).toContain("retrieval.stale");
    expect((await answerAt(5)).verdicts.decision).toEqual({ stateHash: hashOf(A), hashInForce: hashOf(B), stale: true });
    expect(await rules(5)).toContain("approval.stale-state");
    expect((await answerAt(7)).verdicts.call).toMatchObject({ seq: 7, retryOf: 6, open: false, confirmed: true });
    expect(await rules(7)).toContain("effect.retry-after-unknown");
    // the first call never got a result: open, and the Reconcile button offers it
    expect((await answerAt(6)).verdicts.call).toMatchObject({ seq: 6, open: true, status: null, effect: "write" });
    // approvals: the retry was never submitted for one; the first call's request and decision show its verdict
    expect((await answerAt(7)).verdicts.approval).toMatchObject({
      seq: 7,
      call: "c2",
      status: "missing",
      required: true,
      requested: false,
    });
    expect(await rules(7)).toContain("approval.missing");
    const gated = { seq: 6, call: "c1", tool: "pay", status: "ok", required: true, requested: true, approved: true };
    expect((await answerAt(3)).verdicts.approval).toMatchObject(gated);
    expect((await answerAt(5)).verdicts.approval).toMatchObject(gated);
    expect(await rules(6)).not.toContain("approval.missing");
  });
});
