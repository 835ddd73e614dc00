/**
 * Run-to-run alignment: two runs of one workflow line up by step and by call, so a change
 * shows as the rows it touches and never shifts every later row.
 */
import { describe, expect, it } from "vitest";
import { clone, load, resequence } from "./examples";
import { canonicalJson } from "../../lib/canonical";
import { alignRuns, alignSequences, comparable, segmentsOf, type Alignment, type CompareEvent } from "../../lib/compare";
import { createRng } from "../../lib/replay/testing/journal-generator";

/** Rows that are not `same`, as "status a-seq/b-seq". */
const diffs = (al: Alignment, a: CompareEvent[], b: CompareEvent[]) =>
  al.rows
    .filter((r) => r.status !== "same")
    .map((r) => `${r.status} ${r.a === null ? "-" : a[r.a].seq}/${r.b === null ? "-" : b[r.b].seq}`);

/** 00-refund-clean after a prompt change: the model refunds a different amount from seq 15 on. */
function promptChanged(): CompareEvent[] {
  const b = clone(load("00-refund-clean.jsonl"));
  const versions = b[0].data.versions as { prompts: Record<string, string> };
  versions.prompts.system = "v4";
  const response = b.find((e) => e.seq === 15)!;
  const call = (response.data.output as { toolCalls: Array<{ args: Record<string, unknown> }> }).toolCalls[0];
  call.args.amountCents = 2000;
  (b.find((e) => e.seq === 18)!.data.args as Record<string, unknown>).amountCents = 2000;
  return b;
}

describe("alignRuns", () => {
  it("aligns a run with itself: every row same, no divergence", () => {
    const a = load("00-refund-clean.jsonl");
    const al = alignRuns(a, clone(a));
    expect(al.counts).toEqual({ same: a.length, changed: 0, "only-a": 0, "only-b": 0 });
    expect(al.firstDivergence).toBeNull();
  });

  it("ignores what differs between any two runs: call ids, timestamps, hashes, latencies", () => {
    const a = load("00-refund-clean.jsonl");
    const b = clone(a).map((e) => {
      const data = { ...e.data };
      if (typeof data.call === "string") data.call = `other-${data.call}`;
      if (typeof data.latencyMs === "number") data.latencyMs += 100;
      if (typeof data.approval === "string") data.approval = `x-${data.approval}`;
      return { ...e, ts: "2027-01-01T00:00:00.000Z", hash: "sha256:00", data };
    });
    expect(alignRuns(a, b).counts.same).toBe(a.length);
  });

  it("after a prompt change, the first divergence is the model response that changed, and the call it made", () => {
    const a = load("00-refund-clean.jsonl");
    const b = promptChanged();
    const al = alignRuns(a, b);
    expect(diffs(al, a, b)).toEqual(["changed 15/15", "changed 18/18"]);
    expect(al.firstDivergence).toMatchObject({
      aSeq: 15,
      bSeq: 15,
      status: "changed",
      reason: "model.response: output changed",
      segment: "refund",
    });
    expect(al.rows[al.firstDivergence!.row].reason).toBe("model.response: output changed");
    expect(al.rows.find((r) => r.a !== null && a[r.a].seq === 18)?.reason).toBe("tool.call: args changed");
  });

  it("an extra call in one run is one only-b row; later events still pair with their counterparts", () => {
    const a = load("00-refund-clean.jsonl");
    const b = clone(a);
    const at = b.findIndex((e) => e.seq === 9); // after lookup_order's result, same step
    b.splice(at, 0, {
      seq: -1,
      type: "tool.call",
      step: b[at].step,
      data: { call: "extra", tool: "kb_search", args: { q: "x" }, effect: "read" },
    });
    const bb = resequence(b);
    const al = alignRuns(a, bb);
    expect(diffs(al, a, bb)).toEqual(["only-b -/9"]);
    expect(al.firstDivergence).toMatchObject({ aSeq: null, bSeq: 9, status: "only-b" });
    expect(al.counts).toMatchObject({ same: a.length, "only-b": 1 });
  });

  it("a call whose tool changed pairs with the call it replaced, as changed", () => {
    const a = load("00-refund-clean.jsonl");
    const b = clone(a);
    const call = b.find((e) => e.type === "tool.call" && e.data.tool === "lookup_order")!;
    call.data.tool = "find_order";
    const al = alignRuns(a, b);
    const row = al.rows.find((r) => r.a !== null && a[r.a].seq === call.seq)!;
    expect(row).toMatchObject({ status: "changed", reason: "tool.call: tool changed" });
    expect(b[row.b!].seq).toBe(call.seq);
  });

  it("a renamed step is still compared with its counterpart", () => {
    const a = load("00-refund-clean.jsonl");
    const b = clone(a);
    const start = b.find((e) => e.type === "step.start" && e.data.name === "refund")!;
    start.data.name = "refund-v2";
    const al = alignRuns(a, b);
    expect(diffs(al, a, b)).toEqual([`changed ${start.seq}/${start.seq}`]);
    expect(al.segments.map((s) => `${s.a?.label}|${s.b?.label}`)).toContain("refund|refund-v2");
  });

  it("a run that loops one step more: the extra step's events are only-a, the steps around it pair", () => {
    const a = load("02-codefix-clean.jsonl");
    const steps = segmentsOf(a).filter((s) => s.stepId !== null);
    const drop = steps[1];
    const b = resequence(a.filter((_e, i) => i < drop.start || i >= drop.end));
    const al = alignRuns(a, b);
    const onlyA = al.rows.filter((r) => r.status === "only-a").map((r) => a[r.a!].seq);
    expect(onlyA).toEqual(a.slice(drop.start, drop.end).map((e) => e.seq));
    expect(al.counts.changed).toBe(0);
  });

  it("segments: steps by their step.start name, run-level stretches between them", () => {
    const segs = segmentsOf(load("00-refund-clean.jsonl"));
    expect(segs.map((s) => `${s.label}:${s.start}-${s.end}`)).toEqual([
      "(run):0-3",
      "triage:3-12",
      "refund:12-23",
      "notify:23-32",
      "(run):32-33",
    ]);
    expect(segs[0].stepId).toBeNull();
    expect(segs[1].stepId).toBe("s1");
  });
});

describe("alignRuns, seeded mutations", () => {
  const base = load("00-refund-clean.jsonl");
  const seeds = [1, 2, 3, 7, 42, 1107, 20261107, 99991];

  it.each(seeds)("seed %i: every event appears once and in order; deletions alone keep every event of b same", (seed) => {
    console.log(`alignRuns fuzz seed ${seed}`);
    const rng = createRng(seed);
    const a = base;
    // b: a with some events deleted, some changed, some inserted
    const b: CompareEvent[] = [];
    const deletedOnly: CompareEvent[] = [];
    for (const e of a) {
      const r = rng.next();
      if (r < 0.12) continue;
      deletedOnly.push(e);
      if (r < 0.2) b.push({ ...e, data: { ...e.data, mutated: seed } });
      else b.push(e);
      if (rng.chance(0.08)) b.push({ seq: -1, type: "note", step: e.step, data: { text: `inserted ${seed}` } });
    }
    for (const [x, y] of [
      [a, resequence(b)],
      [a, resequence(deletedOnly)],
    ] as const) {
      const al = alignRuns(x, y);
      const as = al.rows.filter((r) => r.a !== null).map((r) => r.a);
      const bs = al.rows.filter((r) => r.b !== null).map((r) => r.b);
      expect(as).toEqual(x.map((_e, i) => i));
      expect(bs).toEqual(y.map((_e, i) => i));
      for (const r of al.rows.filter((r) => r.status === "same"))
        expect(canonicalJson(comparable(x[r.a!]))).toBe(canonicalJson(comparable(y[r.b!])));
    }
    const al = alignRuns(a, resequence(deletedOnly));
    expect(al.counts.same).toBe(deletedOnly.length);
    expect(al.counts["only-a"]).toBe(a.length - deletedOnly.length);
  });
});

describe("alignRuns past its budget (the banded search)", () => {
  const base = load("00-refund-clean.jsonl");
  /** Sends any stretch that differs at all to the banded search, with this window. */
  const banded = (window: number) => ({ budget: { maxCells: 0, maxEdits: 0, window } });
  const coversBoth = (al: Alignment, x: CompareEvent[], y: CompareEvent[]) => {
    expect(al.rows.filter((r) => r.a !== null).map((r) => r.a)).toEqual(x.map((_e, i) => i));
    expect(al.rows.filter((r) => r.b !== null).map((r) => r.b)).toEqual(y.map((_e, i) => i));
    for (const r of al.rows.filter((r) => r.status === "same"))
      expect(canonicalJson(comparable(x[r.a!]))).toBe(canonicalJson(comparable(y[r.b!])));
  };

  /** e with what most types compare (args, text, status, output, messages, content) changed to values no run has. */
  const changedEvent = (e: CompareEvent, seed: number): CompareEvent => ({
    ...e,
    data: {
      ...e.data,
      args: { changed: seed },
      text: `changed ${seed}`,
      status: `changed ${seed}`,
      output: { text: `changed ${seed}` },
      messages: [`changed ${seed}`],
      content: `changed ${seed}`,
    },
  });

  it.each([1, 2, 3, 7, 42, 1107, 20261107, 99991])(
    "seed %i: on runs it aligns exactly, the same alignment as the exact search, and no notice",
    (seed) => {
      console.log(`alignRuns banded seed ${seed}`);
      const rng = createRng(seed);
      // a: the refund run three times over (steps and all), b: it with events deleted, changed and inserted
      const a = resequence([...base, ...clone(base), ...clone(base)]);
      const b: CompareEvent[] = [];
      for (const e of a) {
        const r = rng.next();
        if (r < 0.1) continue;
        b.push(r < 0.18 ? changedEvent(e, seed) : e);
        if (rng.chance(0.06)) b.push({ seq: -1, type: "note", step: e.step, data: { text: `inserted ${seed}` } });
      }
      const y = resequence(b);
      const exact = alignRuns(a, y);
      const approx = alignRuns(a, y, banded(4));
      expect(exact.approximate).toBeNull();
      expect(approx.approximate).toBeNull();
      expect(approx.rows).toEqual(exact.rows);
      expect(approx.counts).toEqual(exact.counts);
      expect(approx.firstMeaningful).toEqual(exact.firstMeaningful);
      expect(exact.counts.changed).toBeGreaterThan(0);
    },
  );

  /** n step-less tool calls; with `changed`, every other one's args are ones the other run has elsewhere. */
  const calls = (n: number, changed: boolean): CompareEvent[] =>
    Array.from({ length: n }, (_v, i) => ({
      seq: i,
      type: "tool.call",
      data: { call: `c${i}`, tool: `tool_${i % 5}`, args: { n: changed && i % 2 ? (i + 1) % 7 : i % 7 } },
    }));

  it("two runs that differ in many places: every event once and in order, nearly as many same rows, and a notice that says so", () => {
    const a = calls(3000, false);
    const b = calls(3000, true);
    const exact = alignRuns(a, b);
    const al = alignRuns(a, b, banded(64));
    coversBoth(al, a, b);
    expect(exact.approximate).toBeNull();
    expect(al.approximate).not.toBeNull();
    const note = al.approximate!;
    expect(note.message).toMatch(/^Aligned approximately: [\d,]+ events of run a and [\d,]+ of run b differ in too many places/);
    expect(note.message).toContain("within windows of 64 events");
    expect(note).toMatchObject({ window: 64, segments: [0], steps: false });
    expect(note.eventsA).toBeGreaterThan(2900);
    expect(note.eventsB).toBeGreaterThan(2900);
    // an upper bound: the exact alignment has no more same rows than it allows
    expect(exact.counts.same).toBeLessThanOrEqual(al.counts.same + note.sameAtMost!);
    expect(al.counts.same).toBeLessThanOrEqual(exact.counts.same);
    expect(al.counts.same / exact.counts.same).toBeGreaterThan(0.95);
  });

  it("many steps paired approximately: the notice says it is the steps, and bounds nothing", () => {
    // 400 steps named after a loop of 4; in b every other step is renamed to another name of the loop
    const run = (renamed: boolean): CompareEvent[] => {
      const out: CompareEvent[] = [];
      for (let s = 0; s < 400; s++) {
        const name = `step ${renamed && s % 2 ? (s + 1) % 4 : s % 4}`;
        out.push({ seq: out.length, type: "step.start", step: `s${s}`, data: { name } });
        out.push({ seq: out.length, type: "note", step: `s${s}`, data: { text: `note ${s % 4}` } });
      }
      return out;
    };
    const a = run(false);
    const b = run(true);
    const al = alignRuns(a, b, banded(16));
    coversBoth(al, a, b);
    expect(al.approximate).toMatchObject({ steps: true, sameAtMost: null, window: 16 });
    // the events inside each pair of steps were aligned exactly: only the steps are said to be approximate
    expect(al.approximate!.message).toMatch(/^Aligned approximately: the steps holding [\d,]+ events of run a and [\d,]+ of run b/);
    expect(al.approximate!.message).toContain("paired exactly within windows of 16 steps");
  });
});

describe("alignRuns past its budget, steps and events both", () => {
  it("says both: the events, and the steps too, each with its window", () => {
    // 60 steps named after a loop of 3, each with 40 notes of a loop of 3; b renames every other step and changes every other note
    const run = (changed: boolean): CompareEvent[] => {
      const out: CompareEvent[] = [];
      for (let s = 0; s < 60; s++) {
        out.push({ seq: out.length, type: "step.start", step: `s${s}`, data: { name: `step ${changed && s % 2 ? (s + 1) % 3 : s % 3}` } });
        for (let k = 0; k < 40; k++)
          out.push({ seq: out.length, type: "note", step: `s${s}`, data: { text: `note ${changed && k % 2 ? (k + 1) % 3 : k % 3}` } });
      }
      return out;
    };
    const al = alignRuns(run(false), run(true), { budget: { maxCells: 0, maxEdits: 0, window: 8 } });
    expect(al.approximate).toMatchObject({ steps: true, window: 8 });
    expect(al.approximate!.segments.length).toBeGreaterThan(0);
    expect(al.approximate!.message).toMatch(/^Aligned approximately: [\d,]+ events of run a and [\d,]+ of run b differ/);
    expect(al.approximate!.message).toContain("; the steps were paired approximately too, within windows of 8 steps.");
  });
});

describe("alignSequences", () => {
  it("pairs a longest common subsequence and leaves the rest unpaired, in order", () => {
    expect(alignSequences(["a", "b", "c", "d"], ["a", "c", "x", "d"])).toEqual([
      [0, 0],
      [1, null],
      [2, 1],
      [null, 2],
      [3, 3],
    ]);
  });

  it("offers what lies between two pairs to pairGap", () => {
    const pairs = alignSequences(["a", "b", "d"], ["a", "c", "d"], { pairGap: (ga, gb) => [[ga[0], gb[0]]] });
    expect(pairs).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });

  // The quadratic LCS this replaced paired by position past 4M cells, so one insertion
  // early in a long run shifted every later event into a "changed" or unpaired row.
  it("aligns two 20,000-event runs exactly: each inserted event is an insertion, every other event paired same", () => {
    const n = 20_000;
    const call = (seq: number, i: number): CompareEvent => ({
      seq,
      type: "tool.call",
      data: { call: `c${i}`, tool: `tool_${i % 5}`, args: { n: i % 7 } },
    });
    const a = Array.from({ length: n }, (_v, i) => call(i, i));
    const insertAt = new Set([3_000, 9_999, 17_500]);
    const b: CompareEvent[] = [];
    for (let i = 0; i < n; i++) {
      if (insertAt.has(i)) b.push({ seq: b.length, type: "note", data: { text: `inserted before #${i}` } });
      b.push(call(b.length, i));
    }
    const al = alignRuns(a, b);
    expect(al.counts).toEqual({ same: n, changed: 0, "only-a": 0, "only-b": insertAt.size });
    const inserted = al.rows.filter((r) => r.status === "only-b").map((r) => b[r.b!].data.text);
    expect(inserted).toEqual([...insertAt].map((i) => `inserted before #${i}`));
    for (const r of al.rows) if (r.status === "same") expect(b[r.b!].data.call).toBe(a[r.a!].data.call);
  });

  // Myers' diff alone needs about length × differences steps here; the bit-parallel LCS
  // takes over past its edit budget, and the alignment must stay exact.
  it("aligns two 20,000-event runs where every other event changed: unchanged ones same, changed ones changed", () => {
    const n = 20_000;
    const call = (i: number, arg: number): CompareEvent => ({
      seq: i,
      type: "tool.call",
      data: { call: `c${i}`, tool: `tool_${i % 5}`, args: { n: arg } },
    });
    const a = Array.from({ length: n }, (_v, i) => call(i, i % 7));
    const b = Array.from({ length: n }, (_v, i) => call(i, i % 2 ? 1000 + i : i % 7));
    const al = alignRuns(a, b);
    expect(al.counts).toEqual({ same: n / 2, changed: n / 2, "only-a": 0, "only-b": 0 });
    for (const r of al.rows) expect(r.a).toBe(r.b);
    expect(al.approximate).toBeNull();
  });

  /** Length of a longest common subsequence, by the textbook table (the oracle). */
  const lcsLength = (a: string[], b: string[]) => {
    const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
    for (let x = 1; x <= a.length; x++)
      for (let y = 1; y <= b.length; y++) t[x][y] = a[x - 1] === b[y - 1] ? t[x - 1][y - 1] + 1 : Math.max(t[x - 1][y], t[x][y - 1]);
    return t[a.length][b.length];
  };

  it.each([5, 11, 2026, 31337])("seed %i: pairs only equal keys, in order, as many as a longest common subsequence", (seed) => {
    console.log(`alignSequences LCS seed ${seed}`);
    const rng = createRng(seed);
    for (let round = 0; round < 300; round++) {
      const word = () => Array.from({ length: rng.int(0, 14) }, () => "abcdef"[rng.int(0, rng.int(1, 5))]);
      const a = word();
      const b = word();
      const pairs = alignSequences(a, b);
      const both = pairs.filter((p): p is [number, number] => p[0] !== null && p[1] !== null);
      for (const [x, y] of both) expect(a[x], `${a.join("")} / ${b.join("")}`).toBe(b[y]);
      expect(both.length, `${a.join("")} / ${b.join("")}`).toBe(lcsLength(a, b));
      expect(pairs.filter(([x]) => x !== null).map(([x]) => x)).toEqual(a.map((_v, i) => i));
      expect(pairs.filter(([, y]) => y !== null).map(([, y]) => y)).toEqual(b.map((_v, i) => i));
    }
  });

  it("aligns two long key sequences that share nothing but their length", () => {
    const a = Array.from({ length: 3000 }, (_v, i) => `a${i % 5}`);
    const b = Array.from({ length: 3000 }, (_v, i) => `b${i % 5}`);
    const pairs = alignSequences(a, b);
    expect(pairs.filter(([x, y]) => x !== null && y !== null)).toHaveLength(0);
    expect(pairs.filter(([x]) => x !== null).map(([x]) => x)).toEqual(a.map((_v, i) => i));
    expect(pairs.filter(([, y]) => y !== null).map(([, y]) => y)).toEqual(b.map((_v, i) => i));
  });
});
