/** The charts' y-axis ticks never repeat a label (lib/view/charts.ts axisTicks). */
import { describe, expect, it } from "vitest";
import { axisTicks } from "@/lib/view/charts";
import { formatCount, formatDuration, formatUsd } from "@/lib/view/format";

const distinct = (ticks: number[], fmt: (n: number) => string) => new Set(ticks.map(fmt)).size === ticks.length;

describe("axisTicks", () => {
  it("skips a step whose labels would repeat once rounded (the issue's '1s 1s 2s')", () => {
    const seconds = (n: number) => `${Math.round(n / 1000)}s`;
    // 500 ms steps read 0s 1s 1s 2s; the next round step, 1 s, reads 0s 1s 2s
    expect(axisTicks(1800, seconds)).toEqual([0, 1000, 2000]);
  });
  it("counts tokens in whole numbers for a small range", () => {
    // up to 3 tokens: 0.75 a tick would print 0 1 2 2 3
    expect(axisTicks(3, formatCount)).toEqual([0, 1, 2, 3]);
  });
  it("takes the smallest round step giving about four intervals", () => {
    // 1,800 ms / 4 = 450: the next round step is 500
    expect(axisTicks(1800, formatDuration)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(axisTicks(37_000, formatCount)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
  });
  it("keeps labels distinct for tiny costs and sub-millisecond latencies", () => {
    for (const max of [0.00003, 0.0004, 0.013, 0.7, 12]) expect(distinct(axisTicks(max, formatUsd), formatUsd), `max ${max}`).toBe(true);
    for (const max of [0.3, 2, 999, 59_000, 61_000, 4_000_000])
      expect(distinct(axisTicks(max, formatDuration), formatDuration), `max ${max}`).toBe(true);
  });
  it("reaches the maximum and starts at zero", () => {
    const t = axisTicks(1234, formatCount);
    expect(t[0]).toBe(0);
    expect(t[t.length - 1]).toBeGreaterThanOrEqual(1234);
  });
  it("is one tick at zero for an empty chart", () => {
    expect(axisTicks(0, formatCount)).toEqual([0]);
  });
});
