/**
 * The effects fold (lib/semantics/effects.ts): the verdicts behind effect.no-idempotency,
 * effect.retry-after-unknown and effect.duplicate, read by the analyzer and carried by
 * the replay's base evaluation.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/canonical";
import { createAnalyzer, type AnalyzerSnapshot } from "../../lib/analyze";
import { orderEvents } from "../../lib/semantics";
import type { JournalEvent } from "../../lib/journal/types";
import { parseJsonExact } from "../../lib/journal/parse-line";
import { foldEvents } from "../../lib/replay";
import { createRng, generateRun } from "../../lib/replay/testing/journal-generator";
import { EMPTY_EFFECTS, writeCallAt, type EffectFold, type WriteCall } from "../../lib/semantics/effects";
import { PMap } from "../../lib/semantics/pmap";
import { INITIAL_RUN, stepRun, type RunFold, type Verdict } from "../../lib/semantics/run";
import { journal, result, start, writeCall, type Spec } from "../analyze/journal-builder";
import { testRuns, testSeed } from "../replay/seeds";

function fold(events: JournalEvent[], from: RunFold = INITIAL_RUN): { f: RunFold; verdicts: Map<number, Verdict> } {
  let f = from;
  const verdicts = new Map<number, Verdict>();
  for (const e of events) {
    const step = stepRun(f, e);
    f = step.next;
    verdicts.set(e.seq, step.verdict);
  }
  return { f, verdicts };
}

const reconcile = (call: string): Spec => ({ type: "reconcile", data: { call, outcome: "not_applied" } });

function callEffect(v: Verdict | undefined) {
  if (v?.kind !== "tool.call") throw new Error(`not a tool.call verdict: ${v?.kind}`);
  return v.effect;
}

describe("effects fold", () => {
  it("flags a retry after an unknown outcome, with the call it retries", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { amount: 5 }, "k1"),
      result("c1", "timeout"),
      writeCall("c2", "pay", { amount: 5 }, "k2"),
    ]);
    const { f, verdicts } = fold(events);
    expect(callEffect(verdicts.get(3))?.retryOf?.seq).toBe(1);
    expect(writeCallAt(f.effects, 3)?.retryOf).toBe(1);
  });

  it("does not flag a retry when a reconcile for the earlier call comes between", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { amount: 5 }, "k1"),
      result("c1", "unknown"),
      reconcile("c1"),
      writeCall("c2", "pay", { amount: 5 }, "k2"),
    ]);
    const { f, verdicts } = fold(events);
    expect(verdicts.get(3)).toEqual({ kind: "reconcile", call: "c1", of: 1 });
    expect(callEffect(verdicts.get(4))?.retryOf).toBeNull();
    expect(writeCallAt(f.effects, 4)?.retryOf).toBeNull();
  });

  it("applies a result that arrives before its call when the call comes", () => {
    const events = journal([
      start(),
      result("c1", "timeout"),
      writeCall("c1", "pay", { amount: 5 }, "k1"),
      writeCall("c2", "pay", { amount: 5 }),
    ]);
    const { f, verdicts } = fold(events);
    expect(verdicts.get(1)).toMatchObject({ kind: "tool.result", effect: { of: null } });
    expect(writeCallAt(f.effects, 2)?.status).toBe("timeout");
    expect(f.effects.early.size).toBe(0);
    const retry = callEffect(verdicts.get(3));
    expect(retry?.noIdempotencyKey).toBe(true);
    expect(retry?.retryOf?.call).toBe("c1");
  });

  it("an early ok result can reveal a duplicate at the call itself", () => {
    const events = journal([
      start(),
      writeCall("c1", "mail", { to: "a" }),
      result("c1", "ok"),
      result("c2", "ok"),
      writeCall("c2", "mail", { to: "a" }),
    ]);
    const { verdicts } = fold(events);
    const dups = callEffect(verdicts.get(4))?.duplicates ?? [];
    expect(dups.map((d) => [d.later.seq, d.first.seq])).toEqual([[4, 1]]);
  });

  it("two ok writes with the same key and the same externalId are one operation, not duplicates", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { amount: 5 }, "k"),
      result("c1", "ok", { externalId: "x1" }),
      writeCall("c2", "pay", { amount: 5 }, "k"),
      result("c2", "ok", { externalId: "x1" }),
    ]);
    const { f, verdicts } = fold(events);
    expect(verdicts.get(4)).toMatchObject({ kind: "tool.result", effect: { of: 3, duplicates: [] } });
    expect(writeCallAt(f.effects, 3)?.duplicateOf).toBeNull();
  });

  it("two ok writes with the same key and different externalIds are duplicates, learnt at the later result", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { amount: 5 }, "k"),
      result("c1", "ok", { externalId: "x1" }),
      writeCall("c2", "pay", { amount: 5 }, "k"),
      result("c2", "ok", { externalId: "x2" }),
    ]);
    const { f, verdicts } = fold(events);
    expect(callEffect(verdicts.get(3))?.duplicates).toEqual([]);
    const v = verdicts.get(4);
    if (v?.kind !== "tool.result") throw new Error("expected a tool.result verdict");
    expect(v.effect.duplicates.map((d) => [d.later.seq, d.first.seq])).toEqual([[3, 1]]);
    expect(writeCallAt(f.effects, 3)?.duplicateOf).toBe(1);
    expect(writeCallAt(f.effects, 1)?.duplicateOf).toBeNull();
  });

  it("groups by canonical args: key order does not matter, other args do", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { a: 1, b: 2 }, "k1"),
      result("c1", "unknown"),
      writeCall("c2", "pay", { b: 2, a: 1 }, "k2"),
      writeCall("c3", "pay", { a: 1, b: 3 }, "k3"),
    ]);
    const { verdicts } = fold(events);
    expect(callEffect(verdicts.get(3))?.retryOf?.seq).toBe(1);
    expect(callEffect(verdicts.get(4))?.retryOf).toBeNull();
  });

  it("is immutable: an older fold is unchanged by later steps", () => {
    const events = journal([start(), writeCall("c1", "pay", { amount: 5 }, "k1"), result("c1", "unknown"), reconcile("c1")]);
    const { f: mid } = fold(events.slice(0, 3));
    const before = canonicalJson(effectsJson(mid.effects));
    fold(events.slice(3), mid);
    expect(canonicalJson(effectsJson(mid.effects))).toBe(before);
    expect(writeCallAt(mid.effects, 1)?.reconciled).toBe(false);
  });

  it("the replay's base evaluation carries the effect verdicts", () => {
    const events = journal([
      start(),
      writeCall("c1", "pay", { amount: 5 }, "k1"),
      result("c1", "timeout"),
      writeCall("c2", "pay", { amount: 5 }, "k2"),
    ]);
    const replayed = foldEvents(events, { plan: null });
    expect(writeCallAt(replayed.base.effects, 3)?.retryOf).toBe(1);
  });
});

function effectsJson(fx: EffectFold) {
  const sorted = <V>(m: PMap<V>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    calls: sorted(fx.calls).map(([k, c]) => [k, { ...c }] as [string, WriteCall]),
    groups: sorted(fx.groups).map(([k, v]) => [k, [...v]]),
    callIds: sorted(fx.callIds),
    early: sorted(fx.early).map(([k, v]) => [k, { ...v }]),
  };
}

/** The analyzer's fold of the effects, continued from a snapshot taken at `split` (through canonical JSON text). */
function effectsWithRestart(events: JournalEvent[], split: number): Omit<EffectFold, "groups"> {
  let analyzer = createAnalyzer();
  events.forEach((e, i) => {
    if (i === split) analyzer = createAnalyzer(parseJsonExact(canonicalJson(analyzer.snapshot())) as AnalyzerSnapshot);
    analyzer.push(e);
  });
  // The snapshot is the analyzer's whole effect fold; read it back as one.
  const s = analyzer.snapshot();
  return {
    calls: PMap.from(
      s.writeCalls.map(({ unsent, ...r }) => [
        String(r.seq),
        { ...r, sent: unsent !== true, retryOf: r.retryOf ?? null, duplicateOf: r.duplicateOf ?? null },
      ]),
    ),
    callIds: PMap.from(s.callIds),
    early: PMap.from(s.earlyResults),
  };
}

describe("effects fold properties", () => {
  it("effect verdicts folded on from a snapshot equal those folded from scratch", () => {
    const seed = testSeed("effects incremental");
    const rng = createRng(seed);
    for (let i = 0; i < testRuns(60); i++) {
      const events = orderEvents(generateRun({ seed: rng.int(1, 0x7fffffff), faults: 0.3, edges: i % 2 === 0 }));
      const split = rng.int(0, events.length);
      const scratch = fold(events).f.effects;
      const restarted = effectsWithRestart(events, split);
      // Groups are not in the snapshot: each call carries its group.
      const view = (fx: Omit<EffectFold, "groups">) => {
        const j = effectsJson({ ...fx, groups: PMap.empty() });
        return { calls: j.calls, callIds: j.callIds, early: j.early };
      };
      expect(view(restarted), `seed ${seed}, case ${i}, split at ${split}`).toEqual(view(scratch));
    }
  });

  it("the generated journals exercise retries and duplicates", () => {
    // Guards the property above against generators that never reach the effect rules.
    const seed = testSeed("effects coverage");
    const rng = createRng(seed);
    let retries = 0;
    let duplicates = 0;
    for (let i = 0; i < 200; i++) {
      const fx = fold(orderEvents(generateRun({ seed: rng.int(1, 0x7fffffff), faults: 0.3, edges: true }))).f.effects;
      for (const [, c] of fx.calls.entries()) {
        if (c.retryOf !== null) retries++;
        if (c.duplicateOf !== null) duplicates++;
      }
    }
    expect(retries).toBeGreaterThan(0);
    expect(duplicates).toBeGreaterThan(0);
  });
});

describe("persistent map", () => {
  it("agrees with a Map under random sets and deletes, and old versions stay as they were", () => {
    const seed = testSeed("pmap model");
    const rng = createRng(seed);
    let m = PMap.empty<number>();
    const model = new Map<string, number>();
    const kept: Array<[PMap<number>, Map<string, number>]> = [];
    for (let i = 0; i < 5000; i++) {
      const key = `k${rng.int(0, 1500)}`;
      if (rng.chance(0.2)) {
        m = m.delete(key);
        model.delete(key);
      } else {
        m = m.set(key, i);
        model.set(key, i);
      }
      if (i % 500 === 0) kept.push([m, new Map(model)]);
    }
    for (const [pm, mm] of [...kept, [m, model] as [PMap<number>, Map<string, number>]]) {
      expect(pm.size, `seed ${seed}`).toBe(mm.size);
      expect(new Map(pm.entries()), `seed ${seed}`).toEqual(mm);
      for (const [k, v] of mm) expect(pm.get(k)).toBe(v);
    }
    expect(EMPTY_EFFECTS.calls.size).toBe(0);
  });
});
