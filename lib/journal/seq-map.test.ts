import { describe, expect, it } from "vitest";
import { createRng } from "../replay/testing/journal-generator";
import { SeqMap } from "./seq-map";

describe("SeqMap", () => {
  it("behaves as a Map for dense, shuffled, far and negative seqs", () => {
    for (let seed = 1; seed <= 80; seed++) {
      const r = createRng(seed).next;
      // half the seeds start with every seq below a prefix present (a live run's next request)
      const prefix = seed % 2 === 0 ? Math.floor(r() * 3000) : 0;
      const m = seed % 2 === 0 ? SeqMap.withPrefix<string | null>(prefix, null) : new SeqMap<string | null>();
      const ref = new Map<number, string | null>();
      for (let s = 0; s < prefix; s++) ref.set(s, null);
      for (let i = 0; i < 3000; i++) {
        const pick = r();
        // mostly near the end of what is there, sometimes far past it, sometimes negative
        const seq =
          pick < 0.8
            ? Math.floor(r() * (ref.size + 50))
            : pick < 0.9
              ? Math.floor(r() * 1e9)
              : pick < 0.95
                ? ref.size + 1025 + Math.floor(r() * 3000)
                : -Math.floor(r() * 10);
        const value = r() < 0.2 ? null : `h${i}`;
        m.set(seq, value);
        ref.set(seq, value);
        const probe = Math.floor(r() * (ref.size + 2000)) - 5;
        expect(m.size, `seed ${seed} step ${i} size`).toBe(ref.size);
        expect(m.get(probe), `seed ${seed} step ${i} probe ${probe}`).toBe(ref.get(probe));
        expect(m.has(probe)).toBe(ref.has(probe));
      }
      expect(m.size).toBe(ref.size);
      for (const [k, v] of ref) expect(m.get(k)).toBe(v);
    }
  });
});
