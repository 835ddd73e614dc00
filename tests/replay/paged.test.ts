/**
 * The paged replay (what the replay page's worker holds for a long run: snapshots and two
 * numbers a frame, no events and no frames) against the whole replay, on seeded generated
 * journals with and without forks, pushed in chunks of 1, 7, 256 and the whole run: every
 * frame rebuilt from its block equals the whole replay's, with the same state, and the
 * divergences, changes and summary are the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/canonical";
import type { JournalEvent } from "../../lib/journal/types";
import { buildForkPlan, createReplay, forkPlanReads, type ForkOverride, type ForkSpec } from "../../lib/replay";
import { openPagedReplay, type PagedReplay, type RefoldedBlock } from "../../lib/replay/paged";
import { generateRun, randomFork } from "../../lib/replay/testing/journal-generator";
import { testRuns, testSeed } from "./seeds";

const CHUNKS = [1, 7, 256, Infinity];

function pushAll(paged: PagedReplay, events: readonly JournalEvent[], size: number) {
  const step = Number.isFinite(size) ? size : events.length;
  for (let i = 0; i < events.length; i += step) paged.push(events.slice(i, i + step));
}

/** The events of a block, as a worker fetches them again: by the seqs the replay kept. */
function blockOf(paged: PagedReplay, events: readonly JournalEvent[], block: number): RefoldedBlock {
  const { from, to } = paged.blockRange(block);
  return paged.refold(block, events.slice(from, to));
}

describe("paged replay (seeded generated journals)", () => {
  it("rebuilds every frame from its block exactly as the whole replay made it, for chunks of 1, 7, 256 or the whole run", () => {
    const seed = testSeed("paged replay = whole replay");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0x7fffffff }), fc.boolean(), fc.integer({ min: 1, max: 64 }), (s, forked, every) => {
        const input = generateRun({ seed: s, faults: 0.2 });
        const fork = forked ? randomFork(input, s) : undefined;
        const whole = createReplay(input, { fork, snapshotEvery: every });
        const events = whole.events;
        const plan = fork ? buildForkPlan(events, fork) : null;
        for (const size of CHUNKS) {
          const paged = openPagedReplay(whole.run, { plan, fork, snapshotEvery: every });
          pushAll(paged, events, size);
          expect(paged.events).toBe(events.length);
          expect(paged.frames).toBe(whole.frames.length);
          expect(paged.divergences).toEqual(whole.divergences);
          expect(paged.changes).toEqual(whole.changes);
          expect(paged.firstMeaningful).toEqual(whole.firstMeaningful);
          expect(paged.summary()).toEqual(whole.summary());
          // what a load's progress reports after each page: the counts, without the lists
          if (!fork) expect(paged.summary({ lists: false })).toEqual({ ...whole.summary(), divergences: [], blocked: [] });
          const blocks = new Map<number, RefoldedBlock>();
          for (let i = 0; i < whole.frames.length; i++) {
            expect(paged.frameSeq(i)).toBe(whole.frames[i].seq);
            expect(paged.frameEventIndex(i)).toBe(whole.frames[i].eventIndex);
            const b = paged.blockOfFrame(i);
            if (!blocks.has(b)) blocks.set(b, blockOf(paged, events, b));
            const got = paged.viewIn(blocks.get(b)!, i);
            const want = whole.viewAt(i);
            expect(got.frame).toEqual(want.frame);
            expect(canonicalJson(got.state)).toBe(canonicalJson(want.state));
            expect(canonicalJson(got.recordedState)).toBe(canonicalJson(want.recordedState));
          }
          for (const f of whole.frames) expect(paged.frameIndexOfSeq(f.seq)).toBe(whole.frameIndexOfSeq(f.seq));
          expect(paged.frameIndexOfSeq(-5)).toBe(-1);
        }
      }),
      { seed, numRuns: testRuns(40) },
    );
  });

  it("a block still growing is rebuilt from the events folded so far, and again once it is whole", () => {
    const whole = createReplay(generateRun({ seed: 99, faults: 0.2 }), { snapshotEvery: 32 });
    const paged = openPagedReplay(whole.run, { plan: null, snapshotEvery: 32 });
    paged.push(whole.events.slice(0, 40));
    const partial = blockOf(paged, whole.events, 1);
    expect(partial.to).toBe(40);
    const lastFrame = paged.frames - 1;
    expect(paged.viewIn(partial, lastFrame).frame).toEqual(whole.frames[lastFrame]);
    paged.push(whole.events.slice(40));
    expect(paged.blockRange(1).to).toBe(Math.min(64, whole.events.length));
    const full = blockOf(paged, whole.events, 1);
    expect(full.frames.map((f) => f.frame)).toEqual(whole.frames.filter((f) => f.eventIndex >= 32 && f.eventIndex < 64));
  });

  it("refuses to rebuild a block from events other than the ones folded there", () => {
    const whole = createReplay(generateRun({ seed: 5, faults: 0 }), { snapshotEvery: 16 });
    const paged = openPagedReplay(whole.run, { plan: null, snapshotEvery: 16 });
    paged.push(whole.events);
    const events = whole.events.slice(16, 32);
    expect(() => paged.refold(1, events.slice(1))).toThrow(/block 1 needs the events/);
    expect(() => paged.refold(1, [...events.slice(0, 15), whole.events[40]])).toThrow(/block 1 needs the events/);
    expect(() => paged.refold(Math.ceil(whole.events.length / 16) + 1, [])).toThrow(/not folded/);
    expect(() => paged.frameSeq(paged.frames)).toThrow(RangeError);
  });

  it("resolves a fork from the events forkPlanReads picks exactly as from the whole run", () => {
    const seed = testSeed("fork plan from the events it reads");
    const parts: ForkOverride[] = [
      { toolResult: { status: "error" } },
      { modelOutput: { text: "else" } },
      { approval: "denied" },
      { approval: "approved" },
      { policy: { maxSteps: 2 } },
      { statePatch: [{ op: "add", path: "/x", value: 1 }] },
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 0x7fffffff }),
        fc.nat(10_000),
        fc.subarray(parts, { minLength: 1, maxLength: 3 }),
        (s, pick, chosen) => {
          const events = createReplay(generateRun({ seed: s, faults: 0.3 })).events;
          const spec: ForkSpec = { seq: events[pick % events.length].seq, override: Object.assign({}, ...chosen) as ForkOverride };
          const outcome = (evs: readonly JournalEvent[]) => {
            try {
              return { plan: buildForkPlan(evs, spec) };
            } catch (e) {
              return { error: (e as Error).message };
            }
          };
          const at = events.find((e) => e.seq === spec.seq);
          let reads: ReturnType<typeof forkPlanReads>;
          try {
            reads = forkPlanReads(spec, at);
          } catch (e) {
            // a bad override: refused with buildForkPlan's own words
            expect(outcome(events)).toEqual({ error: (e as Error).message });
            return;
          }
          // what a streaming caller keeps: every match before, the first match of each predicate after
          const kept: JournalEvent[] = [];
          const open = new Set(reads.after);
          for (const e of events) {
            if (e.seq <= spec.seq) {
              if (reads.keep(e)) kept.push(e);
              continue;
            }
            if (open.size === 0) break;
            const hit = [...open].filter((p) => p(e));
            if (hit.length === 0) continue;
            expect(reads.keep(e)).toBe(true);
            kept.push(e);
            for (const p of hit) open.delete(p);
          }
          expect(outcome(kept)).toEqual(outcome(events));
        },
      ),
      { seed, numRuns: testRuns(200) },
    );
  });
});
