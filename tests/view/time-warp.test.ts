/**
 * The timeline's idle gaps: a run that waited hours between two events is drawn with that
 * wait cut short (and said so), a run without such a wait is drawn to scale, and the
 * warp's two directions agree.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idleWarp, warpedTicks } from "@/lib/view/time-warp";
import { TICK_STEPS } from "@/lib/view/timeline";

const T0 = Date.parse("2026-11-07T11:00:00.000Z");
const H = 3_600_000;

describe("idleWarp", () => {
  it("cuts an approval that waited ten hours in a two-minute run short, and keeps the rest to scale", () => {
    // 60 events a second apart, a 10 h wait, 60 more
    const times = [
      ...Array.from({ length: 60 }, (_, i) => T0 + i * 1000),
      ...Array.from({ length: 60 }, (_, i) => T0 + 59_000 + 10 * H + i * 1000),
    ];
    const w = idleWarp(times);
    expect(w.gaps).toEqual([{ from: T0 + 59_000, to: T0 + 59_000 + 10 * H }]);
    // the active stretches keep their spacing; the gap is drawn a few percent of the active time
    expect(w.toDisplay(T0 + 5000) - w.toDisplay(T0 + 4000)).toBe(1000);
    const after = times.slice(60);
    expect(w.toDisplay(after[5]) - w.toDisplay(after[4])).toBe(1000);
    const drawnSpan = w.toDisplay(times[times.length - 1]) - w.toDisplay(T0);
    expect(drawnSpan).toBeLessThan(2 * 120_000);
    expect(w.shown).toBeLessThan(0.1 * drawnSpan);
  });

  it("draws a run with no dominant wait to scale", () => {
    const even = Array.from({ length: 500 }, (_, i) => T0 + i * 250);
    expect(idleWarp(even).gaps).toEqual([]);
    // a 12 s pause in a 10 min run is a quarter of nothing: to scale
    const pause = [...Array.from({ length: 300 }, (_, i) => T0 + i * 2000), T0 + 600_000 + 12_000];
    expect(idleWarp(pause).gaps).toEqual([]);
    expect(idleWarp([T0]).gaps).toEqual([]);
    expect(idleWarp([]).gaps).toEqual([]);
  });

  it("reads the times in the order given when they are not sorted", () => {
    const times = [T0 + 5 * H, T0, T0 + 1000, T0 + 5 * H + 1000];
    const order = [1, 2, 0, 3];
    expect(idleWarp(times, order).gaps).toEqual([{ from: T0 + 1000, to: T0 + 5 * H }]);
  });

  it("is monotone and toReal undoes toDisplay (seeded runs with random waits)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 60_000, max: 200 * H })), { minLength: 2, maxLength: 200 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (steps, picks) => {
          const times: number[] = [];
          let t = T0;
          for (const s of steps) times.push((t += s));
          const w = idleWarp(times);
          for (let i = 1; i < times.length; i++) expect(w.toDisplay(times[i])).toBeGreaterThanOrEqual(w.toDisplay(times[i - 1]));
          const span = times[times.length - 1] - times[0];
          for (const p of picks) {
            const real = times[0] + p * span;
            expect(Math.abs(w.toReal(w.toDisplay(real)) - real)).toBeLessThan(1e-3 * Math.max(1, span));
          }
          // no event falls inside a gap drawn short
          for (const g of w.gaps) expect(times.some((x) => x > g.from && x < g.to)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("warpedTicks", () => {
  it("labels round real times on both sides of a gap", () => {
    const times = [
      ...Array.from({ length: 61 }, (_, i) => T0 + i * 1000),
      ...Array.from({ length: 61 }, (_, i) => T0 + 60_000 + 10 * H + i * 1000),
    ];
    const w = idleWarp(times);
    const startD = w.toDisplay(T0);
    const endD = w.toDisplay(times[times.length - 1]);
    const { step, ticks } = warpedTicks(w, startD, endD, 1200, T0, TICK_STEPS);
    expect(ticks.length).toBeGreaterThan(4);
    for (const k of ticks) expect((k.t - T0) % step).toBe(0);
    expect(ticks.some((k) => k.t < T0 + 60_000)).toBe(true);
    expect(ticks.some((k) => k.t > T0 + 10 * H)).toBe(true);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i].at).toBeGreaterThan(ticks[i - 1].at);
  });
});
