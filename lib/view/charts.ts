/**
 * Per-step figures for the charts: latency (model and tool latencies summed), tokens,
 * and a cost from the project's per-model prices (lib/view/prices.ts; journals carry no
 * prices). Long runs are grouped into at most `maxBars` buckets of consecutive steps.
 */
import type { RunIndex } from "../graph/run-index";
import { callCost, type CallUsage, type PriceTable } from "./prices";

/** Each step's cost and the models it called that have no price. */
interface StepCosts {
  usd: Float64Array;
  unpriced: Array<Set<string>>;
}

/** Costs per step from the calls' usage: a call outside any step is not charted. */
export function stepCosts(index: RunIndex, usage: readonly CallUsage[], table: PriceTable): StepCosts {
  const usd = new Float64Array(index.steps.length);
  const unpriced = index.steps.map(() => new Set<string>());
  for (const u of usage) {
    const row = index.rowOfSeq(u.seq);
    const s = row >= 0 ? index.stepOfRow[row] : -1;
    if (s < 0) continue;
    const c = callCost(table, u);
    if ("usd" in c) usd[s] += c.usd;
    else unpriced[s].add(c.unpriced);
  }
  return { usd, unpriced };
}

export interface StepBar {
  /** First and last step ordinals in the bar. */
  from: number;
  to: number;
  label: string;
  latencyMs: number;
  durationMs: number;
  tokens: number;
  /** USD of the priced calls; see `unpriced` for the calls that could not be costed */
  cost: number;
  /** models called in the bar's steps that have no price, in name order */
  unpriced: string[];
  failures: number;
  /** Row to select when the bar is clicked. */
  firstRow: number;
}

export function stepBars(index: RunIndex, costs: StepCosts | null = null, maxBars = 120): StepBar[] {
  const steps = index.steps;
  if (steps.length === 0) return [];
  const size = Math.max(1, Math.ceil(steps.length / maxBars));
  const bars: StepBar[] = [];
  for (let i = 0; i < steps.length; i += size) {
    const group = steps.slice(i, i + size);
    let latencyMs = 0;
    let tokens = 0;
    let failures = 0;
    let cost = 0;
    const unpriced = new Set<string>();
    let start = Infinity;
    let end = -Infinity;
    for (const s of group) {
      latencyMs += s.latencyMs;
      tokens += s.tokens;
      failures += s.failures;
      if (costs) {
        cost += costs.usd[s.ordinal];
        for (const m of costs.unpriced[s.ordinal]) unpriced.add(m);
      }
      start = Math.min(start, s.startMs);
      end = Math.max(end, s.endMs);
    }
    const first = group[0];
    const last = group[group.length - 1];
    bars.push({
      from: first.ordinal,
      to: last.ordinal,
      label: size === 1 ? (first.name ?? first.id) : `${first.id}…${last.id}`,
      latencyMs,
      durationMs: end - start,
      tokens,
      cost,
      unpriced: [...unpriced].sort(),
      failures,
      firstRow: first.rows[0],
    });
  }
  return bars;
}

/**
 * Y-axis ticks from 0 to at least `max` at a round step (1, 2 or 5 × a power of ten)
 * whose labels, as `format` writes them, are all different: a latency axis up to 1.8 s
 * does not read "0 ms, 1 s, 1 s, 2 s", and a token axis up to 3 does not read "0, 1, 1,
 * 2". The smallest such step giving at most `target` + 1 ticks is taken.
 */
export function axisTicks(max: number, format: (n: number) => string, target = 4): number[] {
  if (!Number.isFinite(max) || max <= 0) return [0];
  const raw = max / target;
  let exp = Math.floor(Math.log10(raw)) - 1;
  for (let guard = 0; guard < 60; guard++, exp++) {
    for (const m of [1, 2, 5]) {
      const step = m * 10 ** exp;
      if (step < raw) continue;
      // integer multiples written exactly: 3 × 0.1 must not become 0.30000000000000004
      const count = Math.ceil(max / step - 1e-9);
      const ticks = Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
      const labels = new Set(ticks.map(format));
      if (labels.size === ticks.length) return ticks;
    }
  }
  return [0, max];
}
