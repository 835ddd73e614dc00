/**
 * A small run for bundle tests, built by hand: every event kind that carries payload, with
 * personal data of every kind the reviewer profile removes and marker words in every
 * payload place the public profile removes.
 */
import type { BundleRunInput } from "@/lib/evidence";

/** Personal values as a journal would hold them, and the digits-only form of those with separators. */
export const PII = {
  email: "jane.doe+refunds@example.org",
  phoneIntl: "+44 20 7946 0958",
  phoneUs: "(555) 123-4567",
  // 4111 1111 1111 1111 passes Luhn (the test Visa number); so does 5500 0000 0000 0004
  cardSpaced: "4111 1111 1111 1111",
  cardDashed: "5500-0000-0000-0004",
  // GB82 WEST 1234 5698 7654 32: the ISO 13616 example, check digits 82
  ibanSpaced: "GB82 WEST 1234 5698 7654 32",
  ibanPlain: "DE89370400440532013000",
  ipv4: "203.0.113.7",
  ipv6: "2001:db8::ff00:42:8329",
};
export const PII_DIGIT_FORMS = ["4111111111111111", "5500000000000004", "GB82WEST12345698765432", "442079460958", "5551234567"];

/** Words that appear only in payload text (never in a structural field). */
export const MARKERS = [
  "zanzibarinput",
  "quokkacontext",
  "narwhalprompt",
  "axolotloutput",
  "pangolinargs",
  "capybararesult",
  "wombaterror",
  "tapirreason",
  "okapistate",
  "lemurquery",
  "dugongdocument",
  "marmotnote",
  "ibexfinal",
];

export function sampleRun(id = "bundle-run-1"): BundleRunInput {
  const ts = (s: number) => `2026-12-01T10:00:${String(s).padStart(2, "0")}.000Z`;
  const events: Record<string, unknown>[] = [
    {
      run: id,
      seq: 0,
      ts: ts(0),
      type: "run.start",
      data: {
        workflow: { name: "refund", version: "3" },
        agent: { name: "refund-agent", version: "1.2.0" },
        versions: { prompts: { triage: "7" }, tools: { pay: "2" } },
        environment: "production",
        initiator: { kind: "user", id: PII.email },
        input: `zanzibarinput please refund ${PII.cardSpaced} to ${PII.ibanSpaced}`,
      },
    },
    {
      run: id,
      seq: 1,
      ts: ts(1),
      type: "context",
      step: "s1",
      data: {
        messages: [{ role: "user", content: `quokkacontext call me on ${PII.phoneIntl} or ${PII.phoneUs}` }],
        instructions: ["refund-policy"],
      },
    },
    {
      run: id,
      seq: 2,
      ts: ts(2),
      type: "model.request",
      step: "s1",
      data: { call: "m1", model: "gpt-x", context: 1, messages: ["narwhalprompt"] },
    },
    {
      run: id,
      seq: 3,
      ts: ts(3),
      type: "model.response",
      step: "s1",
      data: {
        call: "m1",
        output: { text: "axolotloutput", toolCalls: [{ id: "t1", name: "pay", args: { note: "pangolinargs" } }] },
        latencyMs: 900,
      },
    },
    {
      run: id,
      seq: 4,
      ts: ts(4),
      type: "tool.call",
      step: "s1",
      data: { call: "c1", tool: "pay", args: { iban: PII.ibanPlain, card: PII.cardDashed, memo: "pangolinargs" }, effect: "write" },
    },
    {
      run: id,
      seq: 5,
      ts: ts(6),
      type: "tool.result",
      step: "s1",
      data: { call: "c1", status: "ok", result: { from: PII.ipv4, via: PII.ipv6, text: "capybararesult" }, latencyMs: 1500, partial: true },
    },
    { run: id, seq: 6, ts: ts(7), type: "error", step: "s1", data: { message: "wombaterror", code: "E1" } },
    { run: id, seq: 7, ts: ts(8), type: "decision", data: { action: "stop", reason: "tapirreason" } },
    { run: id, seq: 8, ts: ts(9), type: "state", data: { set: { customer: "okapistate" }, hash: "sha256:00" } },
    { run: id, seq: 9, ts: ts(10), type: "retrieval", data: { query: "lemurquery", documents: [{ id: "d1", content: "dugongdocument" }] } },
    { run: id, seq: 10, ts: ts(11), type: "note", data: { text: "marmotnote" } },
    { run: id, seq: 11, ts: ts(12), type: "run.end", data: { status: "succeeded", output: "ibexfinal" } },
  ];
  return {
    id,
    project: "default",
    workflow: "refund",
    workflowVersion: "3",
    agent: "refund-agent",
    agentVersion: "1.2.0",
    environment: "production",
    status: "succeeded",
    startedAt: ts(0),
    endedAt: ts(12),
    header: { versions: { prompts: { triage: "7" }, tools: { pay: "2" } } },
    events,
    findings: [{ rule: "tool.partial", seq: 5, severity: "warning", message: "tool pay returned partial data" }],
    notes: [
      {
        id: "n1",
        run: id,
        target: "finding",
        seq: 5,
        rule: "tool.partial",
        label: "false positive",
        text: `marmotnote checked with ${PII.email}`,
        author: "user:rita",
        createdAt: "2026-12-01T11:00:00.000Z",
      },
      {
        id: "n2",
        run: id,
        target: "event",
        seq: 4,
        rule: null,
        label: "needs fix",
        text: "marmotnote idempotency key missing",
        author: "user:rita",
        createdAt: "2026-12-01T11:01:00.000Z",
      },
    ],
  };
}
