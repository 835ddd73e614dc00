/**
 * The compare worker aligns projected events (lib/compare/projection.ts: the fields the
 * alignment reads, digests for what it only compares), page by page, never the whole
 * events: the alignment must be exactly the one of the whole events.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clone, EXAMPLES, load, resequence } from "./examples";
import { alignRuns, changedFields, type Alignment, type CompareEvent } from "../../lib/compare";
import { alignProjected, changedFieldsOf, projectRun, RunProjector } from "../../lib/compare/projection";
import { createRng, generateRun, type Rng } from "../../lib/replay/testing/journal-generator";

/** Projected as the worker does: pushed one event at a time into a projector per run. */
function projectedAlignment(a: CompareEvent[], b: CompareEvent[], options = {}): Alignment {
  const pa = new RunProjector();
  const pb = new RunProjector();
  for (const e of clone(a)) pa.push(e);
  for (const e of clone(b)) pb.push(e);
  return alignProjected(pa.done(), pb.done(), options);
}

function expectSame(a: CompareEvent[], b: CompareEvent[], options = {}) {
  const whole = alignRuns(a, b, options);
  const projected = projectedAlignment(a, b, options);
  expect(projected.rows).toEqual(whole.rows);
  expect(projected.counts).toEqual(whole.counts);
  expect(projected.segments).toEqual(whole.segments);
  expect(projected.firstDivergence).toEqual(whole.firstDivergence);
  expect(projected.firstMeaningful).toEqual(whole.firstMeaningful);
  expect(projected.approximate).toEqual(whole.approximate);
  return whole;
}

/** What each type's events carry that a mutation may change (arguments, outcomes, tools, text). */
function mutate(e: CompareEvent, rng: Rng, seed: number): CompareEvent {
  const data = clone(e.data);
  switch (rng.int(0, 5)) {
    case 0:
      if (data.args && typeof data.args === "object") (data.args as Record<string, unknown>).changed = seed;
      else data.text = `changed ${seed}`;
      break;
    case 1:
      if (typeof data.status === "string") data.status = rng.pick(["ok", "timeout", "error", "unknown"]);
      else data.outcome = rng.pick(["succeeded", "failed"]);
      break;
    case 2:
      if (typeof data.tool === "string") data.tool = rng.pick(["lookup_order", "issue_refund", "send_email"]);
      else data.action = rng.pick(["stop", "continue"]);
      break;
    case 3: {
      const output = data.output as { toolCalls?: Array<{ args?: Record<string, unknown> }> } | undefined;
      if (output?.toolCalls?.[0]) output.toolCalls[0].args = { ...output.toolCalls[0].args, amount: rng.int(1, 9) };
      else data.effect = rng.pick(["read", "write"]);
      break;
    }
    case 4:
      data.latencyMs = rng.int(1, 99); // never compared
      break;
    default:
      data.mutated = { seed, at: [rng.int(0, 9), null, "x"] };
  }
  return { ...e, data };
}

/** b: a with events deleted, mutated and inserted (seeded). */
function mutated(a: CompareEvent[], seed: number, rate = 1): CompareEvent[] {
  const rng = createRng(seed);
  const b: CompareEvent[] = [];
  for (const e of a) {
    const r = rng.next();
    if (r < 0.06 * rate) continue;
    b.push(r < 0.16 * rate ? mutate(e, rng, seed) : e);
    if (rng.chance(0.04 * rate)) b.push({ seq: -1, type: "note", step: e.step, data: { text: `inserted ${seed}` } });
  }
  return resequence(b);
}

const SEEDS = [1, 2, 3, 7, 42, 1107, 20261107, 99991];

describe("alignProjected: the alignment of the whole events", () => {
  it.each(SEEDS)("seed %i: two generated runs of one workflow", (seed) => {
    console.log(`projection generated pair seed ${seed}`);
    const a = generateRun({ seed, run: "a", events: 600 }) as unknown as CompareEvent[];
    const b = generateRun({ seed: seed + 1, run: "b", events: 600 }) as unknown as CompareEvent[];
    expectSame(a, b);
  });

  it.each(SEEDS)("seed %i: a generated run and its mutation, exact and banded", (seed) => {
    console.log(`projection mutated pair seed ${seed}`);
    const a = generateRun({ seed, run: "a", events: 800, edges: true }) as unknown as CompareEvent[];
    const whole = expectSame(a, mutated(a, seed));
    expect(whole.counts.changed + whole.counts["only-a"] + whole.counts["only-b"]).toBeGreaterThan(0);
    expectSame(a, mutated(a, seed * 3, 0.2));
    expectSame(a, mutated(a, seed), { budget: { maxCells: 0, maxEdits: 0, window: 16 } });
  });

  it("every example journal against each other of its workflow and against itself after a prompt change", () => {
    const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".jsonl"));
    const runs = files.map(load);
    for (let i = 0; i < runs.length; i++) {
      expectSame(runs[i], clone(runs[i]));
      for (let j = 0; j < runs.length; j++) if (files[i].split("-")[1] === files[j].split("-")[1]) expectSame(runs[i], runs[j]);
    }
    // an argument each run took from its own data is the same argument (meaningful.ts origins)
    const a = load("00-refund-clean.jsonl");
    const b = clone(a);
    const response = b.find((e) => e.seq === 15)!;
    (response.data.output as { toolCalls: Array<{ args: Record<string, unknown> }> }).toolCalls[0].args.amountCents = 2000;
    (b.find((e) => e.seq === 18)!.data.args as Record<string, unknown>).amountCents = 2000;
    const whole = expectSame(a, b);
    expect(whole.firstMeaningful?.reason).toBe("the model asked for issue_refund with argument amountCents 4599 → 2000");
  });

  it("keeps no payload: results, messages and content are gone, what is compared is a digest", () => {
    const a = load("00-refund-clean.jsonl");
    const { events } = projectRun(a);
    a.forEach((e, i) => {
      for (const k of ["result", "messages", "content", "input", "documents", "state", "patch", "versions"])
        if (e.data[k] !== undefined) expect(events[i].data[k]).toBeUndefined();
    });
    // a value with no canonical form differs even from itself, as in changedFields
    const odd: CompareEvent = { seq: 0, type: "note", data: { text: Number.NaN } };
    const p = projectRun([odd]);
    expect(changedFieldsOf(p, 0, p, 0)).toEqual(changedFields(odd, odd));
    expect(changedFields(odd, odd)).toEqual(["text"]);
  });
});
