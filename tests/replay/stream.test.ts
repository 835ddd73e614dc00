/**
 * The streamed replay (a run folded in chunks as its pages arrive) against one pass over
 * the whole run, on seeded generated journals with and without forks: the same frames,
 * divergences, changes, snapshots and fidelity for chunks of 1, 7, 256 and the whole run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { orderEvents } from "../../lib/semantics";
import { canonicalJson } from "../../lib/canonical";
import type { JournalEvent } from "../../lib/journal/types";
import { buildForkPlan, createReplay, createReplayStream, foldEvents, foldToJson, openReplay, type ReplayChunk } from "../../lib/replay";
import { generateRun, randomFork } from "../../lib/replay/testing/journal-generator";
import { testRuns, testSeed } from "./seeds";

const CHUNKS = [1, 7, 256, Infinity];
const last = (xs: readonly unknown[]) => xs.length - 1;

function chunked(events: readonly JournalEvent[], size: number): JournalEvent[][] {
  if (!Number.isFinite(size)) return [events.slice()];
  const out: JournalEvent[][] = [];
  for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size));
  return out;
}

describe("streamed replay (seeded generated journals)", () => {
  it("folding in chunks of 1, 7, 256 or the whole run gives the one-pass replay", () => {
    const seed = testSeed("replay stream = one pass");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0x7fffffff }), fc.boolean(), fc.integer({ min: 1, max: 64 }), (s, forked, every) => {
        const events = generateRun({ seed: s, faults: 0.2 });
        const fork = forked ? randomFork(events, s) : undefined;
        const whole = createReplay(events, { fork, snapshotEvery: every });
        const plan = fork ? buildForkPlan(whole.events, fork) : null;
        for (const size of CHUNKS) {
          const stream = createReplayStream({ plan }, every);
          const got: ReplayChunk = { events: 0, frames: [], divergences: [], changes: [] };
          let chunks = 0;
          for (const chunk of chunked(whole.events, size)) {
            const out = stream.push(chunk);
            // each chunk reports only what its own events added
            expect(out.frames.every((f) => f.eventIndex >= got.events && f.eventIndex < out.events)).toBe(true);
            got.frames.push(...out.frames);
            got.divergences.push(...out.divergences);
            got.changes.push(...out.changes);
            got.events = out.events;
            chunks++;
          }
          expect(chunks).toBe(Number.isFinite(size) ? Math.ceil(whole.events.length / size) : 1);
          expect(got.events).toBe(whole.events.length);
          expect(got.frames).toEqual(whole.frames);
          expect(got.divergences).toEqual(whole.divergences);
          expect(got.changes).toEqual(whole.changes);
          expect(stream.fidelity()).toEqual({ fidelity: whole.fidelity, bestEffort: whole.bestEffort, reason: whole.bestEffortReason });
          expect(stream.snapshots.length).toBe(Math.ceil(whole.events.length / stream.every));
          // the snapshots a seek starts from: the fold before event k * every, as from scratch
          for (const k of [0, Math.floor(last(stream.snapshots) / 2), stream.snapshots.length - 1])
            expect(canonicalJson(foldToJson(stream.snapshots[k]))).toBe(
              canonicalJson(foldToJson(foldEvents(whole.events, { plan }, k * stream.every))),
            );
        }
      }),
      { seed, numRuns: testRuns(60) },
    );
  });

  it("a growing replay seeks the frames folded so far exactly as the whole replay does", () => {
    const seed = testSeed("growing replay seek");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0x7fffffff }), fc.integer({ min: 1, max: 300 }), fc.nat(10_000), (s, size, pick) => {
        const whole = createReplay(generateRun({ seed: s, faults: 0.2 }), { snapshotEvery: 16 });
        const growing = openReplay(whole.run, { plan: null, snapshotEvery: 16 });
        growing.push(whole.events.slice(0, size));
        const have = growing.replay.frames.length;
        if (have === 0) return;
        const target = pick % have;
        const a = growing.replay.seek(target);
        const b = whole.seek(target);
        expect(a.frame).toEqual(b.frame);
        expect(canonicalJson(a.state)).toBe(canonicalJson(b.state));
        growing.push(whole.events.slice(size));
        expect(growing.replay.frames).toEqual(whole.frames);
        expect(growing.replay.summary()).toEqual(whole.summary());
      }),
      { seed, numRuns: testRuns(60) },
    );
  });

  it("refuses a chunk that goes back or repeats a seq (it would fold another run)", () => {
    const events = orderEvents(generateRun({ seed: 7, faults: 0 }));
    const stream = createReplayStream({ plan: null }, 16);
    stream.push(events.slice(0, 5));
    expect(() => stream.push(events.slice(4, 6))).toThrow(`event seq ${events[4].seq} does not follow seq ${events[4].seq}`);
    // a bad chunk folds none of its events, not the ones before the bad one either
    expect(() => stream.push([events[5], events[7], events[6]])).toThrow(`event seq ${events[6].seq} does not follow seq ${events[7].seq}`);
    expect(stream.events).toBe(5);
    expect(stream.push(events.slice(5)).events).toBe(events.length);
  });
});
