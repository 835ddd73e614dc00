import { describe, expect, it } from "vitest";
import ELK from "elkjs/lib/elk.bundled.js";
import {
  buildRunIndex,
  buildStepGraph,
  decodeSummary,
  encodeSummary,
  graphWindow,
  layoutSequence,
  layoutStepGraph,
  summaryRowsFromEvents,
  type ElkEngine,
} from "@/lib/graph";
import { generateJournal } from "@/scripts/bench-journal";
import { indexOf, readExample } from "./helpers";
import type { JournalEvent } from "@/lib/journal/types";

const elk = new ELK() as unknown as ElkEngine;

describe("buildStepGraph", () => {
  const index = indexOf(readExample("00-refund-clean.jsonl"));

  it("expanded: one node per event, steps as groups holding their events", () => {
    const g = buildStepGraph(index, { collapsed: () => false });
    expect(g.nodes.filter((n) => n.kind === "event")).toHaveLength(33);
    expect(g.nodes.filter((n) => n.kind === "step").map((n) => n.id)).toEqual(["s:s1", "s:s2", "s:s3"]);
    const refund = g.nodes.find((n) => n.id === "e18");
    expect(refund).toMatchObject({ parent: "s:s2", eventKind: "tool-write", type: "tool.call", name: "issue_refund" });
    // the top-level order chain, then the order inside each step
    expect(g.edges).toContainEqual({ id: "order:e2->s:s1", source: "e2", target: "s:s1", kind: "order" });
    expect(g.edges).toContainEqual({ id: "order:e3->e4", source: "e3", target: "e4", kind: "order" });
  });

  it("adds a causal edge only where order does not already join the two nodes", () => {
    const g = buildStepGraph(index, { collapsed: () => false });
    // 7 has parent 6, its predecessor: the order edge says it
    expect(g.edges.find((e) => e.id === "parent:e6->e7")).toBeUndefined();
    const withJump = buildStepGraph(
      indexOf(readExample("00-refund-clean.jsonl").map((e) => (e.seq === 9 ? { ...e, parent: 6 as JournalEvent["seq"] } : e))),
      { collapsed: () => false },
    );
    expect(withJump.edges).toContainEqual({ id: "parent:e6->e9", source: "e6", target: "e9", kind: "parent" });
    // a result recorded without parent still points back to its call, by call id
    const late = readExample("00-refund-clean.jsonl").map((e): JournalEvent =>
      e.seq === 9
        ? { ...e, type: "note", parent: undefined, data: { text: "x" } }
        : e.seq === 10
          ? { ...e, type: "tool.result", data: { call: "t_2", status: "ok" } }
          : e,
    );
    expect(buildStepGraph(indexOf(late), { collapsed: () => false }).edges).toContainEqual({
      id: "call:e8->e10",
      source: "e8",
      target: "e10",
      kind: "call",
    });
  });

  it("collapsed: a step is one summary node, and edges into it come from its representative", () => {
    const g = buildStepGraph(index, { collapsed: (id) => id !== "s2" });
    const s1 = g.nodes.find((n) => n.id === "s:s1");
    expect(s1).toMatchObject({ kind: "step", collapsed: true, eventCount: 9, firstSeq: 3, lastSeq: 11, status: "ok" });
    expect(g.nodes.filter((n) => n.kind === "event")).toHaveLength(3 + 11 + 1);
    for (const e of g.edges) expect(e.source).not.toBe(e.target);
    const ids = new Set(g.nodes.map((n) => n.id));
    for (const e of g.edges) {
      expect(ids.has(e.source)).toBe(true);
      expect(ids.has(e.target)).toBe(true);
    }
    // a collapsed step's kinds are counted, so the summary node tells what is inside
    expect(s1 && s1.kind === "step" ? s1.kindCounts : null).toMatchObject({
      model: 2,
      "tool-read": 2,
      state: 1,
      retrieval: 1,
      context: 1,
      step: 2,
    });
  });

  it("marks findings on events and on the collapsed steps that hold them", () => {
    const findings = new Map([[18, 1]]);
    const g = buildStepGraph(index, { collapsed: (id) => id === "s2", findings });
    expect(g.nodes.find((n) => n.id === "s:s2")).toMatchObject({ findings: 1 });
    const open = buildStepGraph(index, { collapsed: () => false, findings });
    expect(open.nodes.find((n) => n.id === "e18")).toMatchObject({ findings: 1 });
  });

  it("a window shows only its items, and stepping inside a window block keeps the same window", () => {
    expect(graphWindow(20, 5)).toEqual({ from: 0, to: 20 });
    const w = graphWindow(12_500, 700);
    expect(w.to - w.from).toBe(48);
    expect(w.from).toBeLessThanOrEqual(700);
    expect(w.to).toBeGreaterThan(700);
    expect(graphWindow(12_500, 701)).toEqual(w);
    expect(graphWindow(12_500, 12_499).to).toBe(12_500);
    const g = buildStepGraph(index, { collapsed: () => true, window: { from: 3, to: 5 } });
    expect(g.nodes.map((n) => n.id)).toEqual(["s:s1", "s:s2"]);
    expect(g.window).toEqual({ from: 3, to: 5, total: 7 });
  });

  it("the signature changes with what changes the layout, not with findings", () => {
    const a = buildStepGraph(index, { collapsed: () => true });
    const b = buildStepGraph(index, { collapsed: () => true, findings: new Map([[4, 2]]) });
    const c = buildStepGraph(index, { collapsed: (id) => id !== "s1" });
    expect(a.signature).toBe(b.signature);
    expect(a.signature).not.toBe(c.signature);
  });
});

describe("layout (ELK, as the worker runs it)", () => {
  it("places every node; events inside a step run top to bottom in seq order", async () => {
    const index = indexOf(readExample("00-refund-clean.jsonl"));
    const g = buildStepGraph(index, { collapsed: (id) => id === "s3" });
    const layout = await layoutStepGraph(elk, g);
    for (const n of g.nodes) expect(layout.boxes[n.id], n.id).toBeDefined();
    const ys = [3, 4, 5, 6, 7, 8, 9, 10, 11].map((seq) => layout.boxes[`e${seq}`].y);
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    // children are placed inside their step's box (positions are relative to it)
    const s1 = layout.boxes["s:s1"];
    for (const seq of [3, 11]) {
      const b = layout.boxes[`e${seq}`];
      expect(b.x + b.width).toBeLessThanOrEqual(s1.width);
      expect(b.y + b.height).toBeLessThanOrEqual(s1.height);
    }
    // top level runs left to right
    expect(layout.boxes["s:s2"].x).toBeGreaterThan(layout.boxes["s:s1"].x);
  });

  it("parallel calls caused by one response sit side by side", async () => {
    const ev = readExample("00-refund-clean.jsonl");
    // make 8 and 9 both caused by 7 (two parallel tool calls)
    const events = ev.map((e) =>
      e.seq === 8 || e.seq === 9
        ? {
            ...e,
            type: "tool.call" as const,
            parent: 7 as JournalEvent["seq"],
            data: { ...e.data, call: `t${e.seq}`, tool: "lookup_order", effect: "read" },
          }
        : e,
    );
    const g = buildStepGraph(indexOf(events), { collapsed: () => false });
    const layout = await layoutStepGraph(elk, g);
    expect(layout.boxes.e8.y).toBe(layout.boxes.e9.y);
    expect(layout.boxes.e8.x).not.toBe(layout.boxes.e9.x);
  });
});

describe("scale", () => {
  it("indexes 100,000 events and builds a windowed graph of a few dozen nodes around the selection", async () => {
    const { events } = await collect(generateJournal(100_000, "big"));
    const rows = summaryRowsFromEvents(events);
    const dto = JSON.parse(JSON.stringify(encodeSummary("big", rows)));
    const index = buildRunIndex(decodeSummary(dto));
    const sel = index.rowOfSeq(54_321);
    const g = buildStepGraph(index, {
      collapsed: (id) => id !== index.summary.step[sel],
      window: graphWindow(index.items.length, index.itemOfRow[sel]),
    });
    expect(index.steps).toHaveLength(12_500);
    expect(g.nodes.length).toBeLessThan(80);
    const layout = await layoutStepGraph(elk, g);
    expect(Object.keys(layout.boxes)).toHaveLength(g.nodes.length);
  });
});

async function collect(text: string): Promise<{ events: JournalEvent[] }> {
  return {
    events: text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JournalEvent),
  };
}

describe("sequence layout (the default engine)", () => {
  it("places every node, steps left to right, events top to bottom, children inside their step", () => {
    const index = indexOf(readExample("00-refund-clean.jsonl"));
    const g = buildStepGraph(index, { collapsed: (id) => id === "s3" });
    const layout = layoutSequence(g);
    for (const n of g.nodes) expect(layout.boxes[n.id], n.id).toBeDefined();
    const ys = [3, 4, 5, 6, 7, 8, 9, 10, 11].map((seq) => layout.boxes[`e${seq}`].y);
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    expect(new Set(ys).size).toBe(ys.length);
    const s1 = layout.boxes["s:s1"];
    for (const seq of [3, 11]) {
      const b = layout.boxes[`e${seq}`];
      expect(b.x + b.width).toBeLessThanOrEqual(s1.width);
      expect(b.y + b.height).toBeLessThanOrEqual(s1.height);
    }
    const order = ["e0", "e1", "e2", "s:s1", "s:s2", "s:s3", "e32"].map((id) => layout.boxes[id].x);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // nothing overlaps at the top level
    for (let i = 1; i < order.length; i++) {
      const prev = ["e0", "e1", "e2", "s:s1", "s:s2", "s:s3", "e32"][i - 1];
      expect(order[i]).toBeGreaterThanOrEqual(layout.boxes[prev].x + layout.boxes[prev].width);
    }
  });

  it("parallel calls caused by one response sit side by side", () => {
    const ev = readExample("00-refund-clean.jsonl");
    const events = ev.map((e) =>
      e.seq === 8 || e.seq === 9
        ? {
            ...e,
            type: "tool.call" as const,
            parent: 7 as JournalEvent["seq"],
            data: { ...e.data, call: `t${e.seq}`, tool: "lookup_order", effect: "read" },
          }
        : e,
    );
    const g = buildStepGraph(indexOf(events), { collapsed: () => false });
    const layout = layoutSequence(g);
    expect(layout.boxes.e8.y).toBe(layout.boxes.e9.y);
    expect(layout.boxes.e9.x).toBeGreaterThan(layout.boxes.e8.x);
    expect(layout.boxes.e10.y).toBeGreaterThan(layout.boxes.e9.y);
  });
});
