/**
 * The timeline's layout without a canvas (lib/view/timeline-layout.ts): lane groups stacked
 * in order with no overlap, and what a point picks: a step bar its first event, a call bar
 * its call's first event, elsewhere the event nearest in time within 8 px, else nothing.
 */
import { describe, expect, it } from "vitest";
import { AXIS, LABEL_W, LANES, layoutLanes, pickRow } from "@/lib/view/timeline-layout";
import { indexOf, readExample } from "../graph/helpers";

const index = indexOf(readExample("00-refund-clean.jsonl"));
const lanes = layoutLanes(index);
const WIDTH = LABEL_W + 1000;
const full = { startMs: index.startMs, endMs: index.endMs };
/** The x of time t across the full run, in a canvas WIDTH px wide. */
const xOf = (t: number) => LABEL_W + ((t - full.startMs) / (full.endMs - full.startMs)) * (WIDTH - LABEL_W);
const middleOf = (g: number) => lanes.top[g] + lanes.subH[g] / 2;

describe("layoutLanes", () => {
  it("stacks the six lane groups below the axis, each below the one before, the canvas tall enough for all", () => {
    expect(lanes.top).toHaveLength(LANES.length);
    expect(lanes.top[0]).toBeGreaterThan(AXIS);
    for (let g = 1; g < LANES.length; g++)
      expect(lanes.top[g]).toBeGreaterThanOrEqual(lanes.top[g - 1] + lanes.sub[g - 1] * lanes.subH[g - 1]);
    const last = LANES.length - 1;
    expect(lanes.height).toBeGreaterThan(lanes.top[last] + lanes.sub[last] * lanes.subH[last]);
  });

  it("gives every step and call a sub-lane its group has", () => {
    for (const st of index.steps) expect(lanes.stepLane[st.ordinal]).toBeLessThan(lanes.sub[0]);
    index.calls.forEach((c, i) => expect(lanes.callLane[i]).toBeLessThan(lanes.sub[c.lane === "model" ? 1 : 2]));
  });
});

describe("pickRow", () => {
  it("picks a step's first event on its bar", () => {
    const st = index.steps.find((s) => s.endMs > s.startMs)!;
    const y = lanes.top[0] + lanes.stepLane[st.ordinal] * lanes.subH[0] + 1;
    expect(pickRow(index, lanes, full, xOf((st.startMs + st.endMs) / 2), y, WIDTH)).toBe(st.rows[0]);
  });

  it("picks a call's first event on its bar, in the model or the tool lane", () => {
    for (const lane of ["model", "tool"] as const) {
      const ci = index.calls.findIndex((c) => c.lane === lane && c.endMs > c.startMs && lanes.callLane[index.calls.indexOf(c)] === 0);
      expect(ci, `a ${lane} call with a duration`).toBeGreaterThanOrEqual(0);
      const c = index.calls[ci];
      const g = lane === "model" ? 1 : 2;
      expect(pickRow(index, lanes, full, xOf((c.startMs + c.endMs) / 2), middleOf(g), WIDTH)).toBe(c.startRow);
    }
  });

  it("picks the event nearest in time in the events lane, and nothing far from every event", () => {
    const row = index.byTime[Math.floor(index.n / 2)];
    const t = index.summary.tsMs[row];
    expect(index.summary.tsMs[pickRow(index, lanes, full, xOf(t), middleOf(3), WIDTH)]).toBe(t);
    // a viewport of 1 s far after the run: no event within 8 px
    const after = { startMs: full.endMs + 100_000, endMs: full.endMs + 101_000 };
    expect(pickRow(index, lanes, after, LABEL_W + 500, middleOf(3), WIDTH)).toBe(-1);
  });
});
