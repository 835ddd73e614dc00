import { describe, expect, it } from "vitest";
import { adjacentStepRow, kindAt } from "@/lib/graph";
import { indexOf, readExample } from "./helpers";

describe("run index", () => {
  const index = indexOf(readExample("00-refund-clean.jsonl"));

  it("orders steps by first appearance and keeps events outside steps at the top level", () => {
    expect(index.steps.map((s) => [s.id, s.name, s.status])).toEqual([
      ["s1", "triage", "ok"],
      ["s2", "refund", "ok"],
      ["s3", "notify", "ok"],
    ]);
    expect(index.items.map((it) => (it.kind === "step" ? index.steps[it.step].id : index.summary.seq[it.row]))).toEqual([
      0,
      1,
      2,
      "s1",
      "s2",
      "s3",
      32,
    ]);
  });

  it("tells a tool write from a tool read, for the result too (by its call's effect)", () => {
    const row = (seq: number) => index.rowOfSeq(seq);
    expect(kindAt(index, row(8))).toBe("tool-read"); // lookup_order
    expect(kindAt(index, row(18))).toBe("tool-write"); // issue_refund
    expect(kindAt(index, row(19))).toBe("tool-write");
    expect(kindAt(index, row(6))).toBe("model");
    expect(kindAt(index, row(21))).toBe("checkpoint");
    expect(kindAt(index, row(30))).toBe("decision");
  });

  it("pairs each request with its answer as a call span", () => {
    const spans = index.calls.map((c) => [
      c.call,
      c.lane,
      index.summary.seq[c.startRow],
      c.endRow >= 0 ? index.summary.seq[c.endRow] : null,
    ]);
    expect(spans).toContainEqual(["t_4", "tool", 18, 19]);
    expect(spans).toContainEqual(["m_1", "model", 6, 7]);
    const refund = index.calls.find((c) => c.call === "t_4")!;
    // the result's ts is 18 ms after the call, but its latency says 2.4 s: the span is the longer
    expect(refund.endMs - refund.startMs).toBe(2420);
  });

  it("[ and ] move to the first event of the neighbouring step", () => {
    const row = (seq: number) => index.rowOfSeq(seq);
    expect(index.summary.seq[adjacentStepRow(index, row(5), 1)]).toBe(12);
    expect(index.summary.seq[adjacentStepRow(index, row(14), -1)]).toBe(3);
    expect(index.summary.seq[adjacentStepRow(index, row(0), 1)]).toBe(3);
    // past the last step the selection stays where it is
    expect(index.summary.seq[adjacentStepRow(index, row(32), 1)]).toBe(32);
  });
});
