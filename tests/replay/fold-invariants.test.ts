/**
 * The replay's defining invariant, on seeded generated journals with and without random
 * forks: stepping to frame N one frame at a time, seeking to N (from the nearest kept
 * snapshot) and folding from scratch give the same fold, the same frame and the same
 * state; and the state the replay shows equals the state rebuilt naively from the events.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/canonical";
import type { JournalEvent } from "../../lib/journal/types";
import { buildForkPlan, createReplay, foldEvents, foldToJson } from "../../lib/replay";
import { generateRun, randomFork } from "../../lib/replay/testing/journal-generator";
import { EMPTY_STATE, nextState, type RunState } from "../../lib/state";
import { testRuns, testSeed } from "./seeds";

function naiveState(events: JournalEvent[], eventIndex: number): RunState {
  let state: RunState = EMPTY_STATE;
  for (let i = 0; i <= eventIndex; i++) state = nextState(state, events[i]).state;
  return state;
}

const genSeed = fc.integer({ min: 1, max: 0x7fffffff });

describe("replay fold invariants (seeded generated journals)", () => {
  it("stepping to frame N equals seeking to N equals folding from scratch, forked or not", () => {
    const seed = testSeed("replay step = seek = fold");
    fc.assert(
      fc.property(genSeed, fc.boolean(), fc.integer({ min: 1, max: 40 }), fc.nat(10_000), (s, forked, every, pick) => {
        const events = generateRun({ seed: s, faults: 0.15 });
        const fork = forked ? randomFork(events, s) : undefined;
        const replay = createReplay(events, { fork, snapshotEvery: every });
        const target = pick % replay.frames.length;
        let view = null;
        for (let i = 0; i <= target; i++) view = replay.step();
        expect(view).not.toBeNull();
        const sought = createReplay(events, { fork, snapshotEvery: every }).seek(target);
        const plan = fork ? buildForkPlan(replay.events, fork) : null;
        const scratch = foldEvents(replay.events, { plan }, replay.frames[target].eventIndex + 1);
        expect(canonicalJson(foldToJson(sought.fold))).toBe(canonicalJson(foldToJson(view!.fold)));
        expect(canonicalJson(foldToJson(scratch))).toBe(canonicalJson(foldToJson(view!.fold)));
        expect(sought.frame).toEqual(replay.frames[target]);
        expect(view!.frame).toEqual(replay.frames[target]);
        expect(canonicalJson(sought.state)).toBe(canonicalJson(view!.state));
        expect(replay.position).toBe(target);
      }),
      { seed, numRuns: testRuns(80) },
    );
  });

  it("folding from scratch to an event reproduces the fold the eager pass kept", () => {
    const seed = testSeed("replay fold from scratch");
    fc.assert(
      fc.property(genSeed, fc.nat(10_000), (s, pick) => {
        const events = generateRun({ seed: s, faults: 0.15 });
        const fork = randomFork(events, s ^ 0x55);
        const replay = createReplay(events, { fork, snapshotEvery: 7 });
        const frame = replay.frames[pick % replay.frames.length];
        const view = replay.viewAt(frame.index);
        const scratch = foldEvents(replay.events, { plan: buildForkPlan(replay.events, fork) }, frame.eventIndex + 1);
        expect(canonicalJson(foldToJson(scratch))).toBe(canonicalJson(foldToJson(view.fold)));
        // and a replay that keeps no snapshot but the initial one agrees too
        const fresh = createReplay(events, { fork, snapshotEvery: 1_000_000 });
        expect(canonicalJson(foldToJson(fresh.viewAt(frame.index).fold))).toBe(canonicalJson(foldToJson(view.fold)));
        expect(view.fold.events).toBe(frame.eventIndex + 1);
      }),
      { seed, numRuns: testRuns(60) },
    );
  });

  it("shows, without a fork, exactly the state rebuilt naively from the events", () => {
    const seed = testSeed("replay state = naive state");
    fc.assert(
      fc.property(genSeed, fc.nat(10_000), (s, pick) => {
        const replay = createReplay(generateRun({ seed: s, faults: 0.15 }), { snapshotEvery: 16 });
        const frame = replay.frames[pick % replay.frames.length];
        expect(canonicalJson(replay.stateAt(frame.index))).toBe(
          canonicalJson(naiveState(replay.events as JournalEvent[], frame.eventIndex)),
        );
      }),
      { seed, numRuns: testRuns(80) },
    );
  });

  it("never shows a recorded event after the fork's first change as anything but stale, blocked or simulated", () => {
    const seed = testSeed("replay stale after divergence");
    fc.assert(
      fc.property(genSeed, (s) => {
        const events = generateRun({ seed: s, faults: 0.15 });
        const replay = createReplay(events, { fork: randomFork(events, s) });
        const first = replay.frames.findIndex((f) => f.stale);
        if (first < 0) return;
        for (const f of replay.frames.slice(first)) {
          expect(f.provenance === "recorded").toBe(false);
          if (f.recorded !== null && f.provenance !== "simulated") expect(f.stale).toBe(true);
        }
      }),
      { seed, numRuns: testRuns(80) },
    );
  });

  it("blocks every write tool call and substitutes every recorded tool result, forked or not", () => {
    const seed = testSeed("replay blocks writes");
    fc.assert(
      fc.property(genSeed, fc.boolean(), (s, forked) => {
        const events = generateRun({ seed: s, faults: 0.15 });
        const replay = createReplay(events, { fork: forked ? randomFork(events, s) : undefined });
        for (const f of replay.frames) {
          if (f.event.type === "tool.call" && f.event.data.effect === "write") expect(f.provenance).toBe("blocked");
          if (f.event.type === "tool.result" && f.provenance !== "simulated") expect(f.substituted).toBe(true);
        }
      }),
      { seed, numRuns: testRuns(60) },
    );
  });
});

describe("replay cursor", () => {
  it("walks every frame with step() and stops at the end", () => {
    const replay = createReplay(generateRun({ seed: 3, faults: 0 }), { snapshotEvery: 5 });
    let n = 0;
    while (replay.step()) n++;
    expect(n).toBe(replay.frames.length);
    expect(replay.step()).toBeNull();
  });

  it("seeks backwards and forwards, and refuses a frame outside the stream", () => {
    const replay = createReplay(generateRun({ seed: 4, faults: 0.1 }), { snapshotEvery: 3 });
    const last = replay.frames.length - 1;
    expect(replay.seek(last).frame.index).toBe(last);
    expect(replay.seek(0).frame.index).toBe(0);
    expect(replay.step()?.frame.index).toBe(1);
    expect(() => replay.seek(last + 1)).toThrow(RangeError);
    expect(() => replay.stateAt(-1)).toThrow(RangeError);
  });

  it("finds the first frame of a seq, and -1 for a seq the run does not have", () => {
    const replay = createReplay(generateRun({ seed: 5, faults: 0 }));
    expect(replay.frameIndexOfSeq(0)).toBe(0);
    expect(replay.frameIndexOfSeq(999_999)).toBe(-1);
  });
});
