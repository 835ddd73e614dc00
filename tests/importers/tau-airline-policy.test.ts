/**
 * The worked example of docs/declared-policy.md: tau-bench's airline policy
 * (docs/policies/tau-bench-airline.json, written from the domain's public wiki.md and tool
 * schemas) over six published gpt-4o airline trajectories. Every expected finding was read
 * by hand in the trajectory and is named here by the trajectory message that makes the
 * call (the `tool_calls` id of that assistant message), so the expected seq comes from the
 * source file, not from the analyzer's output.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { importTrace } from "@/lib/importers";
import type { JournalEvent } from "@/lib/journal/types";

const ROOT = path.resolve(__dirname, "../..");
const FILE = path.join(ROOT, "tests/fixtures/corpus/tau-bench/airline-gpt-4o-policy-sample.json");
const POLICY = JSON.parse(fs.readFileSync(path.join(ROOT, "docs/policies/tau-bench-airline.json"), "utf8"));
type Msg = { role: string; tool_calls?: Array<{ id: string; function: { name: string } }> };
const records = JSON.parse(fs.readFileSync(FILE, "utf8")) as Array<{ task_id: number; traj: Msg[] }>;

/** Read by hand: record (index in the file), trajectory message making the call, rule, invariant id. */
const EXPECTED: Array<{ record: number; message: number; rule: string; invariant: string; why: string }> = [
  {
    record: 0,
    message: 8,
    rule: "policy.requires-before",
    invariant: "reservation-read-before-change",
    why: "cancelled 3RK2T9 on the user's word that it was booked 10 hours ago, never reading it",
  },
  {
    record: 1,
    message: 22,
    rule: "policy.arg-from-input",
    invariant: "change-payment-in-profile",
    why: "made up credit_card_7334 from 'ending in 7334' before reading the profile (the API refused it)",
  },
  {
    record: 2,
    message: 28,
    rule: "policy.confirmed-by-input",
    invariant: "confirm-before-write",
    why: "added 2 bags without listing the details or getting a yes",
  },
  {
    record: 3,
    message: 20,
    rule: "policy.confirmed-by-input",
    invariant: "confirm-before-write",
    why: "retried the downgrade after the user changed the request, without a new yes",
  },
  {
    record: 3,
    message: 22,
    rule: "policy.confirmed-by-input",
    invariant: "confirm-before-write",
    why: "dropped the return flight from the reservation without listing it or a yes",
  },
];

function withPolicy(events: JournalEvent[]): JournalEvent[] {
  return events.map((e) => (e.type === "run.start" ? { ...e, data: { ...e.data, policy: POLICY } } : e));
}

describe("tau-bench airline policy over published trajectories", () => {
  const imported = importTrace(fs.readFileSync(FILE, "utf8"), { fileName: "gpt-4o-airline.json" });
  it("imports one run per record", () => {
    expect(imported.runs).toHaveLength(records.length);
  });
  it("reports exactly the violations read by hand, at the call each trajectory message makes", () => {
    const got: string[] = [];
    const want: string[] = [];
    imported.runs.forEach((run, i) => {
      const events = withPolicy(run.events);
      for (const f of analyzeEvents(events).filter((f) => f.rule.startsWith("policy.") || f.rule === "tool.args-invalid"))
        got.push(`${i}:${f.rule}@${f.seq}:${/invariant "([^"]+)"/.exec(f.message)?.[1]}`);
      for (const e of EXPECTED.filter((x) => x.record === i)) {
        const callId = records[i].traj[e.message].tool_calls?.[0]?.id;
        const call = events.find((ev) => ev.type === "tool.call" && ev.data.call === callId);
        expect(call, `record ${i} message ${e.message}`).toBeDefined();
        want.push(`${i}:${e.rule}@${call?.seq}:${e.invariant}`);
      }
    });
    expect(got.sort()).toEqual(want.sort());
  });
  it("without the policy the same runs have no policy findings", () => {
    for (const run of imported.runs) expect(analyzeEvents(run.events).filter((f) => f.rule.startsWith("policy."))).toEqual([]);
  });
});
