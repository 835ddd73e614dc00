/**
 * One reading of a run judged by a declared policy (issue 33): the findings at ingest, the
 * inspect answer's policy verdict, the call ledger the live actions read and the replay's
 * divergences all say the same thing at the same seqs, whether the policy was recorded in
 * the run.start or attached to the workflow later (`retrace policy attach`), and the
 * stored journal stays as recorded. The seqs expected are those the journal is built
 * with; which invariant each call breaks is worked out by hand in the comments.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "@/lib/journal/types";
import { createReplay } from "@/lib/replay";
import type { Db } from "@/lib/server/db";
import { runEvents } from "@/lib/server/live/branches";
import { findingsOf, getRun } from "@/lib/server/queries";
import { importStream } from "@/lib/server/service";
import { inspectEvent } from "@/lib/server/viewer";
import { attachWorkflowPolicy } from "@/lib/server/workflow-policy";
import { callLedger, eventVerdicts, judgedEvents } from "@/lib/semantics";
import { inspectAnswerSchema } from "@/lib/view/api-types";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const POLICY = {
  tools: {
    cancel: { args: { type: "object", properties: { reason: { type: "string" } } } },
    // an importer guessed "read" for lookup; the contract says it writes, and needs no key
    lookup: { effect: "write", idempotency: "not-applicable" },
  },
  invariants: [
    {
      id: "cancel-pending",
      kind: "state-precondition",
      tools: ["cancel"],
      arg: "/order_id",
      source: { tool: "get_order", arg: "/order_id", path: "/status" },
      in: ["pending"],
    },
    { id: "cancel-once", kind: "once-per", tools: ["cancel"], arg: "/order_id" },
    { id: "cancel-yes", kind: "confirmed-by-input", tools: ["cancel"], words: ["yes"] },
  ],
};

type Data = Record<string, unknown>;
function journal(run: string, workflow: string, recorded: boolean): JournalEvent[] {
  const items: Array<[string, Data]> = [
    ["run.start", { workflow: { name: workflow }, ...(recorded ? { policy: POLICY } : {}) }],
    ["input", { source: "user", content: "Please cancel order #1" }],
    ["tool.call", { call: "g", tool: "get_order", args: { order_id: "#1" }, effect: "read" }],
    ["tool.result", { call: "g", status: "ok", result: { status: "delivered" } }],
    // seq 4: args invalid (reason not a string); the order read at 3 is delivered; the last user input (1) has no "yes"
    ["tool.call", { call: "c1", tool: "cancel", args: { order_id: "#1", reason: 5 }, effect: "write", idempotencyKey: "k1" }],
    ["tool.result", { call: "c1", status: "ok", result: {} }],
    ["input", { source: "user", content: "yes" }],
    // seq 7: confirmed (6), args fine; a second cancel of #1 (first at 4); still delivered (3)
    ["tool.call", { call: "c2", tool: "cancel", args: { order_id: "#1", reason: "changed mind" }, effect: "write", idempotencyKey: "k2" }],
    ["tool.result", { call: "c2", status: "ok", result: {} }],
    // seq 9: no result ever came
    ["tool.call", { call: "l", tool: "lookup", args: { q: "x" }, effect: "read", effectInferred: true }],
    ["run.end", { status: "succeeded" }],
  ];
  return items.map(
    ([type, data], seq) => ({ run, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), type, data }) as JournalEvent,
  );
}
const text = (events: JournalEvent[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

/** What a reader must see at each tool.call, worked out by hand above. */
const EXPECTED: Record<number, string[]> = {
  2: [],
  4: ["policy.confirmed-by-input", "policy.state-precondition", "tool.args-invalid"],
  7: ["policy.once-per", "policy.state-precondition"],
  9: [],
};
const POLICY_RULE = /^(policy\.|tool\.args-invalid$)/;

describe.each(DIALECTS)("a run judged by a declared policy on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  const recorded = journal("pol-rec", "shop-recorded", true);
  const attached = journal("pol-att", "shop", false);
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    for (const events of [recorded, attached])
      expect((await importStream(db, bytesOf(text(events)), { accept: "journal", source: "upload" })).errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  const answerAt = async (run: string, seq: number) => inspectAnswerSchema.parse(JSON.parse((await inspectEvent(db, run, seq, false))!));
  /** The rules the policy verdict at a tool.call names. */
  const verdictRules = async (run: string, seq: number) => {
    const p = (await answerAt(run, seq)).verdicts.policy;
    if (p === null) return [];
    return [...(p.args?.status === "invalid" ? ["tool.args-invalid"] : []), ...p.broken.map((b) => `policy.${b.kind}`)].sort();
  };
  const findingRules = async (run: string, seq: number) =>
    [...new Set((await findingsOf(db, run, seq)).map((f) => f.rule).filter((r) => POLICY_RULE.test(r)))].sort();
  const replayRules = (events: JournalEvent[], attachedPolicy?: unknown) => {
    const r = createReplay(events, attachedPolicy === undefined ? {} : { attachedPolicy: attachedPolicy as never });
    return r.divergences.filter((d) => d.kind === "invariant").map((d) => d.seq);
  };

  it("a recorded policy: the verdict, the findings and the replay agree at every call", async () => {
    for (const [seq, rules] of Object.entries(EXPECTED)) {
      expect(await verdictRules("pol-rec", Number(seq)), `verdict at ${seq}`).toEqual(rules);
      expect(await findingRules("pol-rec", Number(seq)), `findings at ${seq}`).toEqual(rules);
    }
    // the replay names each invariant broken (not the args schema) at the same calls: two at 4, two at 7
    expect(replayRules(recorded)).toEqual([4, 4, 7, 7]);
    for (const e of recorded) expect((await answerAt("pol-rec", e.seq)).verdicts, `seq ${e.seq}`).toEqual(eventVerdicts(recorded, e.seq));
    const at4 = (await answerAt("pol-rec", 4)).verdicts.policy!;
    expect(at4.args).toEqual({ status: "invalid", keyword: "type", path: "/reason", message: expect.stringContaining("string") });
    expect(at4.checked).toEqual(["cancel-pending", "cancel-once", "cancel-yes"]);
    expect(at4.broken.find((b) => b.id === "cancel-pending")?.evidence).toBe(3);
    expect(at4.broken.find((b) => b.id === "cancel-yes")?.evidence).toBe(1);
    expect((await answerAt("pol-rec", 7)).verdicts.policy!.broken.find((b) => b.id === "cancel-once")?.evidence).toBe(4);
  });

  it("before a policy is attached nothing is judged; after, every reader takes the attached one", async () => {
    for (const seq of Object.keys(EXPECTED)) {
      expect((await answerAt("pol-att", Number(seq))).verdicts.policy, `seq ${seq}`).toBeNull();
      expect(await findingRules("pol-att", Number(seq))).toEqual([]);
    }
    // the guessed "read" is read as recorded: no open write at 9
    expect((await answerAt("pol-att", 9)).verdicts.call).toMatchObject({ effect: "read", open: false });
    expect(replayRules(attached)).toEqual([]);

    await attachWorkflowPolicy(db, { cli: "cli:test" }, "shop", JSON.stringify(POLICY));
    const detail = (await getRun(db, "pol-att"))!;
    expect(detail.judgedBy).toMatchObject({ source: "workflow", workflow: "shop", version: 1 });
    for (const [seq, rules] of Object.entries(EXPECTED)) {
      expect(await verdictRules("pol-att", Number(seq)), `verdict at ${seq}`).toEqual(rules);
      expect(await findingRules("pol-att", Number(seq)), `findings at ${seq}`).toEqual(rules);
    }
    const judged = judgedEvents(attached, POLICY as never);
    for (const e of attached) expect((await answerAt("pol-att", e.seq)).verdicts, `seq ${e.seq}`).toEqual(eventVerdicts(judged, e.seq));
    // the contract's effect: lookup is a write whose outcome nobody knows, for the pane and the live actions alike
    expect((await answerAt("pol-att", 9)).verdicts.call).toMatchObject({ effect: "write", open: true });
    expect(callLedger(await runEvents(db, "pol-att")).find((c) => c.seq === 9)?.effect).toBe("write");
    // the replay page judges with the policy the run detail carries, and the journal verifies as recorded
    const policy = detail.judgedBy && "policy" in detail.judgedBy ? detail.judgedBy.policy : undefined;
    expect(replayRules(attached, policy)).toEqual([4, 4, 7, 7]);
    const replay = createReplay(attached, { attachedPolicy: policy as never });
    expect(replay.divergences.filter((d) => d.kind === "chain")).toEqual([]);
    expect((await answerAt("pol-att", 0)).event.event.data).not.toHaveProperty("policy");
  });
});
