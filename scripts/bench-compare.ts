/**
 * npm run bench:compare — run-to-run alignment (lib/compare `alignRuns`) in node, for two
 * step-less 20,000-event runs (override with BENCH_COMPARE_N):
 *   few differences: run b is run a with 3 notes inserted
 *   many differences: every other event of run b changed (its args are ones run a has
 *     elsewhere, so every key still matches something and nothing can be left out)
 * For each: the whole `alignRuns`, and the LCS of its first pass (the content keys both
 * runs have): `longestCommonSubsequence` (Myers within its edit budget, the bit-parallel
 * LCS past it) against Myers' diff alone (jsdiff `diffArrays` without a budget, what the
 * alignment ran before). BENCH_COMPARE_MYERS=0 skips that baseline on the many-differences
 * case (it takes tens of seconds). Medians of BENCH_RUNS (default 3).
 * Writes docs/benchmarks.json (section "compare").
 */
import { diffArrays } from "diff";
import { canonicalJson } from "../lib/canonical";
import { alignRuns, comparable, type CompareEvent } from "../lib/compare";
import { longestCommonSubsequence } from "../lib/compare/lcs";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const N = Number(process.env.BENCH_COMPARE_N ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MYERS_MANY = process.env.BENCH_COMPARE_MYERS !== "0";

const call = (seq: number, i: number, arg: number): CompareEvent => ({
  seq,
  type: "tool.call",
  data: { call: `c${i}`, tool: `tool_${i % 5}`, args: { n: arg } },
});

function fewDifferences(): [CompareEvent[], CompareEvent[]] {
  const a = Array.from({ length: N }, (_v, i) => call(i, i, i % 7));
  const at = new Set([Math.floor(N * 0.15), Math.floor(N / 2), Math.floor(N * 0.875)]);
  const b: CompareEvent[] = [];
  for (let i = 0; i < N; i++) {
    if (at.has(i)) b.push({ seq: b.length, type: "note", data: { text: `inserted before #${i}` } });
    b.push(call(b.length, i, i % 7));
  }
  return [a, b];
}

function manyDifferences(): [CompareEvent[], CompareEvent[]] {
  const a = Array.from({ length: N }, (_v, i) => call(i, i, i % 7));
  const b = Array.from({ length: N }, (_v, i) => call(i, i, i % 2 ? (i + 1) % 7 : i % 7));
  return [a, b];
}

/** What the alignment's first pass diffs: type and comparable content, keys the other run lacks left out. */
function contentKeys(a: CompareEvent[], b: CompareEvent[]): [string[], string[]] {
  const key = (e: CompareEvent) => `${e.type}\u0000${canonicalJson(comparable(e))}`;
  const ka = a.map(key);
  const kb = b.map(key);
  const inA = new Set(ka);
  const inB = new Set(kb);
  return [ka.filter((k) => inB.has(k)), kb.filter((k) => inA.has(k))];
}

function median(run: () => void, times: number): number {
  const ms: number[] = [];
  for (let r = 0; r < times; r++) {
    const t = performance.now();
    run();
    ms.push(performance.now() - t);
  }
  ms.sort((x, y) => x - y);
  return ms[Math.floor(ms.length / 2)];
}

const figures: BenchFigure[] = [];
const n = N.toLocaleString("en-US");
for (const [name, make, myers] of [
  ["3 insertions", fewDifferences, true],
  ["every other event changed", manyDifferences, MYERS_MANY],
] as const) {
  const [a, b] = make();
  const [ka, kb] = contentKeys(a, b);
  const total = median(() => alignRuns(a, b), RUNS);
  const lcs = median(() => longestCommonSubsequence(ka, kb), RUNS);
  const myersAlone = myers ? median(() => diffArrays(ka, kb), name === "3 insertions" ? RUNS : 1) : null;
  const what = `${n} vs ${n} events, ${name}`;
  console.log(
    `${what}: alignRuns ${total.toFixed(0)} ms; first pass's LCS ${lcs.toFixed(0)} ms` +
      (myersAlone === null ? "" : ` (Myers alone, as before: ${myersAlone.toFixed(0)} ms)`),
  );
  figures.push({ label: `alignRuns, ${what}`, value: total, unit: "ms" });
  figures.push({
    label: `first pass's LCS (lcs.ts), ${what}`,
    value: lcs,
    unit: "ms",
    ...(myersAlone === null ? {} : { baseline: { label: "Myers' diff alone (jsdiff, no budget), as before", value: myersAlone } }),
  });
}

writeBenchSection("compare", {
  title: "Run-to-run alignment (node, lib/compare)",
  command: `${["BENCH_COMPARE_N", "BENCH_RUNS", "BENCH_COMPARE_MYERS"]
    .filter((k) => process.env[k])
    .map((k) => `${k}=${process.env[k]} `)
    .join("")}npm run bench:compare`,
  figures,
  notes: [
    `Step-less runs of tool calls; medians of ${RUNS} runs (the Myers-alone baseline of the many-differences case runs once). alignRuns also keys every event (canonical JSON of its comparable content) and pairs the gaps; the LCS figures time the first pass's diff alone, before and after.`,
  ],
});
