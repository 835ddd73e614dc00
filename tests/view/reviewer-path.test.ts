/**
 * The reviewer's path in pure code: where a run opens, what n / N step through, findings
 * grouped by rule, the one keymap of run, replay and compare, and the plain text of rules.
 */
import { retrievalVerdict } from "@/lib/semantics";
import { describe, expect, it } from "vitest";
import { RULE_IDS } from "@/lib/journal/types";
import { humanSeconds, messageParts, ruleText, rulesMatching, seqsNamed } from "@/lib/analyze";
import { findingSeqs, firstMostSevere, groupFindings, markSeqs, openingSeq, orderAtEvent } from "@/lib/view/findings";
import { actionFor, adjacentMark, bindingsFor, KEYMAP } from "@/lib/view/keymap";
import type { FindingItem, InspectAnswer } from "@/lib/view/api-types";
import { evidenceFor } from "@/lib/view/evidence";

const f = (rule: string, seq: number, severity: FindingItem["severity"]): FindingItem => ({
  rule,
  seq,
  severity,
  message: `${rule} at ${seq}`,
});

// the demo run refund-retry-no-idempotency, as `retrace analyze` lists it
const demo: FindingItem[] = [
  f("retrieval.stale", 17, "warning"),
  f("effect.no-idempotency", 26, "warning"),
  f("approval.missing", 29, "error"),
  f("effect.no-idempotency", 29, "warning"),
  f("effect.retry-after-unknown", 29, "error"),
];

describe("where a run opens and what n / N visit", () => {
  it("opens on the first error, not the first finding", () => {
    expect(firstMostSevere(demo)?.seq).toBe(29);
    expect(firstMostSevere([f("a", 9, "warning"), f("b", 4, "warning")])?.seq).toBe(4);
    expect(firstMostSevere([f("a", 9, "error"), f("b", 4, "warning"), f("c", 7, "error")])?.seq).toBe(7);
    expect(firstMostSevere([])).toBeNull();
  });

  it("a run with failed events but no error finding opens at its first failure", () => {
    // failed, no findings: the first failed event, not run.start
    expect(openingSeq([], 12)).toBe(12);
    // a warning before the failure does not win over it
    expect(openingSeq([f("retrieval.stale", 4, "warning")], 12)).toBe(12);
    // an error finding is the analyzer's reading of the cause: the retried refund, not the timeout before it
    expect(openingSeq(demo, 27)).toBe(29);
    // nothing failed: the first warning, else nothing (the first event)
    expect(openingSeq([f("retrieval.stale", 4, "warning")], null)).toBe(4);
    expect(openingSeq([], null)).toBeNull();
  });

  it("n / N go through each seq with findings once, in order, and stop at the ends", () => {
    const seqs = findingSeqs(demo);
    expect(seqs).toEqual([17, 26, 29]);
    expect(findingSeqs(demo, "error")).toEqual([29]);
    expect(adjacentMark(seqs, 29, 1)).toBeNull();
    expect(adjacentMark(seqs, 29, -1)).toBe(26);
    expect(adjacentMark(seqs, 0, 1)).toBe(17);
    expect(adjacentMark(seqs, 20, 1)).toBe(26);
    expect(adjacentMark(seqs, 17, -1)).toBeNull();
  });

  it("n / N step through failed events and findings alike, each seq once, on rows whose seqs skip", () => {
    // rows 0..6 hold seqs 0, 2, 5, 17, 26, 27, 29; rows 1, 3 and 5 failed (seqs 2, 17, 27)
    const seq = [0, 2, 5, 17, 26, 27, 29];
    const failed = Uint8Array.from([0, 1, 0, 1, 0, 1, 0]);
    const marks = markSeqs(findingSeqs(demo), { n: seq.length, failed, summary: { seq } as never });
    // 17 is a failure and a finding: once
    expect(marks).toEqual([2, 17, 26, 27, 29]);
    expect(adjacentMark(marks, 0, 1)).toBe(2);
    expect(adjacentMark(marks, 29, -1)).toBe(27);
    // no failures: the findings; no findings: the failures
    expect(markSeqs(findingSeqs(demo), { n: 3, failed: new Uint8Array(3), summary: { seq: [1, 2, 3] } as never })).toEqual([17, 26, 29]);
    expect(markSeqs([], { n: seq.length, failed, summary: { seq } as never })).toEqual([2, 17, 27]);
  });
});

describe("findings at one event", () => {
  it("read errors first, the possible double refund before the approval it lacked", () => {
    expect(orderAtEvent(demo.filter((d) => d.seq === 29)).map((d) => d.rule)).toEqual([
      "effect.retry-after-unknown",
      "approval.missing",
      "effect.no-idempotency",
    ]);
  });
});

describe("findings grouped by rule", () => {
  it("one group per rule with its count, errors first, filterable by severity", () => {
    const many = [...Array.from({ length: 100 }, (_, i) => f("secret.exposed", 200 - i, "error")), f("tool.partial", 3, "warning")];
    const groups = groupFindings(many);
    expect(groups.map((g) => [g.rule, g.findings.length])).toEqual([
      ["secret.exposed", 100],
      ["tool.partial", 1],
    ]);
    expect(groups[0].findings[0].seq).toBe(101);
    expect(groupFindings(demo).map((g) => g.rule)).toEqual([
      "approval.missing",
      "effect.retry-after-unknown",
      "retrieval.stale",
      "effect.no-idempotency",
    ]);
    expect(groupFindings(demo, "warning").map((g) => [g.rule, g.findings.length])).toEqual([
      ["retrieval.stale", 1],
      ["effect.no-idempotency", 2],
    ]);
  });
});

describe("one keymap", () => {
  it("n and N mean next and previous finding on the run page, divergence on replay, difference on compare", () => {
    expect(actionFor("run", { key: "n" })).toBe("next-mark");
    expect(actionFor("run", { key: "N" })).toBe("previous-mark");
    expect(actionFor("replay", { key: "n" })).toBe("next-mark");
    expect(actionFor("compare", { key: "N" })).toBe("previous-mark");
    expect(actionFor("run", { key: "j" })).toBe("next");
    expect(actionFor("replay", { key: "j" })).toBe("next");
    expect(actionFor("run", { key: "?" })).toBe("shortcuts");
    // with a modifier the key is the browser's
    expect(actionFor("run", { key: "n", ctrlKey: true })).toBeNull();
    // space plays only on replay; [ ] steps only on the run page
    expect(actionFor("run", { key: " " })).toBeNull();
    expect(actionFor("replay", { key: " " })).toBe("play");
    expect(actionFor("compare", { key: "[" })).toBeNull();
  });

  it("the dialog of each page lists exactly the keys its handler acts on", () => {
    for (const page of ["run", "replay", "compare"] as const) {
      const listed = bindingsFor(page).map((b) => b.action);
      for (const b of KEYMAP) for (const key of b.keys) expect(actionFor(page, { key }) !== null).toBe(listed.includes(b.action));
    }
    expect(bindingsFor("run").find((b) => b.action === "next-mark")?.does).toBe("next failure or finding");
  });
});

describe("rule text", () => {
  it("every rule has a plain title, why and what to check", () => {
    for (const id of RULE_IDS) {
      const t = ruleText(id);
      expect(t.title, id).not.toBe(id);
      expect(t.why.length, id).toBeGreaterThan(10);
      expect(t.check.length, id).toBeGreaterThan(10);
    }
    expect(ruleText("custom.rule").title).toBe("custom.rule");
  });

  it("search words reach the rules that mean them", () => {
    expect(rulesMatching("issued twice")).toEqual(["effect.retry-after-unknown"]);
    expect(rulesMatching("retry-after")).toEqual(["effect.retry-after-unknown"]);
    expect(rulesMatching("  ")).toEqual([]);
  });

  it("cuts a message into text and the seqs it names", () => {
    const msg = 'retries write call "call_3" (seq 26, outcome timeout, never reconciled) with no idempotency key';
    expect(messageParts(msg)).toEqual([
      { text: 'retries write call "call_3" (' },
      { text: "seq " },
      { seq: 26, text: "26" },
      { text: ", outcome timeout, never reconciled) with no idempotency key" },
    ]);
    expect(seqsNamed("3 events missing before this one (seq 30–32)")).toEqual([30, 32]);
    expect(seqsNamed("its call at seq 7 already used; see #9 and seq 7")).toEqual([7, 9]);
    expect(seqsNamed("sequence 12 is not a seq")).toEqual([]);
    expect(messageParts("").length).toBe(0);
  });

  it("policy values in human units", () => {
    expect(humanSeconds(2_592_000)).toBe("30 days");
    expect(humanSeconds(86_400)).toBe("1 day");
    expect(humanSeconds(5_400)).toBe("1.5 hours");
    expect(humanSeconds(90)).toBe("1.5 minutes");
    expect(humanSeconds(1)).toBe("1 second");
  });
});

describe("evidence quoted in a finding", () => {
  const ev = (seq: number, type: string, data: Record<string, unknown>, ts = "2026-11-07T10:00:00.000Z") => ({
    seq,
    chain: "ok" as const,
    recordedHash: null,
    redactions: 0,
    event: { run: "r", seq, ts, type, data },
  });
  const NO_VERDICTS: InspectAnswer["verdicts"] = { retrieval: null, decision: null, call: null, approval: null, policy: null };
  const answer = (event: ReturnType<typeof ev>, related: Array<ReturnType<typeof ev>>, verdicts = NO_VERDICTS) => ({
    seq: event.seq,
    event,
    related,
    state: null,
    findings: [],
    verdicts,
  });

  it("a retry quotes the earlier call, its outcome and error text, and that it was never reconciled", () => {
    // seq 26 and 27 of the demo run refund-retry-no-idempotency, as recorded
    const call = ev(26, "tool.call", { args: { amountCents: 12900 }, call: "call_3", effect: "write", tool: "issue_refund" });
    const result = ev(27, "tool.result", {
      call: "call_3",
      error: { message: "payment gateway timed out (the payment was committed)", name: "ToolTimeoutError" },
      status: "timeout",
    });
    const finding = f("effect.retry-after-unknown", 29, "error");
    expect(evidenceFor(finding, answer(call, [result]), 26, null, null)).toEqual([
      { seq: 26, label: "earlier call", text: 'issue_refund call "call_3", effect write, idempotency key none' },
      {
        seq: 27,
        label: "its result",
        text: 'status timeout, error "payment gateway timed out (the payment was committed)" (ToolTimeoutError)',
      },
      { seq: null, label: "reconciled", text: "never (no reconcile event for this call)" },
    ]);
    // still loading: nothing is made up
    expect(evidenceFor(finding, null, 26, null, null)).toEqual([]);
  });

  it("a stale document quotes its indexedAt, its age and the allowed age in days", () => {
    const retrieval = ev(
      17,
      "retrieval",
      { documents: [{ id: "kb-refunds", indexedAt: "2025-10-03T10:00:00.500Z" }], query: "q" },
      "2026-11-07T10:00:04.500Z",
    );
    // the answer carries the retrieval verdict the server computes (lib/semantics)
    const verdicts = { ...NO_VERDICTS, retrieval: retrievalVerdict(retrieval.event, 2_592_000) };
    const lines = evidenceFor(f("retrieval.stale", 17, "warning"), null, null, answer(retrieval, [], verdicts), {
      retrievalMaxAgeSeconds: 2_592_000,
    });
    expect(lines[0]).toEqual({ seq: null, label: "allowed age", text: "30 days (policy.retrievalMaxAgeSeconds = 2592000)" });
    // 2025-10-03T10:00:00.5Z to 2026-11-07T10:00:04.5Z: 400 days and 4 s
    expect(lines[1]).toEqual({
      seq: 17,
      label: "document kb-refunds",
      text: "indexedAt 2025-10-03T10:00:00.500Z: 400 days old at the retrieval",
    });
  });

  it("a missing approval says no request names the call, beside the policy", () => {
    const call = ev(29, "tool.call", { call: "call_3-retry", tool: "issue_refund", effect: "write" });
    const lines = evidenceFor(f("approval.missing", 29, "error"), null, null, answer(call, []), { requireApproval: ["issue_refund"] });
    expect(lines).toEqual([
      { seq: 29, label: "the call", text: 'issue_refund call "call_3-retry"' },
      { seq: null, label: "policy.requireApproval", text: "issue_refund" },
      { seq: null, label: "approval request", text: 'none names call "call_3-retry"' },
    ]);
  });
});
