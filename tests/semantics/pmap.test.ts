import { describe, expect, it } from "vitest";
import { createRng } from "../../lib/replay/testing/journal-generator";
import { PMap } from "../../lib/semantics/pmap";
import { testSeed } from "../replay/seeds";

/** A map's entries in its order. */
const entriesOf = (m: PMap<number>) => [...m.entries()];

describe("PMap", () => {
  it("every map keeps its entries, whichever older map later changes are made to (seeded)", () => {
    const seed = testSeed("pmap versions");
    const rng = createRng(seed);
    for (let round = 0; round < 40; round++) {
      // versions[i] and the reference copy it must equal; changes go to the newest map
      // mostly, and now and then to an older one (a replay seeking, a fork branching off)
      const versions: PMap<number>[] = [PMap.empty()];
      const refs: Map<string, number>[] = [new Map()];
      for (let op = 0; op < 200; op++) {
        const from = rng.int(0, 9) < 8 ? versions.length - 1 : rng.int(0, versions.length - 1);
        const key = `k${rng.int(0, 30)}`;
        const ref = new Map(refs[from]);
        let next: PMap<number>;
        if (rng.int(0, 3) === 0) {
          next = versions[from].delete(key);
          ref.delete(key);
        } else {
          const value = rng.int(0, 5);
          next = versions[from].set(key, value);
          ref.set(key, value);
        }
        versions.push(next);
        refs.push(ref);
      }
      // every version at once, so that a failure shows which one
      const view = (get: (k: string) => number | undefined, has: (k: string) => boolean, entries: [string, number][], size: number) => ({
        entries: entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        size,
        lookups: Array.from({ length: 31 }, (_, k) => [get(`k${k}`) ?? null, has(`k${k}`)]),
      });
      const got = versions.map((m) =>
        view(
          (k) => m.get(k),
          (k) => m.has(k),
          entriesOf(m),
          m.size,
        ),
      );
      const want = refs.map((r) =>
        view(
          (k) => r.get(k),
          (k) => r.has(k),
          [...r],
          r.size,
        ),
      );
      expect(got, `seed ${seed}, round ${round}`).toEqual(want);
    }
  });

  it("lists entries in the order their keys were first set, however the map was reached", () => {
    const a = PMap.empty<number>().set("b", 1).set("a", 2).set("c", 3);
    const later = a.set("d", 4).delete("a").set("a", 5);
    // the same changes made to a copy branched off `a` (a change to an older map copies it)
    const branched = a.set("x", 0).delete("x");
    const again = a.set("d", 4).delete("a").set("a", 5);
    expect([...later.entries()]).toEqual([...again.entries()]);
    expect([...later.entries()].map(([k]) => k)).toEqual(["b", "a", "c", "d"]);
    expect([...a.entries()]).toEqual([
      ["b", 1],
      ["a", 2],
      ["c", 3],
    ]);
    expect([...branched.entries()]).toEqual([...a.entries()]);
    expect(a.set("b", 1)).toBe(a);
    expect(a.delete("zz")).toBe(a);
  });
});
