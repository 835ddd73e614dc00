/**
 * The exact longest common subsequence behind the compare page's alignment: whichever of
 * its two algorithms runs (Myers' diff within an edit budget, or the bit-parallel LCS past
 * it), the pairs are as many as the textbook table's LCS, on equal keys, in order.
 */
import { describe, expect, it } from "vitest";
import { bitParallelLcs, longestCommonSubsequence, type MatchedPair } from "../../lib/compare/lcs";
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

function expectLcs(pairs: MatchedPair[], a: readonly string[], b: readonly string[], label: string) {
  for (let k = 0; k < pairs.length; k++) {
    const [x, y] = pairs[k];
    expect(a[x], label).toBe(b[y]);
    if (k > 0) {
      expect(x, label).toBeGreaterThan(pairs[k - 1][0]);
      expect(y, label).toBeGreaterThan(pairs[k - 1][1]);
    }
  }
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
