import fc from "fast-check";
import jsonPatch, { type Operation } from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { applyPatch, EMPTY_STATE_HASH, nextState, type RunState } from "./index";
import { canonicalJson, hashOf } from "../canonical";
import type { JournalEvent } from "../journal/types";

/** fast-json-patch's own strict, non-mutating apply: the reference for ordinary JSON. */
function reference(state: unknown, patch: Operation[]): { ok: boolean; state: unknown } {
  try {
    if (jsonPatch.validate(patch, state)) return { ok: false, state };
    return { ok: true, state: jsonPatch.applyPatch(state, patch, true, false, true).newDocument };
  } catch {
    return { ok: false, state };
  }
}

const key = fc.constantFrom("a", "b", "c", "items", "x~y", "p/q");
const pointer = fc
  .array(fc.oneof(key, fc.constantFrom("0", "1", "-")), { minLength: 1, maxLength: 3 })
  .map((ts) => "/" + ts.map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1")).join("/"));
const op: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ op: fc.constant("add" as const), path: pointer, value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ op: fc.constant("replace" as const), path: pointer, value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ op: fc.constant("remove" as const), path: pointer }),
  fc.record({ op: fc.constant("move" as const), from: pointer, path: pointer }),
  fc.record({ op: fc.constant("copy" as const), from: pointer, path: pointer }),
  fc.record({ op: fc.constant("test" as const), path: pointer, value: fc.jsonValue({ maxDepth: 1 }) }),
) as fc.Arbitrary<Operation>;

describe("applyPatch", () => {
  it("agrees with fast-json-patch's strict apply on random states and patches, and never mutates its input (seeded)", () => {
    const seed = 4242;
    console.log(`json-patch fuzz seed ${seed}`);
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue({ maxDepth: 3 })), fc.array(op, { maxLength: 6 }), (state, patch) => {
        const before = canonicalJson(state);
        const mine = applyPatch(state as RunState, patch);
        const ref = reference(state, patch);
        expect(canonicalJson(state)).toBe(before);
        expect(mine.ok).toBe(ref.ok);
        expect(canonicalJson(mine.state)).toBe(canonicalJson(ref.state));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it("treats __proto__, constructor, prototype and other Object.prototype names as plain keys (seeded)", () => {
    // The reference cannot take such keys (it bans some and reads others from the
    // prototype), so it runs on a copy where each is renamed, and its answer is renamed back.
    const risky = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"];
    const renamed = (k: string) => (risky.includes(k) ? `safe-${k}` : k);
    const back = (k: string) => (k.startsWith("safe-") ? k.slice(5) : k);
    const rekey = (v: unknown, f: (k: string) => string): unknown => {
      if (Array.isArray(v)) return v.map((x) => rekey(x, f));
      if (v === null || typeof v !== "object") return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        Object.defineProperty(out, f(k), { value: rekey(x, f), enumerable: true, writable: true, configurable: true });
      return out;
    };
    const rekeyPointer = (p: string, f: (k: string) => string) => (p === "" ? p : "/" + p.slice(1).split("/").map(f).join("/"));
    const rekeyOp = (o: Operation, f: (k: string) => string) =>
      ({
        ...o,
        path: rekeyPointer(o.path, f),
        ...("from" in o ? { from: rekeyPointer(o.from, f) } : {}),
        ...("value" in o ? { value: rekey(o.value, f) } : {}),
      }) as Operation;
    const riskyKey = fc.constantFrom("a", "b", ...risky);
    const riskyPointer = fc
      .array(fc.oneof(riskyKey, fc.constantFrom("0", "-")), { minLength: 1, maxLength: 3 })
      .map((ts) => "/" + ts.join("/"));
    const riskyJson = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: "small" }, fc.integer(), fc.string({ maxLength: 3 }), fc.array(tie("v"), { maxLength: 2 }), tie("o")),
      o: fc.array(fc.tuple(riskyKey, tie("v")), { maxLength: 3 }).map((es) => rekey(Object.fromEntries(es), (k) => k)),
    }));
    const riskyValue = riskyJson.v;
    const riskyOp: fc.Arbitrary<Operation> = fc.oneof(
      fc.record({ op: fc.constant("add" as const), path: riskyPointer, value: riskyValue }),
      fc.record({ op: fc.constant("replace" as const), path: riskyPointer, value: riskyValue }),
      fc.record({ op: fc.constant("remove" as const), path: riskyPointer }),
      fc.record({ op: fc.constant("move" as const), from: riskyPointer, path: riskyPointer }),
      fc.record({ op: fc.constant("copy" as const), from: riskyPointer, path: riskyPointer }),
      fc.record({ op: fc.constant("test" as const), path: riskyPointer, value: riskyValue }),
    ) as fc.Arbitrary<Operation>;
    fc.assert(
      // a state is an object (the library writes silently into a string, which this does not)
      fc.property(riskyJson.o, fc.array(riskyOp, { maxLength: 5 }), (state, patch) => {
        const mine = applyPatch(state as RunState, patch);
        const ref = reference(
          rekey(state, renamed),
          patch.map((o) => rekeyOp(o, renamed)),
        );
        expect(mine.ok).toBe(ref.ok);
        expect(canonicalJson(mine.state)).toBe(canonicalJson(rekey(ref.state, back)));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      }),
      { seed: 1414, numRuns: 3000 },
    );
  });

  it("refuses an operation on a path that does not exist and leaves the state as it was", () => {
    const state = { a: { b: 1 } };
    const r = applyPatch(state, [
      { op: "replace", path: "/a/b", value: 2 },
      { op: "remove", path: "/nope" },
    ]);
    expect(r.ok).toBe(false);
    expect(r.state).toBe(state);
    expect(state).toEqual({ a: { b: 1 } });
  });

  it("keeps integers beyond 2^53 and patches around them (the library's clone would throw)", () => {
    const state = { id: 123456789012345678901234567890n, n: 1 };
    const r = applyPatch(state, [{ op: "replace", path: "/n", value: 2 }]);
    expect(r).toEqual({ ok: true, state: { id: 123456789012345678901234567890n, n: 2 } });
  });

  it("never reaches Object.prototype", () => {
    const r = applyPatch({}, [{ op: "add", path: "/__proto__/polluted", value: true }]);
    expect(r.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("shares untouched subtrees between states", () => {
    const state = { big: { deep: [1, 2, 3] }, small: { v: 1 } };
    const r = applyPatch(state, [{ op: "replace", path: "/small/v", value: 2 }]);
    expect(r.ok && (r.state as typeof state).big).toBe(state.big);
  });
});

describe("nextState", () => {
  const ev = (type: string, data: Record<string, unknown>) =>
    ({ run: "r", seq: 1, ts: "2026-11-07T11:00:01.026Z", type, data }) as unknown as JournalEvent;
  it("rebuilds the example's state hash from a patch, and handles set and checkpoint", () => {
    const s = nextState(
      {},
      ev("state", {
        patch: [
          { op: "add", path: "/status", value: "triage" },
          { op: "add", path: "/order", value: null },
        ],
      }),
    );
    expect(s.ok && hashOf(s.state)).toBe("sha256:a43582ff712609e4e1ac6900420e22ce95fc5f2ec43b41fc5c97cf8da76f671f");
    expect(nextState({ a: 1 }, ev("state", { set: { b: 2 } })).state).toEqual({ b: 2 });
    expect(nextState({ a: 1 }, ev("checkpoint", { id: "c", state: { c: 3 } })).state).toEqual({ c: 3 });
    expect(hashOf({})).toBe(EMPTY_STATE_HASH);
  });
});
