/**
 * The timeline draws zoomed-out views from its level-of-detail index
 * (lib/view/timeline-lod.ts): at every level, every bucket must say exactly what the raw
 * columns say about the events and spans in its time range. Seeded.
 */
import { describe, expect, it } from "vitest";
import { buildRunIndex, decodeSummary, encodeSummary, summaryRowsFromEvents } from "@/lib/graph";
import type { JournalEvent } from "@/lib/journal/types";
import { assignLanes } from "@/lib/view/timeline";
import { bucketOf, buildTimelineLod, COVERED, FAILED, levelFor, MIN_BUCKETS, WRITE, type LodSpan } from "@/lib/view/timeline-lod";
import { generateJournal } from "../../scripts/bench-journal";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  n: number;
  tsMs: Float64Array;
  kindOfRow: Uint8Array;
  failed: Uint8Array;
  spans: LodSpan[];
  lanes: number;
  startMs: number;
  endMs: number;
}

function randomCase(seed: number, n: number, spanCount: number, lanes: number): Case {
  const r = rng(seed);
  const start = 1_790_000_000_000;
  const end = start + 1 + Math.floor(r() * 1e7);
  const tsMs = new Float64Array(n);
  const kindOfRow = new Uint8Array(n);
  const failed = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    // clustered and spread, ends included, times out of order
    tsMs[i] = r() < 0.05 ? (r() < 0.5 ? start : end) : r() < 0.3 ? start + r() * 100 : start + r() * (end - start);
    kindOfRow[i] = Math.floor(r() * 14);
    failed[i] = r() < 0.05 ? 1 : 0;
  }
  const spans: LodSpan[] = [];
  for (let i = 0; i < spanCount; i++) {
    const a = start + r() * (end - start);
    const long = r() < 0.05;
    spans.push({
      startMs: long ? start : a,
      endMs: long ? end : r() < 0.2 ? a : a + r() * (end - a) * 0.01,
      lane: Math.floor(r() * lanes),
      failed: r() < 0.1,
      write: r() < 0.3,
    });
  }
  return { n, tsMs, kindOfRow, failed, spans, lanes, startMs: start, endMs: end };
}

/** Every bucket of every level against a scan of the raw events and spans. */
function expectAgrees(c: Case, finest?: number) {
  const lod = buildTimelineLod(c, c.spans, c.lanes, c.startMs, c.endMs, finest);
  expect(lod.levels[lod.levels.length - 1].buckets).toBe(MIN_BUCKETS);
  lod.levels.forEach((L, level) => {
    const count = new Uint32Array(L.buckets);
    const kinds = new Uint32Array(L.buckets);
    const failed = new Uint8Array(L.buckets);
    for (let i = 0; i < c.n; i++) {
      // the bucket whose time range holds the event, found without the index
      const b = Math.min(L.buckets - 1, Math.max(0, Math.floor((c.tsMs[i] - c.startMs) / L.bucketMs)));
      expect(bucketOf(lod, level, c.tsMs[i])).toBe(b);
      count[b]++;
      if (c.failed[i]) failed[b] = 1;
      else kinds[b] |= 1 << c.kindOfRow[i];
    }
    expect(Array.from(L.count)).toEqual(Array.from(count));
    expect(Array.from(L.kinds)).toEqual(Array.from(kinds));
    expect(Array.from(L.failed)).toEqual(Array.from(failed));
    expect(L.count.reduce((a, b) => a + b, 0)).toBe(c.n);
    for (let lane = 0; lane < c.lanes; lane++) {
      const flags = new Uint8Array(L.buckets);
      for (const s of c.spans) {
        if (s.lane !== lane) continue;
        const b0 = bucketOf(lod, level, s.startMs);
        const b1 = bucketOf(lod, level, Math.max(s.startMs, s.endMs));
        for (let b = b0; b <= b1; b++) flags[b] |= COVERED | (s.failed ? FAILED : 0) | (s.write ? WRITE : 0);
      }
      expect(Array.from(L.spans[lane])).toEqual(Array.from(flags));
    }
  });
  return lod;
}

describe("timeline level-of-detail index", () => {
  for (const seed of [1, 2, 3, 77]) {
    it(`agrees with the raw events and spans at every level (seed ${seed})`, () => {
      expectAgrees(randomCase(seed, 3000 + seed * 11, 400, 3), 4096);
    });
  }

  it("agrees for a run of one event, and for one whose events all share one instant", () => {
    expectAgrees({ ...randomCase(5, 1, 1, 1) });
    const c = randomCase(6, 500, 10, 2);
    c.tsMs.fill(c.startMs);
    c.endMs = c.startMs + 1;
    expectAgrees(c);
  });

  it("agrees for a generated run's own index: steps in their sub-lanes, calls after them", () => {
    const events = generateJournal(5000, "lod")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalEvent);
    const index = buildRunIndex(decodeSummary(encodeSummary("lod", summaryRowsFromEvents(events))));
    const steps = assignLanes(index.steps);
    const spans: LodSpan[] = [
      ...index.steps.map((s) => ({ startMs: s.startMs, endMs: s.endMs, lane: steps.lane[s.ordinal], failed: s.failures > 0 })),
      ...index.calls.map((c) => ({
        startMs: c.startMs,
        endMs: c.endMs,
        lane: steps.lanes + (c.lane === "model" ? 0 : 1),
        failed: c.failed,
        write: c.write,
      })),
    ];
    const c: Case = {
      n: index.n,
      tsMs: index.summary.tsMs,
      kindOfRow: index.kindOfRow,
      failed: index.failed,
      spans,
      lanes: steps.lanes + 2,
      startMs: index.startMs,
      endMs: index.endMs,
    };
    const lod = expectAgrees(c);
    // the generated run's failures are in the index, and so in the coarsest level
    expect(lod.levels.at(-1)!.failed.some((f) => f === 1)).toBe(index.failed.some((f) => f === 1));
  });

  it("draws from the finest level whose buckets are a pixel wide, and from the events when zoomed past it", () => {
    const lod = buildTimelineLod(randomCase(9, 5000, 0, 0), [], 0, 0, 65_536, 8192);
    expect(lod.levels[0].bucketMs).toBe(8);
    expect(levelFor(lod, 4)).toBe(-1);
    expect(levelFor(lod, 8)).toBe(0);
    expect(levelFor(lod, 9)).toBe(1);
    expect(lod.levels[levelFor(lod, 9)].bucketMs).toBe(16);
    expect(levelFor(lod, 1e9)).toBe(lod.levels.length - 1);
  });
});
