/** Per-model prices of a project and the cost per step they give (lib/view/prices.ts, lib/view/charts.ts). */
import { describe, expect, it } from "vitest";
import { buildRunIndex, decodeSummary, encodeSummary, summaryRowsFromEvents } from "@/lib/graph";
import { stepBars, stepCosts } from "@/lib/view/charts";
import { callCost, formatPriceLines, parsePriceLines, readPriceTable, usageFromEvents } from "@/lib/view/prices";
import { readExample } from "../graph/helpers";

const events = readExample("00-refund-clean.jsonl");
const index = buildRunIndex(decodeSummary(encodeSummary("r", summaryRowsFromEvents(events))));
const usage = usageFromEvents(events.map((e) => ({ seq: e.seq, type: e.type, data: e.data as Record<string, unknown> })));

describe("parsePriceLines", () => {
  it("reads one model a line with input and output prices per million tokens", () => {
    const r = parsePriceLines("# prices from the vendor's page\ngpt-4o 2.50 10.00\nclaude-sonnet-4, 3, 15\n\n");
    expect(r.errors).toEqual([]);
    expect(r.table).toEqual({ "gpt-4o": { input: 2.5, output: 10 }, "claude-sonnet-4": { input: 3, output: 15 } });
    expect(formatPriceLines(r.table)).toBe("claude-sonnet-4 3 15\ngpt-4o 2.5 10");
  });
  it("names the line of each mistake", () => {
    const r = parsePriceLines("gpt-4o 2.50\nplanner -1 2\nplanner 1e3 2\nx 1 2\nx 1 2");
    expect(r.errors).toHaveLength(4);
    expect(r.errors[0]).toMatch(/^line 1: /);
    expect(r.errors[1]).toMatch(/^line 2: prices/);
    expect(r.errors[2]).toMatch(/^line 3: prices/);
    expect(r.errors[3]).toBe('line 5: "x" is priced twice');
  });
  it("reads a stored table back, leaving out what is malformed", () => {
    expect(readPriceTable('{"a":{"input":1,"output":2},"b":{"input":"1"},"c d":{"input":1,"output":1}}')).toEqual({
      a: { input: 1, output: 2 },
    });
    expect(readPriceTable("not json")).toEqual({});
    expect(readPriceTable('{"__proto__":{"input":1,"output":1}}').toString).toBeUndefined();
  });
});

describe("usage and cost", () => {
  it("takes each response's usage and the model its request named", () => {
    // the example's three model calls, all to "planner" (tests/fixtures/examples/00-refund-clean.jsonl)
    expect(usage).toEqual([
      { seq: 7, model: "planner", inputTokens: 1383, outputTokens: 21 },
      { seq: 15, model: "planner", inputTokens: 2747, outputTokens: 42 },
      { seq: 26, model: "planner", inputTokens: 2886, outputTokens: 209 },
    ]);
  });
  it("prices input and output tokens separately per step", () => {
    const bars = stepBars(index, stepCosts(index, usage, { planner: { input: 3, output: 15 } }));
    // (1383 × 3 + 21 × 15) / 1e6, (2747 × 3 + 42 × 15) / 1e6, (2886 × 3 + 209 × 15) / 1e6
    expect(bars.map((b) => b.cost)).toEqual([expect.closeTo(0.004464, 9), expect.closeTo(0.008871, 9), expect.closeTo(0.011793, 9)]);
    expect(bars.every((b) => b.unpriced.length === 0)).toBe(true);
  });
  it("says which model has no price instead of costing it $0", () => {
    const bars = stepBars(index, stepCosts(index, usage, { "gpt-4o": { input: 2.5, output: 10 } }));
    expect(bars.map((b) => b.unpriced)).toEqual([["planner"], ["planner"], ["planner"]]);
    expect(callCost({}, { seq: 1, model: null, inputTokens: 5, outputTokens: 5 })).toEqual({ unpriced: "(unnamed model)" });
  });
  it("prefers the model the response names", () => {
    const u = usageFromEvents([
      { seq: 1, type: "model.request", data: { call: "m", model: "router" } },
      { seq: 2, type: "model.response", data: { call: "m", model: "gpt-4o-2024-08-06", usage: { inputTokens: 10 } } },
    ]);
    expect(u).toEqual([{ seq: 2, model: "gpt-4o-2024-08-06", inputTokens: 10, outputTokens: 0 }]);
  });
});
