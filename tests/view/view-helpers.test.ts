import { describe, expect, it } from "vitest";
import { buildRunIndex, decodeSummary, encodeSummary, summaryRowsFromEvents } from "@/lib/graph";
import { stepBars } from "@/lib/view/charts";
import { instructionRows } from "@/lib/view/context";
import { childPage, preview } from "@/lib/view/json-tree";
import { apiQuery, filtersFromParams, paramsFromFilters } from "@/lib/view/run-filters";
import { matchRows, mergeRows, nextMatch } from "@/lib/view/search";
import { clampViewport, lowerBound, revealTime, ticks, zoomViewport } from "@/lib/view/timeline";
import { formatDuration, formatOffset } from "@/lib/view/format";
import { readExample } from "../graph/helpers";

const index = buildRunIndex(decodeSummary(encodeSummary("r", summaryRowsFromEvents(readExample("00-refund-clean.jsonl")))));

describe("runs list filters in the URL", () => {
  it("round-trips and ignores unknown sorts", () => {
    const f = filtersFromParams(new URLSearchParams("status=failed&q=refund&sort=-findings&tag=x&bogus=1"));
    expect(f).toMatchObject({ status: "failed", q: "refund", sort: "-findings", tag: "x" });
    expect(paramsFromFilters(f).toString()).toBe("status=failed&tag=x&q=refund&sort=-findings");
    expect(filtersFromParams(new URLSearchParams("sort=evil")).sort).toBe("-started");
  });
  it("a date range covers both whole days in UTC", () => {
    const q = new URLSearchParams(apiQuery(filtersFromParams(new URLSearchParams("from=2026-11-07&to=2026-11-08")), "CUR", 25));
    expect(q.get("from")).toBe("2026-11-07T00:00:00.000Z");
    expect(q.get("to")).toBe("2026-11-08T23:59:59.999Z");
    expect(q.get("cursor")).toBe("CUR");
    expect(q.get("limit")).toBe("25");
  });
});

describe("search within a run", () => {
  it("matches tool names, types, call ids and a seq", () => {
    const seqs = (rows: number[]) => rows.map((r) => index.summary.seq[r]);
    expect(seqs(matchRows(index.summary, "issue_refund"))).toEqual([18, 19]);
    expect(seqs(matchRows(index.summary, "#21"))).toEqual([21]);
    expect(seqs(matchRows(index.summary, "APPROVAL"))).toEqual([16, 17]);
  });
  it("merges column and payload matches and wraps around", () => {
    expect(mergeRows([1, 5, 9], [2, 5, 10])).toEqual([1, 2, 5, 9, 10]);
    expect(nextMatch([3, 7], 7, 1)).toBe(3);
    expect(nextMatch([3, 7], 3, -1)).toBe(7);
    expect(nextMatch([], 3, 1)).toBe(-1);
  });
});

describe("timeline viewport", () => {
  const bounds = { startMs: 0, endMs: 10_000 };
  it("zooms around the pointer and never past the data", () => {
    const v = zoomViewport(bounds, 0.5, 0.5, bounds);
    expect(v).toEqual({ startMs: 2500, endMs: 7500 });
    const out = zoomViewport(bounds, 100, 0.5, bounds);
    expect(out.endMs - out.startMs).toBeLessThanOrEqual(11_000);
    expect(clampViewport({ startMs: 50_000, endMs: 51_000 }, bounds).endMs).toBeLessThanOrEqual(10_500);
  });
  it("moves only when the selected time is off screen", () => {
    const v = { startMs: 1000, endMs: 2000 };
    expect(revealTime(v, 1500, bounds)).toBe(v);
    expect(revealTime(v, 8000, bounds)).toEqual({ startMs: 7500, endMs: 8500 });
  });
  it("ticks at round intervals and finds times by binary search", () => {
    const t = ticks({ startMs: 0, endMs: 10_000 }, 1000, 0);
    expect(t.step).toBe(1000);
    expect(t.times[0]).toBe(0);
    expect(lowerBound([1, 3, 3, 8], 3)).toBe(1);
    expect(
      lowerBound(
        [10, 20, 30],
        25,
        [2, 0, 1].sort((a, b) => [10, 20, 30][a] - [10, 20, 30][b]),
      ),
    ).toBe(2);
  });
});

describe("charts and panes", () => {
  it("sums latency and tokens per step (costs: tests/view/prices.test.ts)", () => {
    const bars = stepBars(index);
    expect(bars.map((b) => b.label)).toEqual(["triage", "refund", "notify"]);
    expect(bars[0].tokens).toBeGreaterThan(0);
    expect(bars[0].cost).toBe(0);
    expect(bars[1].latencyMs).toBe(index.steps[1].latencyMs);
  });
  it("groups thousands of steps into at most maxBars bars", () => {
    const many = { ...index, steps: Array.from({ length: 1000 }, (_, i) => ({ ...index.steps[0], id: `s${i}`, ordinal: i })) };
    const bars = stepBars(many, null, 100);
    expect(bars).toHaveLength(100);
    expect(bars[0]).toMatchObject({ from: 0, to: 9 });
  });
  it("checks instructions against the policy's required ones", () => {
    expect(instructionRows(["tone"], ["refund-policy", "tone"])).toEqual([
      { id: "refund-policy", required: true, included: false },
      { id: "tone", required: true, included: true },
    ]);
    expect(instructionRows(["extra"], undefined)).toEqual([{ id: "extra", required: false, included: true }]);
  });
  it("pages the children of an object with 10,000 keys", () => {
    const obj = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    expect(preview(obj)).toBe("{10,000 keys}");
    expect(childPage(obj, 0, 100)).toHaveLength(100);
    expect(childPage(obj, 9_990, 10_100).map(([k]) => k)[0]).toBe("k9990");
  });
  it("formats durations, offsets and chain states for people", () => {
    expect(formatDuration(387)).toBe("387 ms");
    expect(formatDuration(37_665)).toBe("37.7 s");
    expect(formatDuration(119_700)).toBe("2 m 0 s");
    expect(formatDuration(48 * 3_600_000 - 1000)).toBe("48 h 0 m");
    expect(formatDuration(10 * 3_600_000 + 601)).toBe("10 h 0 m");
    expect(formatOffset(1234)).toBe("+1.234 s");
    expect(formatOffset(125_300)).toBe("+2:05.3");
    // an approval that waited ten hours reads as hours, not as 600 minutes
    expect(formatOffset(10 * 3_600_000 + 18_300)).toBe("+10:00:18.3");
    expect(formatOffset(-(3_600_000 + 61_000))).toBe("−1:01:01.0");
  });
});
