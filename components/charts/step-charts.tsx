"use client";
import { useMemo, useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RunIndex } from "@/lib/graph";
import { axisTicks, stepBars, type StepBar } from "@/lib/view/charts";
import { formatCount, formatDuration, formatUsd } from "@/lib/view/format";
import { useRunStoreApi } from "@/components/run/run-store";

const PRICE_KEY = "retrace-usd-per-mtok";

function initialPrice(): number {
  if (typeof window === "undefined") return 3;
  const v = Number(window.localStorage.getItem(PRICE_KEY));
  return Number.isFinite(v) && v > 0 ? v : 3;
}

/** Latency, tokens and estimated cost per step; a click selects the step's first event. */
export function StepCharts({ index }: { index: RunIndex }) {
  const api = useRunStoreApi();
  const [price, setPrice] = useState(initialPrice);
  const bars = useMemo(() => stepBars(index, price), [index, price]);
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
        (n) => formatDuration(n),
      )}
      {chart("Tokens per step", "tokens", "var(--k-context)", (n) => formatCount(n))}
      <div className="chart">
        {chart("Estimated cost per step", "cost", "var(--k-tool-write)", (n) => formatUsd(n))}
        <label className="price" title="Journals carry no prices: the cost is tokens × this price">
          at $
          <input
            type="number"
            min={0}
            step={0.1}
            value={price}
            aria-label="US dollars per million tokens"
            onChange={(e) => {
              const v = Math.max(0, Number(e.target.value) || 0);
              setPrice(v);
              window.localStorage.setItem(PRICE_KEY, String(v));
            }}
          />
          / M tokens
        </label>
      </div>
    </div>
  );
}
