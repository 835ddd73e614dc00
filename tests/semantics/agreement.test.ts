/**
 * One meaning, every reader: on crafted journals, the analyzer's findings, the replay's
 * divergences, the inspect answer's verdicts (lib/semantics eventVerdicts, what the server
 * sends the panes) and the live actions' refusals (re-execute, reconcile, resume plan) say
 * the same thing, case by case. The table holds the disagreements issue 28 found (an open
 * write with no result then retried; a call with no `effect` and an unknown result then
 * retried; a document 60.4 s old against a 60 s limit; an approval decided on another
 * state than the run's), every kind of call of tests/live/outcomes.test.ts, each
 * followed by a retry of the same operation, and every approval verdict on a call (missing,
 * undecided, denied, reused, ok), which the approval pane shows at the call and at the
 * request and decision that gate it.
 */
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { hashOf } from "@/lib/canonical";
import type { JournalEvent } from "@/lib/journal/types";
import { previewReconcile, previewReexecute } from "@/lib/live/plan";
import { resumePlan } from "@/lib/live/resume-plan";
import { createReplay } from "@/lib/replay";
import { callLedger, eventVerdicts, isOpen, type BranchReconcile } from "@/lib/semantics";
import { ageText, retrievedDocuments } from "@/lib/view/human";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const ts = (ms: number) => new Date(T0 + ms).toISOString();
const EX = { id: "ex_1", environment: "sandbox", name: "*", url: "http://bank" };
const ARGS = { order: "A-1", amount: 5 };
const START_STATE = { phase: "start" };

type Data = Record<string, unknown>;
/** A journal from (type, data) pairs, seqs from 0; `at` puts an event's ts that many ms after T0. */
function journal(items: Array<[string, Data, number?]>): JournalEvent[] {
  return items.map(([type, data, at], seq) => ({ run: "r", seq, ts: ts(at ?? seq), type, data }) as unknown as JournalEvent);
}
const start = (policy?: Data): [string, Data] => ["run.start", { workflow: { name: "w" }, ...(policy ? { policy } : {}) }];
const checkpoint: [string, Data] = ["checkpoint", { id: "start", state: START_STATE, hash: hashOf(START_STATE), durable: true }];
const end: [string, Data] = ["run.end", { status: "failed" }];

/** What a reader says of a run, as `what@seq` words both sides can be compared in. */
const WORD: Record<string, string> = {
  "effect.retry-after-unknown": "retry",
  "retrieval.stale": "stale-document",
  "approval.stale-state": "stale-approval",
  "retry-after-unknown": "retry",
  "approval-state": "stale-approval",
  "approval.missing": "approval-missing",
  "approval.undecided": "approval-undecided",
  "approval.denied": "approval-denied",
  "approval.reused": "approval-reused",
  // the replay's one kind for a call it would not have allowed, whichever rule
  approval: "unapproved",
};
/** The words the replay has a counterpart for (a retrieval's age is not a replay question). */
const REPLAY_SPEAKS = new Set(["retry", "stale-approval", "unapproved"]);
/** A word as the replay says it: every approval verdict on a call is its one `approval` divergence. */
const asReplayWord = (w: string) => (w.startsWith("approval-") ? `unapproved@${w.split("@")[1]}` : w);

function analysis(events: JournalEvent[]): string[] {
  return analyzeEvents(events)
    .filter((f) => WORD[f.rule])
    .map((f) => `${WORD[f.rule]}@${f.seq}`)
    .sort();
}
function replay(events: JournalEvent[]): string[] {
  return createReplay(events)
    .divergences.filter((d) => d.meaningful && WORD[d.kind])
    .map((d) => `${WORD[d.kind]}@${d.seq}`)
    .sort();
}
/** The inspect answer's verdicts, asked at every event the way the server asks them. */
function verdicts(events: JournalEvent[], branch: BranchReconcile[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const v = eventVerdicts(events, e.seq, { branchReconciles: branch });
    if (e.type === "tool.call" && v.call?.retryOf != null) out.push(`retry@${e.seq}`);
    if (v.retrieval?.stale) out.push(`stale-document@${e.seq}`);
    if (v.decision?.stale) out.push(`stale-approval@${e.seq}`);
    if (e.type === "tool.call" && v.approval && v.approval.status !== "ok") out.push(`approval-${v.approval.status}@${v.approval.seq}`);
  }
  return out.sort();
}

/** Every reader's words on one run: analysis, replay (where it speaks), verdicts; all equal to `expected`. */
function expectAgreement(events: JournalEvent[], expected: string[], branch: BranchReconcile[] = []) {
  const want = [...expected].sort();
  expect(analysis(events), "analyzer findings").toEqual(want);
  expect(replay(events), "replay divergences").toEqual(
    want
      .map(asReplayWord)
      .filter((w) => REPLAY_SPEAKS.has(w.split("@")[0]))
      .sort(),
  );
  expect(verdicts(events, branch), "inspect verdicts").toEqual(want);
}

/**
 * The live actions' refusals on the call at `seq` agree with the inspect answer's `open`:
 * re-execute refuses exactly an open operation, reconcile takes exactly an open call, the
 * resume plan asks to reconcile exactly an open write.
 */
function expectLiveAgrees(events: JournalEvent[], seq: number, open: boolean, branch: BranchReconcile[] = []) {
  const verdict = eventVerdicts(events, seq, { branchReconciles: branch }).call!;
  expect(verdict.open, "inspect verdict: open").toBe(open);
  const reexecute = previewReexecute({ run: "r", seq, events, branchReconciles: branch, executor: EX, earlierExecutions: 0 });
  expect(
    reexecute.unknown.some((c) => c.seq === seq),
    "re-execute: this call holds the operation back",
  ).toBe(open);
  expect(previewReconcile({ run: "r", seq, events, branchReconciles: branch, executor: EX }).refusal === null, "reconcile offered").toBe(
    open,
  );
  const row = resumePlan({ run: "r", events, branchReconciles: branch }).rows.find((r) => r.seq === seq);
  expect(row?.action === "reconcile", "resume plan: reconcile first").toBe(open && verdict.effect === "write");
  expect(isOpen(callLedger(events, branch).find((c) => c.seq === seq)!), "ledger").toBe(open);
}

describe("the disagreements of issue 28, read the same by every reader", () => {
  it("a write with no result, retried with the same arguments: retry-after-unknown, and reconcile first", () => {
    const events = journal([
      start(),
      checkpoint,
      ["tool.call", { call: "c1", tool: "pay", args: ARGS, effect: "write", idempotencyKey: "k1" }],
      ["tool.call", { call: "c2", tool: "pay", args: ARGS, effect: "write", idempotencyKey: "k2" }],
      ["tool.result", { call: "c2", status: "ok" }],
      end,
    ]);
    expectAgreement(events, ["retry@3"]);
    expectLiveAgrees(events, 2, true);
    expect(resumePlan({ run: "r", events }).rows.find((r) => r.seq === 2)?.why).toBe(
      "write without a recorded result: it may have happened",
    );
  });

  it("a call with no effect, result unknown, retried: read as a write by every reader", () => {
    const events = journal([
      start(),
      checkpoint,
      ["tool.call", { call: "c1", tool: "pay", args: ARGS, idempotencyKey: "k1" }],
      ["tool.result", { call: "c1", status: "unknown" }],
      ["tool.call", { call: "c2", tool: "pay", args: ARGS, idempotencyKey: "k2" }],
      ["tool.result", { call: "c2", status: "ok" }],
      end,
    ]);
    expectAgreement(events, ["retry@4"]);
    expectLiveAgrees(events, 2, true);
    expect(eventVerdicts(events, 4).call).toMatchObject({ effect: "write", retryOf: 2, confirmed: true, open: false });
    // re-executing it repeats a confirmed write: the operator types its name, as for any write
    const again = previewReexecute({ run: "r", seq: 4, events, branchReconciles: [], executor: EX, earlierExecutions: 0 });
    expect(again.confirmed.map((c) => c.seq)).toEqual([4]);
    expect(again.needsOperationName).toBe(true);
  });

  it("a document 60.4 s old against retrievalMaxAgeSeconds 60: stale in the finding, the verdict and the pane", () => {
    const doc = { id: "kb", indexedAt: ts(0) };
    const events = journal([start({ retrievalMaxAgeSeconds: 60 }), ["retrieval", { query: "q", documents: [doc] }, 60_400], end]);
    expectAgreement(events, ["stale-document@1"]);
    const verdict = eventVerdicts(events, 1).retrieval!;
    expect(verdict.documents[0]).toMatchObject({ ageMs: 60_400, stale: true });
    const [shown] = retrievedDocuments(events[1].data, verdict);
    expect(shown.stale).toBe(true);
    expect(ageText(shown.ageSeconds!)).toContain("60.4 s");
    // exactly 60 s is not older than 60 s: every reader says nothing
    const onTheLimit = journal([start({ retrievalMaxAgeSeconds: 60 }), ["retrieval", { query: "q", documents: [doc] }, 60_000], end]);
    expectAgreement(onTheLimit, []);
  });

  it("an approval decided on another state than the run's: stale-state everywhere; another state than the request's: nowhere", () => {
    const a = { step: 1 };
    const b = { step: 2 };
    const run = (decidedOn: unknown) =>
      journal([
        start(),
        ["state", { set: a, hash: hashOf(a) }],
        ["approval.request", { approval: "ap1", call: "c1", stateHash: hashOf(a) }],
        ["state", { set: b, hash: hashOf(b) }],
        ["approval.decision", { approval: "ap1", decision: "approved", by: "rev", stateHash: hashOf(decidedOn) }],
        ["tool.call", { call: "c1", tool: "pay", args: ARGS, effect: "write", idempotencyKey: "k1" }],
        ["tool.result", { call: "c1", status: "ok" }],
        end,
      ]);
    const stale = run(a);
    expectAgreement(stale, ["stale-approval@4"]);
    expect(eventVerdicts(stale, 4).decision).toEqual({ stateHash: hashOf(a), hashInForce: hashOf(b), stale: true });
    // the request saw state a, the approver the run's state b: no rule, no divergence, no verdict says anything
    const current = run(b);
    expectAgreement(current, []);
    expect(eventVerdicts(current, 4).decision?.stale).toBe(false);
  });
});

/** Every kind of call of tests/live/outcomes.test.ts: its effect, then what followed it. */
interface Case {
  name: string;
  effect: string;
  after: Array<{ type: "tool.result"; status: string } | { type: "reconcile"; outcome: string }>;
  pending?: boolean;
  branch?: "succeeded" | "failed";
  /** the ledger's verdict now */
  open: boolean;
}
const CASES: Case[] = [
  { name: "ok write", effect: "write", after: [{ type: "tool.result", status: "ok" }], open: false },
  { name: "failed write", effect: "write", after: [{ type: "tool.result", status: "error" }], open: false },
  { name: "timed-out write", effect: "write", after: [{ type: "tool.result", status: "timeout" }], open: true },
  { name: "unknown write", effect: "write", after: [{ type: "tool.result", status: "unknown" }], open: true },
  { name: "write with no result", effect: "write", after: [], open: true },
  { name: "call of no named effect, no result", effect: "", after: [], open: true },
  { name: "read with no result", effect: "read", after: [], open: false },
  { name: "timed-out read", effect: "read", after: [{ type: "tool.result", status: "timeout" }], open: true },
  { name: "write a live branch left unsent", effect: "write", after: [], pending: true, open: false },
  {
    name: "timeout reconciled as succeeded in the journal",
    effect: "write",
    after: [
      { type: "tool.result", status: "timeout" },
      { type: "reconcile", outcome: "succeeded" },
    ],
    open: false,
  },
  {
    name: "no result, reconciled as failed in the journal",
    effect: "write",
    after: [{ type: "reconcile", outcome: "failed" }],
    open: false,
  },
  { name: "no result, reconciled as succeeded on a branch", effect: "write", after: [], branch: "succeeded", open: false },
  {
    name: "timeout reconciled, then retried to another timeout",
    effect: "write",
    after: [
      { type: "tool.result", status: "timeout" },
      { type: "reconcile", outcome: "failed" },
      { type: "tool.result", status: "timeout" },
    ],
    open: true,
  },
];

describe("every kind of call, then a retry of the same operation with another key", () => {
  it.each(CASES)("$name", (c) => {
    const items: Array<[string, Data]> = [
      start(),
      checkpoint,
      [
        "tool.call",
        {
          call: "c1",
          tool: "pay",
          args: ARGS,
          ...(c.effect ? { effect: c.effect } : {}),
          idempotencyKey: "k1",
          ...(c.pending ? { live: { source: { kind: "none" }, pending: true } } : {}),
        },
      ],
    ];
    for (const a of c.after)
      items.push(
        a.type === "tool.result"
          ? ["tool.result", { call: "c1", status: a.status }]
          : ["reconcile", { call: "c1", outcome: a.outcome, by: "ops" }],
      );
    const retry = items.length;
    items.push(["tool.call", { call: "c2", tool: "pay", args: ARGS, ...(c.effect ? { effect: c.effect } : {}), idempotencyKey: "k2" }]);
    items.push(["tool.result", { call: "c2", status: "error" }], end);
    const events = journal(items);
    const branch: BranchReconcile[] = c.branch ? [{ run: "r.rec-1", call: "c1", outcome: c.branch, externalId: "p1" }] : [];
    // the retry was made while the call was open in the journal (a branch reconcile came after it): only writes are retries
    const openAtRetry = c.open || c.branch !== undefined;
    expectAgreement(events, openAtRetry && c.effect !== "read" ? [`retry@${retry}`] : [], branch);
    expectLiveAgrees(events, 2, c.open, branch);
  });
});

describe("the approval verdict on a call: the rule, the replay, and the approval pane at the call, its request and its decision", () => {
  const pay = (call: string, effect = "write"): [string, Data] => [
    "tool.call",
    { call, tool: "pay", args: ARGS, effect, idempotencyKey: `k-${call}` },
  ];
  const ok = (call: string): [string, Data] => ["tool.result", { call, status: "ok" }];
  const request = (call: string, approval = "ap1"): [string, Data] => ["approval.request", { approval, call }];
  const decide = (decision: string, approval = "ap1"): [string, Data] => ["approval.decision", { approval, decision, by: "rev" }];
  const REQUIRED = { requireApproval: ["pay"] };

  /** The verdict the pane shows at the call, and the same one at each approval event that gates it. */
  function expectPaneAgrees(events: JournalEvent[], callSeq: number, expected: Record<string, unknown>) {
    const atCall = eventVerdicts(events, callSeq).approval;
    expect(atCall, "verdict at the call").toMatchObject({ seq: callSeq, call: "c1", tool: "pay", ...expected });
    expect(eventVerdicts(events, callSeq + 1).approval, "verdict at its tool.result").toEqual(atCall);
    for (const e of events.filter((x) => x.type.startsWith("approval.") && x.seq < callSeq))
      expect(eventVerdicts(events, e.seq).approval, `verdict at ${e.type} #${e.seq}`).toEqual(atCall);
  }

  it("required and never requested: approval.missing everywhere", () => {
    const events = journal([start(REQUIRED), pay("c1"), ok("c1"), end]);
    expectAgreement(events, ["approval-missing@1"]);
    expectPaneAgrees(events, 1, { status: "missing", required: true, requested: false, approved: false, denied: false, usedBy: null });
  });

  it("required, requested and denied: approval.missing (denied), not approval.denied", () => {
    const events = journal([start(REQUIRED), request("c1"), decide("denied"), pay("c1"), ok("c1"), end]);
    expectAgreement(events, ["approval-missing@3"]);
    expectPaneAgrees(events, 3, { status: "missing", required: true, requested: true, approved: false, denied: true });
  });

  it("requested, never decided, not required: approval.undecided", () => {
    const events = journal([start(), request("c1"), pay("c1"), ok("c1"), end]);
    expectAgreement(events, ["approval-undecided@2"]);
    expectPaneAgrees(events, 2, { status: "undecided", required: false, requested: true, approved: false, denied: false });
  });

  it("requested and denied, not required: approval.denied", () => {
    const events = journal([start(), request("c1"), decide("denied"), pay("c1"), ok("c1"), end]);
    expectAgreement(events, ["approval-denied@3"]);
    expectPaneAgrees(events, 3, { status: "denied", required: false, requested: true, approved: false, denied: true });
  });

  it("approved, then the same call made twice on the one decision: the second is approval.reused", () => {
    const events = journal([
      start(REQUIRED),
      request("c1"),
      decide("approved"),
      pay("c1", "read"),
      ok("c1"),
      pay("c1", "read"),
      ok("c1"),
      end,
    ]);
    expectAgreement(events, ["approval-reused@5"]);
    expectPaneAgrees(events, 3, { status: "ok", required: true, requested: true, approved: true, usedBy: null });
    // at the second call the pane names the first, as the finding does
    expect(eventVerdicts(events, 5).approval).toMatchObject({ seq: 5, status: "reused", usedBy: 3 });
    expect(analyzeEvents(events).find((f) => f.rule === "approval.reused")?.message).toContain("seq 3");
  });

  it("required and approved before the call: no rule, no divergence, the pane says approved", () => {
    const events = journal([start(REQUIRED), request("c1"), decide("approved"), pay("c1"), ok("c1"), end]);
    expectAgreement(events, []);
    expectPaneAgrees(events, 3, { status: "ok", required: true, requested: true, approved: true, denied: false });
  });

  it("a request whose call was never made: no verdict at the request or its decision", () => {
    const events = journal([start(REQUIRED), request("c1"), decide("approved"), end]);
    expectAgreement(events, []);
    expect(eventVerdicts(events, 1).approval).toBeNull();
    expect(eventVerdicts(events, 2).approval).toBeNull();
  });
});
