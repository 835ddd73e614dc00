/** The timeline's findings lane aggregates marks that would overprint (lib/view/timeline.ts bucketMarks). */
import { describe, expect, it } from "vitest";
import { bucketMarks } from "@/lib/view/timeline";

describe("bucketMarks", () => {
  it("keeps marks apart when they are far enough apart", () => {
    expect(
      bucketMarks([
        { x: 10, count: 1 },
        { x: 40, count: 2 },
      ]),
    ).toEqual([
      { x: 10, count: 1, marks: 1 },
      { x: 40, count: 2, marks: 1 },
    ]);
  });
  it("merges a dense burst into one mark with its count, placed in its middle", () => {
    // 100 findings one px apart from x = 200: buckets of 14 px (200–213, 214–227, …)
    const burst = Array.from({ length: 100 }, (_, i) => ({ x: 200 + i, count: 1 }));
    const b = bucketMarks(burst, 14);
    expect(b.reduce((n, x) => n + x.count, 0)).toBe(100);
    expect(b).toHaveLength(Math.ceil(100 / 14));
    expect(b[0]).toEqual({ x: 206.5, count: 14, marks: 14 });
    // one pixel column holding 100 identical findings is one mark of 100
    expect(bucketMarks([{ x: 5, count: 100 }])).toEqual([{ x: 5, count: 100, marks: 1 }]);
  });
  it("sorts its input and skips positions that are not numbers", () => {
    expect(
      bucketMarks([
        { x: 50, count: 1 },
        { x: NaN, count: 3 },
        { x: 45, count: 1 },
      ]),
    ).toEqual([{ x: 47.5, count: 2, marks: 2 }]);
  });
});
