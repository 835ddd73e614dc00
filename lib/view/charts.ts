/**
 * Per-step figures for the charts: latency (model and tool latencies summed), tokens,
 * and an estimated cost from a price per million tokens the user sets (journals carry
 * no prices). Long runs are grouped into at most `maxBars` buckets of consecutive steps.
 */
import type { RunIndex } from "../graph/run-index";

export interface StepBar {
  /** First and last step ordinals in the bar. */
  from: number;
  to: number;
  label: string;
  latencyMs: number;
  durationMs: number;
  tokens: number;
  cost: number;
  failures: number;
  /** Row to select when the bar is clicked. */
  firstRow: number;
}

export function stepBars(index: RunIndex, usdPerMillionTokens: number, maxBars = 120): StepBar[] {
  const steps = index.steps;
  if (steps.length === 0) return [];
  const size = Math.max(1, Math.ceil(steps.length / maxBars));
  const bars: StepBar[] = [];
  for (let i = 0; i < steps.length; i += size) {
    const group = steps.slice(i, i + size);
    let latencyMs = 0;
    let tokens = 0;
    let failures = 0;
    let start = Infinity;
    let end = -Infinity;
    for (const s of group) {
      latencyMs += s.latencyMs;
      tokens += s.tokens;
      failures += s.failures;
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
      cost: (tokens / 1_000_000) * usdPerMillionTokens,
      failures,
      firstRow: first.rows[0],
    });
  }
  return bars;
}
