import { describe, expect, it } from "vitest";
import { createRng } from "../replay/testing/journal-generator";
import { msOf } from "./epoch-ms";

describe("msOf", () => {
  it("equals Date.parse on timestamps of one hour, across hours and days, and on odd ones", () => {
    const rng = createRng(7);
    const r = (n: number) => rng.int(0, n - 1);
    const pad = (v: number, w = 2) => String(v).padStart(w, "0");
    const samples: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const day = `2026-${pad(1 + r(12))}-${pad(1 + r(31))}`;
      samples.push(`${day}T${pad(r(25))}:${pad(r(61))}:${pad(r(61))}.${pad(r(1000), 3)}Z`);
      // runs of the same hour, the case the shortcut is for
      const hour = `${day}T${pad(r(24))}`;
      for (let k = 0; k < 5; k++) samples.push(`${hour}:${pad(r(60))}:${pad(r(60))}.${pad(r(1000), 3)}Z`);
    }
    samples.push(
      "2026-11-07T24:00:00.000Z",
      "2026-11-07T24:30:00.000Z",
      "2026-11-07T11:00:01Z",
      "2026-11-07T11:00:01.5+02:00",
      "2026-02-30T10:00:00.000Z",
      "2026-11-07T11:00:60.000Z",
      "not a time",
    );
    for (const ts of samples) {
      const want = Date.parse(ts);
      expect(msOf(ts), ts).toBe(Number.isFinite(want) ? want : 0);
    }
  });
});
