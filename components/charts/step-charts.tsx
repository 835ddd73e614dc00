"use client";
import { useMemo } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RunIndex } from "@/lib/graph";
import type { UsageAnswer } from "@/lib/view/api-types";
import { axisTicks, stepBars, stepCosts, type StepBar } from "@/lib/view/charts";
import { formatCount, formatDuration, formatUsd } from "@/lib/view/format";
import { fetchJson } from "@/components/data/fetch-json";
import { runKeys } from "@/components/data/query-keys";
import { useRunStoreApi } from "@/components/run/run-store";

/**
 * Latency, tokens and cost per step; a click selects the step's first event. The cost is
 * each model call's input and output tokens at the project's prices (Admin → Projects);
 * a model without a price is named, never counted as $0.
 */
export function StepCharts({ index }: { index: RunIndex }) {
  const api = useRunStoreApi();
  const run = index.summary.run;
  const usage = useQuery({
    queryKey: runKeys.usage(run, index.n),
    queryFn: ({ signal }) => fetchJson<UsageAnswer>(`/api/runs/${encodeURIComponent(run)}/usage`, signal),
    placeholderData: (prev) => prev,
  });
  const costs = useMemo(() => (usage.data ? stepCosts(index, usage.data.calls, usage.data.prices) : null), [index, usage.data]);
  const bars = useMemo(() => stepBars(index, costs), [index, costs]);
  const unpriced = useMemo(() => [...new Set(bars.flatMap((b) => b.unpriced))].sort(), [bars]);
  const priced = usage.data ? usage.data.calls.length > 0 && unpriced.length === 0 : false;
  if (bars.length === 0) return <div className="empty-pane">This run has no steps to chart.</div>;
  const grouped = bars[0].to > bars[0].from;
  const onClick = (b: StepBar) => api.getState().select(index.summary.seq[b.firstRow]);
  const chart = (title: string, key: "latencyMs" | "tokens" | "cost", fill: string, fmt: (n: number) => string) => {
    // our own ticks: the library's would repeat labels once formatted ("1 s 1 s 2 s")
    const ticks = axisTicks(Math.max(0, ...bars.map((b) => b[key])), fmt);
    return (
      <div className="chart" aria-label={title}>
        <h3>{title}</h3>
        <div style={{ flex: 1, minHeight: 0 }}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={bars} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 10, fill: "var(--muted)" }} interval="preserveStartEnd" minTickGap={20} />
              <YAxis
                tick={{ fontSize: 10, fill: "var(--muted)" }}
                width={52}
                ticks={ticks}
                domain={[0, ticks[ticks.length - 1]]}
                interval={0}
                tickFormatter={(v: number) => fmt(v)}
              />
              <Tooltip
                formatter={(v) => fmt(Number(v))}
                labelStyle={{ color: "var(--fg)" }}
                contentStyle={{ background: "var(--bg)", border: "1px solid var(--border)", fontSize: 12 }}
                isAnimationActive={false}
              />
              <Bar dataKey={key} fill={fill} isAnimationActive={false} onClick={(d) => onClick(d.payload as StepBar)} cursor="pointer" />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </div>
    );
  };
  return (
    <div className="charts">
      {chart(
        grouped ? `Latency per ${bars[0].to - bars[0].from + 1} steps` : "Latency per step (model + tool)",
        "latencyMs",
        "var(--k-model)",
        // the axis's zero reads 0, not "<1 ms"
        (n) => (n === 0 ? "0" : formatDuration(n)),
      )}
      {chart("Tokens per step", "tokens", "var(--k-context)", (n) => formatCount(n))}
      <div className="chart cost-chart">
        {priced ? (
          chart("Cost per step", "cost", "var(--k-tool-write)", (n) => formatUsd(n))
        ) : (
          <div className="chart" aria-label="Cost per step">
            <h3>Cost per step</h3>
            <p className="chart-note" role="status">
              {usage.isError
                ? `Usage could not be read: ${usage.error.message}`
                : !usage.data
                  ? "Reading the model calls' usage…"
                  : usage.data.calls.length === 0
                    ? "This run has no model calls to cost."
                    : `No price for ${unpriced.join(", ")}: the cost is not shown rather than counted as $0.`}
            </p>
          </div>
        )}
        <p className="price">
          <Link href="/admin/projects" prefetch={false} title="Each model's price per million input and output tokens, set per project">
            {priced ? "at this project's model prices" : "set model prices"}
          </Link>
        </p>
      </div>
    </div>
  );
}
