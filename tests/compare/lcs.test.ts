/**
 * The exact longest common subsequence behind the compare page's alignment: whichever of
 * its two algorithms runs (Myers' diff within an edit budget, or the bit-parallel LCS past
 * it), the pairs are as many as the textbook table's LCS, on equal keys, in order. Past
 * the budget, the banded search gives a common subsequence that is as long where it says
 * it is exact, and says when it is not.
 */
import { describe, expect, it } from "vitest";
import { bitParallelLcs, boundedCommonSubsequence, LCS_BUDGET, longestCommonSubsequence, type MatchedPair } from "../../lib/compare/lcs";
import { createRng } from "../../lib/replay/testing/journal-generator";

/** Length of a longest common subsequence, by the textbook table (the oracle). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let x = 1; x <= a.length; x++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let y = 1; y <= b.length; y++) row[y] = a[x - 1] === b[y - 1] ? prev[y - 1] + 1 : Math.max(prev[y], row[y - 1]);
    prev = row;
  }
  return prev[b.length];
}

/** Pairs on equal keys, ascending on both sides. */
function expectCommon(pairs: MatchedPair[], a: readonly string[], b: readonly string[], label: string) {
  for (let k = 0; k < pairs.length; k++) {
    const [x, y] = pairs[k];
    expect(a[x], label).toBe(b[y]);
    if (k > 0) {
      expect(x, label).toBeGreaterThan(pairs[k - 1][0]);
      expect(y, label).toBeGreaterThan(pairs[k - 1][1]);
    }
  }
}

function expectLcs(pairs: MatchedPair[], a: readonly string[], b: readonly string[], label: string) {
  expectCommon(pairs, a, b, label);
  expect(pairs.length, label).toBe(lcsLength(a, b));
}

const algorithms = { longestCommonSubsequence, bitParallelLcs } as const;

describe.each(Object.keys(algorithms) as Array<keyof typeof algorithms>)("%s", (name) => {
  const lcs = algorithms[name];

  it.each([3, 17, 2026, 40961])("seed %i: as many pairs as the textbook LCS, on equal keys, in order", (seed) => {
    console.log(`${name} seed ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 40; round++) {
      // alphabets from 2 keys (every mask dense) to 60 (most rare), lengths past one 32-bit word and past the table's size
      const alphabet = [2, 3, 6, 20, 60][round % 5];
      const seq = () => Array.from({ length: rng.int(0, 300) }, () => `k${rng.int(0, alphabet - 1)}`);
      const a = seq();
      const b = rng.chance(0.5) ? seq() : a.map((k) => (rng.chance(0.3) ? `k${rng.int(0, alphabet - 1)}` : k));
      expectLcs(lcs(a, b), a, b, `seed ${seed} round ${round}: ${a.join(",")} / ${b.join(",")}`);
    }
  });

  it("two runs where every other key changed to one the other run has elsewhere", () => {
    const a = Array.from({ length: 900 }, (_v, i) => `t${i % 35}`);
    const b = a.map((k, i) => (i % 2 ? `t${(i + 1) % 35}` : k));
    expectLcs(lcs(a, b), a, b, "every other changed");
  });
});

describe("longestCommonSubsequence", () => {
  it("pairs a common prefix and suffix with their counterparts", () => {
    expect(longestCommonSubsequence(["s", "a", "x", "e"], ["s", "a", "y", "e"])).toEqual([
      [0, 0],
      [1, 1],
      [3, 3],
    ]);
  });
});

/** Budgets that send any two sides that differ at all to the banded search, with this window. */
const banded = (window: number) => ({ maxCells: 0, maxEdits: 0, window });

/** b: a with some keys deleted, some replaced by keys a never has, some such keys inserted. */
function sparseEdits(rng: ReturnType<typeof createRng>, a: readonly string[], rate: number): string[] {
  const b: string[] = [];
  for (const k of a) {
    const r = rng.next();
    if (r < rate / 3) continue;
    b.push(r < (2 * rate) / 3 ? `new${rng.int(0, 9)}` : k);
    if (rng.chance(rate / 3)) b.push(`new${rng.int(0, 9)}`);
  }
  return b;
}

describe("boundedCommonSubsequence", () => {
  it.each([3, 17, 2026])("seed %i: within the budget it is the exact LCS and says so", (seed) => {
    console.log(`boundedCommonSubsequence exact seed ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 40; round++) {
      const alphabet = [2, 6, 60][round % 3];
      const a = Array.from({ length: rng.int(0, 300) }, () => `k${rng.int(0, alphabet - 1)}`);
      const b = a.map((k) => (rng.chance(0.3) ? `k${rng.int(0, alphabet - 1)}` : k));
      const { pairs, approximate } = boundedCommonSubsequence(a, b, LCS_BUDGET);
      expectLcs(pairs, a, b, `seed ${seed} round ${round}`);
      expect(approximate).toBeNull();
    }
  });

  it.each([5, 11, 31337])("seed %i: the banded search with a window holding both sides is exact and says so", (seed) => {
    console.log(`boundedCommonSubsequence one-window seed ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 40; round++) {
      const alphabet = [2, 3, 6, 20, 60][round % 5];
      const seq = () => Array.from({ length: rng.int(1, 300) }, () => `k${rng.int(0, alphabet - 1)}`);
      const a = seq();
      const b = rng.chance(0.5) ? seq() : a.map((k) => (rng.chance(0.3) ? `k${rng.int(0, alphabet - 1)}` : k));
      const { pairs, approximate } = boundedCommonSubsequence(a, b, banded(300));
      expectLcs(pairs, a, b, `seed ${seed} round ${round}`);
      expect(approximate).toBeNull();
    }
  });

  it.each([7, 42, 1107, 99991])(
    "seed %i: runs that differ by sparse edits, banded in windows far shorter than they are: as long as the exact LCS, and proven so",
    (seed) => {
      console.log(`boundedCommonSubsequence sparse seed ${seed}`);
      const rng = createRng(seed);
      for (let round = 0; round < 20; round++) {
        const alphabet = [3, 8, 40][round % 3];
        const a = Array.from({ length: rng.int(200, 600) }, () => `k${rng.int(0, alphabet - 1)}`);
        const b = sparseEdits(rng, a, 0.1);
        const { pairs, approximate } = boundedCommonSubsequence(a, b, banded(32));
        expectLcs(pairs, a, b, `seed ${seed} round ${round}`);
        expect(approximate, `seed ${seed} round ${round}`).toBeNull();
        // the same pairs count as the exact path's, which is what the alignment ran before
        expect(pairs.length).toBe(longestCommonSubsequence(a, b).length);
      }
    },
  );

  it.each([1, 2, 3])("seed %i: runs that differ in many places: a common subsequence near the longest, flagged approximate", (seed) => {
    console.log(`boundedCommonSubsequence many seed ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 10; round++) {
      // a repeating loop of a few keys, half of them changed to other keys of the loop
      const a = Array.from({ length: 1500 }, (_v, i) => `t${i % 12}`);
      const b = a.map((k) => (rng.chance(0.5) ? `t${rng.int(0, 11)}` : k));
      const { pairs, approximate } = boundedCommonSubsequence(a, b, banded(64));
      const exact = lcsLength(a, b);
      expectCommon(pairs, a, b, `seed ${seed} round ${round}`);
      expect(approximate, `seed ${seed} round ${round}`).not.toBeNull();
      expect(approximate!.window).toBe(64);
      expect(approximate!.paired).toBe(pairs.length - approximate!.a[0] - (a.length - approximate!.a[1]));
      expect(approximate!.atMost + pairs.length - approximate!.paired).toBeGreaterThanOrEqual(exact);
      expect(pairs.length).toBeLessThanOrEqual(exact);
      expect(pairs.length / exact, `seed ${seed} round ${round}`).toBeGreaterThan(0.95);
    }
  });

  it("at the default budget, two 70,000-key sides that differ in every other key are banded, and say so", () => {
    // past maxCells (70,000² > 2³²) and past maxEdits: what two long, very different runs get
    const a = Array.from({ length: 70_000 }, (_v, i) => `t${i % 35}`);
    const b = a.map((k, i) => (i % 2 ? `t${(i * 3 + 1) % 35}` : k));
    const { pairs, approximate } = boundedCommonSubsequence(a, b);
    expectCommon(pairs, a, b, "70,000");
    expect(approximate).toMatchObject({ window: LCS_BUDGET.window, paired: pairs.length - 1 });
    expect(pairs.length).toBeGreaterThanOrEqual(35_000);
  });

  it("follows a shift of up to half a window between the runs, whatever its length", () => {
    // b has 20 keys a has elsewhere inserted early: every later pair is 20 keys further in b
    const a = Array.from({ length: 2000 }, (_v, i) => `t${i % 9}`);
    const b = [...a.slice(0, 100), ...Array.from({ length: 20 }, (_v, i) => `t${(i * 4) % 9}`), ...a.slice(100)];
    const { pairs } = boundedCommonSubsequence(a, b, banded(64));
    expectLcs(pairs, a, b, "shifted");
  });
});
