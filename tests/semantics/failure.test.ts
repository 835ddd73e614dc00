/**
 * One failure predicate: the timeline's failure marks (summary rows, lib/graph) and the
 * runs list's error count (lib/journal/summary, at ingest) must count the same events.
 */
import { describe, expect, it } from "vitest";
import { summaryRowsFromEvents } from "../../lib/graph";
import { isFailure } from "../../lib/graph/kind";
import { isErrorEvent } from "../../lib/journal/summary";
import type { JournalEvent } from "../../lib/journal/types";
import { generateRun } from "../../lib/replay/testing/journal-generator";
import { journal } from "../analyze/journal-builder";

describe("the failure predicate", () => {
  it("marks the same events on the timeline as the runs list counts as errors", () => {
    let failures = 0;
    for (let s = 1; s <= 30; s++) {
      const events = generateRun({ seed: s, faults: 0.3, edges: true });
      const rows = summaryRowsFromEvents(events);
      const timeline = rows.map((r) => isFailure(r.type, r.status));
      const runsList = [...events].sort((a, b) => a.seq - b.seq).map((e) => isErrorEvent(e));
      expect(timeline, `seed ${s}`).toEqual(runsList);
      failures += timeline.filter(Boolean).length;
    }
    expect(failures).toBeGreaterThan(0);
  });

  it("counts a failed run.end and a denied decision as failures, and a model.response with error: null as none", () => {
    const events: JournalEvent[] = journal([
      { type: "run.end", data: { status: "failed" } },
      { type: "approval.decision", data: { approval: "a", decision: "denied", by: "r" } },
      { type: "model.response", data: { call: "m", output: {}, error: null } },
      { type: "model.response", data: { call: "m", output: {}, error: { message: "rate limited" } } },
      { type: "tool.result", data: { call: "c", status: "timeout" } },
      { type: "step.end", data: { status: "ok" } },
    ]);
    expect(events.map((e) => isErrorEvent(e))).toEqual([true, true, false, true, true, false]);
  });
});
