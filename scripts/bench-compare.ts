/**
 * npm run bench:compare — run-to-run alignment (lib/compare `alignRuns`) in node, for two
 * step-less runs of BENCH_COMPARE_N events each (default 1,000,000):
 *   few differences: run b is run a with 3 notes inserted
 *   many differences: every other event of run b changed (its args are ones run a has
 *     elsewhere, so every key still matches something and nothing can be left out)
 * Each case runs in a node process of its own, so its peak RSS is its own:
 *   - alignRuns, against keying both runs (the canonical JSON of every event's comparable
 *     content: the linear work any alignment of them does first);
 *   - peak RSS while aligning, against the peak once both runs are built;
 *   - the first pass's common subsequence (lcs.ts `boundedCommonSubsequence`: exact within
 *     the budget, banded past it), against the exact LCS (`longestCommonSubsequence`, what
 *     the alignment ran before). On the many-differences case that baseline takes minutes
 *     at a million events: BENCH_COMPARE_EXACT=1 runs it;
 *   - with the exact LCS, the first pass's pairs against its length (how near the banded
 *     search came).
 * Writes docs/benchmarks.json (section "compare").
 */
import { spawnSync } from "node:child_process";
import { canonicalJson } from "../lib/canonical";
import { alignRuns, comparable, type CompareEvent } from "../lib/compare";
import { boundedCommonSubsequence, longestCommonSubsequence } from "../lib/compare/lcs";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const N = Number(process.env.BENCH_COMPARE_N ?? 1_000_000);
const EXACT_MANY = process.env.BENCH_COMPARE_EXACT === "1";
const CASES = { few: "3 insertions", many: "every other event changed" } as const;
type CaseId = keyof typeof CASES;

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

const peakMB = () => process.resourceUsage().maxRSS / 1024;

function timed<T>(run: () => T): [T, number] {
  const t = performance.now();
  const out = run();
  return [out, performance.now() - t];
}

interface CaseResult {
  builtPeakMB: number;
  alignPeakMB: number;
  alignMs: number;
  keyMs: number;
  same: number;
  approximate: string | null;
  lcsMs: number;
  lcsPairs: number;
  exactMs: number | null;
  exactPairs: number | null;
}

/** One case, in this process: the parent reads the JSON line it prints. */
function runCase(id: CaseId): CaseResult {
  const [a, b] = id === "few" ? fewDifferences() : manyDifferences();
  const builtPeakMB = peakMB();
  const [al, alignMs] = timed(() => alignRuns(a, b));
  const alignPeakMB = peakMB();
  const same = al.counts.same;
  const approximate = al.approximate?.message ?? null;
  const [[ka, kb], keyMs] = timed(() => contentKeys(a, b));
  const [lcs, lcsMs] = timed(() => boundedCommonSubsequence(ka, kb));
  const [exact, exactMs] = id === "few" || EXACT_MANY ? timed(() => longestCommonSubsequence(ka, kb)) : [null, null];
  return {
    builtPeakMB,
    alignPeakMB,
    alignMs,
    keyMs,
    same,
    approximate,
    lcsMs,
    lcsPairs: lcs.pairs.length,
    exactMs,
    exactPairs: exact?.length ?? null,
  };
}

const only = process.env.BENCH_COMPARE_CASE as CaseId | undefined;
if (only) {
  console.log(`RESULT ${JSON.stringify(runCase(only))}`);
} else {
  const figures: BenchFigure[] = [];
  const n = N.toLocaleString("en-US");
  const int = (v: number) => Math.round(v).toLocaleString("en-US");
  for (const id of Object.keys(CASES) as CaseId[]) {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]], {
      env: { ...process.env, BENCH_COMPARE_CASE: id },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const line = child.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    if (!line) throw new Error(`bench case ${id} failed (status ${child.status}):\n${child.stderr}`);
    const r = JSON.parse(line.slice("RESULT ".length)) as CaseResult;
    const what = `${n} vs ${n} events, ${CASES[id]}`;
    console.log(
      `${what}: alignRuns ${int(r.alignMs)} ms (keying both runs ${int(r.keyMs)} ms), peak RSS ${int(r.alignPeakMB)} MB ` +
        `(${int(r.builtPeakMB)} MB with both runs built); first pass ${int(r.lcsMs)} ms, ${int(r.lcsPairs)} pairs` +
        (r.exactMs === null ? "" : ` (exact LCS ${int(r.exactMs)} ms, ${int(r.exactPairs ?? 0)} pairs)`) +
        `; ${int(r.same)} same rows${r.approximate ? `\n  ${r.approximate}` : ", exact"}`,
    );
    figures.push({ label: `alignRuns, ${what}`, value: r.alignMs, unit: "ms", baseline: { label: "keying both runs", value: r.keyMs } });
    figures.push({
      label: `peak RSS aligning, ${what}`,
      value: r.alignPeakMB,
      unit: "MB",
      baseline: { label: "peak RSS with both runs built", value: r.builtPeakMB },
    });
    figures.push({
      label: `first pass's common subsequence (lcs.ts, ${r.approximate ? "banded" : "exact"}), ${what}`,
      value: r.lcsMs,
      unit: "ms",
      ...(r.exactMs === null ? {} : { baseline: { label: "exact LCS, as before", value: r.exactMs } }),
    });
    if (r.exactPairs !== null)
      figures.push({
        label: `first pass's pairs, ${what}`,
        value: r.lcsPairs,
        unit: "pairs",
        baseline: { label: "exact LCS", value: r.exactPairs },
      });
  }
  writeBenchSection("compare", {
    title: "Run-to-run alignment (node, lib/compare)",
    command: `${["BENCH_COMPARE_N", "BENCH_COMPARE_EXACT"]
      .filter((k) => process.env[k])
      .map((k) => `${k}=${process.env[k]} `)
      .join("")}npm run bench:compare`,
    figures,
    notes: [
      [
        "Step-less runs of tool calls, one run of each figure; each case in a node process of its own (peak RSS is the process's high-water mark, the runs' events included).",
        "alignRuns keys every event, aligns three passes and builds the rows; the first pass's figures time its diff alone.",
        ...(EXACT_MANY
          ? []
          : ["The exact LCS of the many-differences case (minutes at a million events) runs with BENCH_COMPARE_EXACT=1."]),
      ].join(" "),
    ],
  });
}
