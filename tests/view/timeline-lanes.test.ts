/** The timeline's lanes for nested and overlapping spans, and labels that fit their bars (lib/view/timeline.ts). */
import { describe, expect, it } from "vitest";
import { assignLanes, fitLabel, type Span } from "@/lib/view/timeline";

const sp = (startMs: number, endMs: number): Span => ({ startMs, endMs });

/** No two spans in one lane overlap (half-open; a zero-length span holds its instant). */
function noOverlap(spans: Span[], lane: Int32Array) {
  for (let i = 0; i < spans.length; i++)
    for (let j = i + 1; j < spans.length; j++) {
      if (lane[i] !== lane[j]) continue;
      const [a, b] = [spans[i], spans[j]];
      const overlap =
        a.startMs === b.startMs ||
        (a.startMs < b.endMs && b.startMs < a.endMs) ||
        (a.startMs === a.endMs && b.startMs < a.startMs && a.startMs < b.endMs);
      expect(overlap, `spans ${i} and ${j} share lane ${lane[i]}`).toBe(false);
    }
}

describe("assignLanes", () => {
  it("keeps sequential steps in one lane, touching ends included", () => {
    const spans = [sp(0, 10), sp(10, 20), sp(25, 30)];
    const r = assignLanes(spans);
    expect(Array.from(r.lane)).toEqual([0, 0, 0]);
    expect(r.lanes).toBe(1);
  });
  it("puts a step within a step one lane below, and a step within that one lane further", () => {
    // outer 0–100 holds 10–60, which holds 20–30; 70–90 is inside the outer only
    const spans = [sp(0, 100), sp(10, 60), sp(20, 30), sp(70, 90)];
    const r = assignLanes(spans);
    expect(Array.from(r.lane)).toEqual([0, 1, 2, 1]);
    expect(r.lanes).toBe(3);
  });
  it("places the outer span first whatever the input order", () => {
    const spans = [sp(20, 30), sp(0, 100), sp(0, 50)];
    const r = assignLanes(spans);
    // same start: the longer one is outer (lane 0), then 0–50, then 20–30 inside both
    expect(Array.from(r.lane)).toEqual([2, 0, 1]);
  });
  it("gives spans at the same instant lanes of their own", () => {
    const spans = [sp(5, 5), sp(5, 5), sp(5, 8), sp(6, 6)];
    const r = assignLanes(spans);
    expect(new Set([r.lane[0], r.lane[1], r.lane[2]]).size).toBe(3);
    noOverlap(spans, r.lane);
  });
  it("reuses the lowest free lane and never overlaps in a lane over many random spans", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const spans = Array.from({ length: 400 }, () => {
      const s = Math.floor(rnd() * 1000);
      return sp(s, s + Math.floor(rnd() * 60));
    });
    const r = assignLanes(spans);
    noOverlap(spans, r.lane);
    // lowest lane: each span's lane below its own is taken by an overlapping span
    for (let i = 0; i < spans.length; i++)
      for (let l = 0; l < r.lane[i]; l++) {
        const blocker = spans.some(
          (b, j) =>
            j !== i &&
            r.lane[j] === l &&
            b.startMs <= spans[i].startMs &&
            Math.max(b.endMs, b.startMs + (b.endMs === b.startMs ? 0.5 : 0)) > spans[i].startMs,
        );
        expect(blocker, `span ${i} could have used lane ${l}`).toBe(true);
      }
    expect(Math.max(...r.lane) + 1).toBe(r.lanes);
  });
  it("is empty for no spans", () => {
    expect(assignLanes([]).lanes).toBe(0);
  });
});

describe("fitLabel", () => {
  // 6 px per character: "refund" is 36 px, "…" 6 px
  const measure = (s: string) => s.length * 6;
  it("keeps a label that fits", () => {
    expect(fitLabel("refund", 44, measure)).toBe("refund");
  });
  it("truncates with an ellipsis to the bar's width", () => {
    // room 40 - 8 = 32 px: four letters and the ellipsis (30 px)
    expect(fitLabel("reconcile", 40, measure)).toBe("reco…");
  });
  it("hides a label when not even one letter fits", () => {
    expect(fitLabel("reconcile", 19, measure)).toBeNull();
    expect(fitLabel("reconcile", 0, measure)).toBeNull();
  });
});
