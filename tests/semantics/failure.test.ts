/**
 * One failure, one error: the timeline's failure marks (summary rows, lib/graph) and the
 * runs list's error count (lib/journal/summary, at ingest) count the same events, and a
 * failure reported by several events (a failed result, an error naming its call, the
 * step.end of every step around it, a failed run.end) is counted once.
 */
import { describe, expect, it } from "vitest";
import { buildRunIndex, decodeSummary, encodeSummary, summaryRowsFromEvents } from "../../lib/graph";
import { errorEvents } from "../../lib/semantics";
import type { JournalEvent } from "../../lib/journal/types";
import { generateRun } from "../../lib/replay/testing/journal-generator";
import { FailureCounter, type FailureInput } from "../../lib/semantics/failure";
import { journal } from "../analyze/journal-builder";

const timelineMarks = (events: JournalEvent[]) => {
  const index = buildRunIndex(decodeSummary(encodeSummary("r", summaryRowsFromEvents(events))));
  return [...index.failed].map((f) => f === 1);
};

describe("the failure count", () => {
  it("marks the same events on the timeline as the runs list counts as errors", () => {
    let failures = 0;
    for (let s = 1; s <= 30; s++) {
      const events = generateRun({ seed: s, faults: 0.3, edges: true });
      const bySeq = [...events].sort((a, b) => a.seq - b.seq);
      const timeline = timelineMarks(bySeq);
      const runsList = errorEvents(bySeq);
      expect(timeline, `seed ${s}`).toEqual(runsList);
      failures += timeline.filter(Boolean).length;
    }
    expect(failures).toBeGreaterThan(0);
  });

  it("counts a denied decision, a model.response with an error and a timed-out tool, not error: null", () => {
    const events: JournalEvent[] = journal([
      { type: "approval.decision", data: { approval: "a", decision: "denied", by: "r" } },
      { type: "model.response", data: { call: "m", output: {}, error: null } },
      { type: "model.response", data: { call: "m", output: {}, error: { message: "rate limited" } } },
      { type: "tool.result", data: { call: "c", status: "timeout" } },
      { type: "step.end", data: { status: "ok" } },
    ]);
    expect(errorEvents(events)).toEqual([true, false, true, true, false]);
  });

  it("a failed tool is one error: its result, the error naming its call, its step's and its ancestors' step.end", () => {
    // what the OTLP mapping writes for a failed tool span inside an agent span inside a chain
    const events = journal([
      { type: "run.start", data: {} },
      { type: "step.start", step: "chain", data: { name: "chain" } },
      { type: "step.start", step: "agent", parent: 1, data: { name: "agent" } },
      { type: "step.start", step: "tool", parent: 2, data: { name: "book" } },
      { type: "tool.call", step: "tool", data: { call: "c1", tool: "book", args: {}, effect: "write" } },
      { type: "error", step: "tool", data: { message: "no table", call: "c1" } },
      { type: "tool.result", step: "tool", data: { call: "c1", status: "error", error: "no table" } },
      { type: "step.end", step: "tool", data: { status: "error" } },
      { type: "step.end", step: "agent", data: { status: "error" } },
      { type: "step.end", step: "chain", data: { status: "error" } },
      { type: "run.end", data: { status: "failed" } },
    ]);
    const counted = errorEvents(events);
    expect(counted.filter(Boolean)).toHaveLength(1);
    expect(counted[5]).toBe(true); // the first event reporting it
    expect(timelineMarks(events)).toEqual(counted);
    // the timeline still shows the call as failed
    const index = buildRunIndex(decodeSummary(encodeSummary("r", summaryRowsFromEvents(events))));
    expect(index.calls.find((c) => c.call === "c1")?.failed).toBe(true);
  });

  it("two failed tools in one step are two errors; a retry of a call id that failed again is another", () => {
    const events = journal([
      { type: "step.start", step: "s", data: { name: "loop" } },
      { type: "tool.call", step: "s", data: { call: "a", tool: "t", args: {}, effect: "read" } },
      { type: "tool.result", step: "s", data: { call: "a", status: "error" } },
      { type: "tool.call", step: "s", data: { call: "b", tool: "t", args: {}, effect: "read" } },
      { type: "tool.result", step: "s", data: { call: "b", status: "error" } },
      { type: "tool.call", step: "s", data: { call: "b", tool: "t", args: {}, effect: "read" } },
      { type: "tool.result", step: "s", data: { call: "b", status: "timeout" } },
      { type: "error", step: "s", data: { message: "gave up" } },
      { type: "step.end", step: "s", data: { status: "error" } },
    ]);
    expect(errorEvents(events)).toEqual([false, false, true, false, true, false, true, true, false]);
  });

  it("a step.end error with nothing failed inside it counts, and so does a failed run.end with nothing before it", () => {
    const events = journal([
      { type: "run.start", data: {} },
      { type: "step.start", step: "outer", data: {} },
      { type: "step.start", step: "inner", parent: 1, data: {} },
      { type: "step.end", step: "inner", data: { status: "error" } },
      { type: "step.end", step: "outer", data: { status: "error" } },
      { type: "step.start", step: "other", data: {} },
      { type: "step.end", step: "other", data: { status: "error" } },
      { type: "run.end", data: { status: "failed" } },
    ]);
    // the inner step failed (outer inherited it); "other" failed on its own; the run inherited them
    expect(errorEvents(events)).toEqual([false, false, false, true, false, false, true, false]);
    expect(errorEvents(journal([{ type: "run.start" }, { type: "run.end", data: { status: "failed" } }]))).toEqual([false, true]);
  });

  it("continues from its snapshot as if it had never stopped (ingest across requests)", () => {
    const events = generateRun({ seed: 7, faults: 0.4, edges: true }).sort((a, b) => a.seq - b.seq);
    const inputs: FailureInput[] = events.map((e) => ({
      type: e.type,
      status: typeof e.data.status === "string" ? e.data.status : null,
      step: e.step ?? null,
      call: typeof e.data.call === "string" ? e.data.call : null,
      parent: e.parent ?? null,
      seq: e.seq,
    }));
    const whole = new FailureCounter();
    const expected = inputs.map((e) => whole.counts(e));
    let c = new FailureCounter();
    const got: boolean[] = [];
    inputs.forEach((e, i) => {
      if (i % 3 === 0) c = new FailureCounter(JSON.parse(JSON.stringify(c.snapshot())));
      got.push(c.counts(e));
    });
    expect(got).toEqual(expected);
  });
});
