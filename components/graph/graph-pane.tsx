"use client";
import { plural } from "@/lib/semantics";
import { Background, Controls, MiniMap, ReactFlow, ReactFlowProvider, useReactFlow, type Edge, type Node } from "@xyflow/react";
import { useEffect, useMemo, useRef } from "react";
import { buildStepGraph, EVENT_KINDS, graphWindow, type GraphNodeData, type RunIndex } from "@/lib/graph";
import type { Relation } from "@/lib/view/relations";
import { KindBadge } from "@/components/ui/kind-badge";
import { useIsDark } from "@/components/theme/theme-toggle";
import { useRunStore, useRunStoreApi } from "@/components/run/run-store";
import { EventNode, StepNode, type EventFlowNode, type StepFlowNode } from "./nodes";
import { useGraphLayout } from "./use-graph-layout";

/** Runs up to this many events show every step expanded unless told otherwise. */
const AUTO_EXPAND_EVENTS = 150;

const nodeTypes = { event: EventNode, step: StepNode };

const NO_RELATIONS: readonly Relation[] = [];

/** What each kind of edge means, for the legend (the classes are app/globals.css's). */
const EDGE_LEGEND: ReadonlyArray<{ kind: string; label: string; title: string }> = [
  { kind: "order", label: "next", title: "the next event or step in the run" },
  { kind: "parent", label: "caused", title: "the event that caused this one (its parent)" },
  { kind: "call", label: "answer", title: "a request to its answer (same call id)" },
  { kind: "retry", label: "retried by", title: "a write call retried by a later one after an unknown outcome" },
  { kind: "duplicate", label: "repeated by", title: "a write call repeated by a later one after it had succeeded" },
];

const NO_NOTES: ReadonlyMap<number, number> = new Map();

export function GraphPane(props: {
  index: RunIndex;
  findings: ReadonlyMap<number, number>;
  relations?: readonly Relation[];
  notes?: ReadonlyMap<number, number>;
}) {
  return (
    <ReactFlowProvider>
      <GraphPaneInner {...props} />
    </ReactFlowProvider>
  );
}

/**
 * A thin React Flow wrapper: the graph is built by lib/graph (pure), laid out in a worker,
 * and only drawn here. Big runs show a window of steps around the selection.
 */
function GraphPaneInner({
  index,
  findings,
  relations = NO_RELATIONS,
  notes = NO_NOTES,
}: {
  index: RunIndex;
  findings: ReadonlyMap<number, number>;
  relations?: readonly Relation[];
  notes?: ReadonlyMap<number, number>;
}) {
  const api = useRunStoreApi();
  const selectedSeq = useRunStore((s) => s.selectedSeq);
  const overrides = useRunStore((s) => s.stepOverrides);
  const mode = useRunStore((s) => s.collapseMode);
  const engine = useRunStore((s) => s.layoutEngine);
  const matches = useRunStore((s) => s.matches);
  const dark = useIsDark();
  const flow = useReactFlow();
  const container = useRef<HTMLDivElement>(null);

  const selectedRow = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
  const selectedStep = selectedRow >= 0 ? index.summary.step[selectedRow] : null;
  const item = selectedRow >= 0 ? index.itemOfRow[selectedRow] : 0;
  const { from: winFrom, to: winTo } = graphWindow(index.items.length, item);
  const big = index.n > AUTO_EXPAND_EVENTS;

  const graph = useMemo(
    () =>
      buildStepGraph(index, {
        collapsed: (id) => {
          const o = overrides[id];
          if (o !== undefined) return !o;
          if (mode === "all") return true;
          if (mode === "none") return false;
          return big && id !== selectedStep;
        },
        window: { from: winFrom, to: winTo },
        findings,
        relations,
        notes,
      }),
    // the window's bounds, not the selection: stepping inside a window keeps the same graph
    [index, overrides, mode, big, selectedStep, winFrom, winTo, findings, relations, notes],
  );
  const { layout, error } = useGraphLayout(graph, engine);

  const matchedSeqs = useMemo(() => new Set(matches.map((r) => index.summary.seq[r])), [matches, index]);

  const { nodes, edges } = useMemo(() => {
    if (!layout) return { nodes: [] as Node[], edges: [] as Edge[] };
    const nodes: Node[] = [];
    for (const n of graph.nodes) {
      const box = layout.boxes[n.id];
      if (!box) continue;
      nodes.push(toFlowNode(n, box, selectedSeq, selectedStep, matchedSeqs));
    }
    const present = new Set(nodes.map((n) => n.id));
    const edges: Edge[] = graph.edges
      .filter((e) => present.has(e.source) && present.has(e.target))
      .map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        className: `edge-${e.kind}`,
        type: e.kind === "order" ? "smoothstep" : "default",
        zIndex: e.kind === "order" ? 0 : 1,
        // between two events, out and back in on their right side (nodes.tsx), clear of the order line
        ...((e.kind === "retry" || e.kind === "duplicate") && e.source.startsWith("e") && e.target.startsWith("e")
          ? { sourceHandle: "rel-out", targetHandle: "rel-in" }
          : {}),
        focusable: false,
      }));
    return { nodes, edges };
  }, [graph, layout, selectedSeq, selectedStep, matchedSeqs]);

  // roving focus: when a node has the focus and the selection moves (j/k, arrows), the focus
  // moves to the node of the new selection
  useEffect(() => {
    const el = container.current;
    if (!el || !el.contains(document.activeElement) || !document.activeElement?.classList.contains("react-flow__node")) return;
    const node =
      graph.nodes.find((n) => n.kind === "event" && n.seq === selectedSeq) ??
      graph.nodes.find((n) => n.kind === "step" && n.collapsed && n.stepId === selectedStep);
    if (!node) return;
    const target = el.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(node.id)}"]`);
    if (target && target !== document.activeElement) target.focus({ preventScroll: true });
  }, [graph, selectedSeq, selectedStep, nodes]);

  // ready once the first layout is drawn
  const drawn = nodes.length > 0 || graph.nodes.length === 0;
  useEffect(() => {
    if (drawn && !api.getState().graphReady) api.getState().setGraphReady(true);
  }, [drawn, api]);

  // keep the selection on screen: centre on it when it is outside the visible area
  const lastWindow = useRef<string>("");
  useEffect(() => {
    if (!layout || selectedSeq === null) return;
    const target =
      graph.nodes.find((n) => n.kind === "event" && n.seq === selectedSeq) ??
      graph.nodes.find((n) => n.kind === "step" && n.stepId === selectedStep);
    if (!target) return;
    const box = layout.boxes[target.id];
    if (!box) return;
    const parent = target.parent ? layout.boxes[target.parent] : null;
    const cx = (parent?.x ?? 0) + box.x + box.width / 2;
    const cy = (parent?.y ?? 0) + box.y + box.height / 2;
    const el = container.current;
    const vp = flow.getViewport();
    const w = el?.clientWidth ?? 800;
    const h = el?.clientHeight ?? 400;
    const sx = cx * vp.zoom + vp.x;
    const sy = cy * vp.zoom + vp.y;
    const windowChanged = lastWindow.current !== layout.signature.split(":").slice(0, 2).join(":");
    lastWindow.current = layout.signature.split(":").slice(0, 2).join(":");
    const margin = 60;
    if (windowChanged || sx < margin || sx > w - margin || sy < margin || sy > h - margin) {
      const zoom = windowChanged ? 0.85 : vp.zoom;
      void flow.setCenter(cx, cy, { zoom, duration: windowChanged ? 0 : 180 });
    }
  }, [layout, selectedSeq, selectedStep, graph, flow]);

  // the pane changed size (the resume plan opened above it, a splitter moved, the window
  // resized): fit the view again to the selection, or to the whole graph without one, so a
  // node stays in view. The latest layout is read through a ref: the observer stays put.
  const canvas = useRef<HTMLDivElement>(null);
  const fitTarget = useRef<string | null>(null);
  useEffect(() => {
    fitTarget.current = selectedNodeId(graph.nodes, selectedSeq, selectedStep);
  }, [graph, selectedSeq, selectedStep]);
  const hasLayout = !!layout;
  useEffect(() => {
    const el = canvas.current;
    if (!el || !hasLayout || typeof ResizeObserver === "undefined") return;
    let last = { w: el.clientWidth, h: el.clientHeight };
    let frame = 0;
    const observer = new ResizeObserver(() => {
      const now = { w: el.clientWidth, h: el.clientHeight };
      if (now.w === last.w && now.h === last.h) return;
      last = now;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const id = fitTarget.current;
        void flow.fitView({ ...(id ? { nodes: [{ id }] } : {}), padding: 0.2, maxZoom: 0.85, minZoom: 0.05 });
      });
    });
    observer.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [flow, hasLayout]);

  // the selected step's box (an open step's group, or the collapsed node), in flow coordinates
  const stepNode = selectedStep === null ? undefined : graph.nodes.find((n) => n.kind === "step" && n.stepId === selectedStep);
  const stepBox = stepNode && layout ? layout.boxes[stepNode.id] : undefined;
  const fitStep = () => {
    if (!stepBox) return;
    void flow.fitBounds({ x: stepBox.x, y: stepBox.y, width: stepBox.width, height: stepBox.height }, { padding: 0.08, duration: 200 });
  };

  return (
    <div className="graph-pane" ref={container} data-graph-ready={drawn ? "true" : "false"}>
      <div className="graph-status">
        <span title="Big runs show a window of steps around the selection; the timeline shows the whole run">
          {graph.window.total > graph.window.to - graph.window.from
            ? `${(graph.window.from + 1).toLocaleString("en-US")}–${graph.window.to.toLocaleString("en-US")} of ${graph.window.total.toLocaleString("en-US")}`
            : plural(index.steps.length, "step")}
        </span>
        <label>
          steps{" "}
          <select
            aria-label="Step grouping"
            value={mode}
            onChange={(e) => api.getState().setCollapseMode(e.target.value as "auto" | "all" | "none")}
          >
            <option value="auto">{big ? "auto (selected open)" : "auto"}</option>
            <option value="all">all collapsed</option>
            <option value="none">all expanded</option>
          </select>
        </label>
        <label>
          layout{" "}
          <select
            aria-label="Layout engine"
            value={engine}
            onChange={(e) => api.getState().setLayoutEngine(e.target.value as "sequence" | "elk")}
          >
            <option value="sequence">sequence</option>
            <option value="elk">ELK layered</option>
          </select>
        </label>
        <button
          type="button"
          className="fit-step"
          onClick={fitStep}
          disabled={!stepBox}
          title={stepBox ? `Zoom the graph to step ${selectedStep}` : "Select an event inside a step to fit the graph to it"}
        >
          Fit step
        </button>
        {error ? <span className="bad">layout failed: {error}</span> : null}
      </div>
      <div className="graph-canvas" ref={canvas}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          colorMode={dark ? "dark" : "light"}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          edgesFocusable={false}
          nodesFocusable={false}
          onlyRenderVisibleElements
          minZoom={0.05}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
          onNodeClick={(_, node) => {
            const d = node.data as EventFlowNode["data"] | StepFlowNode["data"];
            if (d.node.kind === "event") api.getState().select(d.node.seq);
            else if (d.node.collapsed) api.getState().select(d.node.firstSeq);
          }}
        >
          <Background gap={24} size={1} />
        </ReactFlow>
      </div>
      {/* toolbar, legend, controls and minimap sit beside the canvas, never over a node */}
      <div className="graph-foot">
        <div className="graph-legend" aria-label="Legend">
          <span className="legend-kinds" aria-label="Kinds">
            {(["model", "tool-read", "tool-write", "approval", "state", "checkpoint", "decision", "error"] as const).map((k) => (
              <KindBadge key={k} kind={k} />
            ))}
          </span>
          <ul className="legend-edges" aria-label="Edges">
            {EDGE_LEGEND.filter((l) => l.kind !== "duplicate" || graph.edges.some((e) => e.kind === "duplicate")).map((l) => (
              <li key={l.kind} title={l.title} data-edge={l.kind}>
                <svg width="22" height="8" aria-hidden="true" className={`legend-line edge-${l.kind}`}>
                  <path d="M1 4 H21" />
                </svg>
                {l.label}
              </li>
            ))}
          </ul>
        </div>
        <div className="graph-tools">
          <Controls showInteractive={false} orientation="horizontal" position="bottom-left" />
          <MiniMap pannable zoomable ariaLabel="Graph overview" nodeColor={(n) => minimapColor(n)} style={{ width: 120, height: 56 }} />
        </div>
      </div>
    </div>
  );
}

function toFlowNode(
  n: GraphNodeData,
  box: { x: number; y: number; width: number; height: number },
  selectedSeq: number | null,
  selectedStep: string | null,
  matched: ReadonlySet<number>,
): Node {
  if (n.kind === "event") {
    return {
      id: n.id,
      type: "event",
      position: { x: box.x, y: box.y },
      parentId: n.parent ?? undefined,
      width: box.width,
      height: box.height,
      data: { node: n, selected: n.seq === selectedSeq, matched: matched.has(n.seq) },
      ariaRole: "button",
      // roving focus: only the selected node is a Tab stop; the keys move the selection and the focus with it
      focusable: n.seq === selectedSeq,
      domAttributes: n.seq === selectedSeq ? undefined : { tabIndex: -1 },
      ariaLabel: `#${n.seq} ${n.type}${n.name ? ` ${n.name}` : ""}${n.failed ? " (failed)" : ""}${n.findings ? ` (${n.findings} finding${n.findings > 1 ? "s" : ""})` : ""}${n.notes ? ` (${n.notes} note${n.notes > 1 ? "s" : ""})` : ""}`,
      className: "ev-node",
      zIndex: 2,
    } satisfies EventFlowNode;
  }
  return {
    id: n.id,
    type: "step",
    position: { x: box.x, y: box.y },
    width: box.width,
    height: box.height,
    style: { width: box.width, height: box.height },
    data: { node: n, selected: n.stepId === selectedStep },
    ariaRole: n.collapsed ? "button" : "group",
    // a collapsed step stands for its selected event; an open step is no stop of its own
    focusable: n.collapsed && n.stepId === selectedStep,
    domAttributes: n.collapsed && n.stepId === selectedStep ? undefined : { tabIndex: -1 },
    ariaLabel: `Step ${n.label}${n.collapsed ? ` (collapsed, ${n.eventCount} events)` : ""}`,
    zIndex: n.collapsed ? 2 : 0,
  } satisfies StepFlowNode;
}

function minimapColor(n: Node): string {
  const d = n.data as EventFlowNode["data"] | StepFlowNode["data"];
  if (d.node.kind === "step") return d.node.failures > 0 ? "#e03131" : d.node.collapsed ? "#868e96" : "transparent";
  if (d.selected) return "#f0b400";
  if (d.node.failed) return "#e03131";
  return KIND_COLOURS[d.node.eventKind] ?? "#868e96";
}

const KIND_COLOURS: Record<(typeof EVENT_KINDS)[number], string> = {
  run: "#495057",
  step: "#868e96",
  input: "#1c7ed6",
  retrieval: "#0c8599",
  context: "#5f3dc4",
  model: "#7048e8",
  "tool-read": "#1971c2",
  "tool-write": "#d9480f",
  approval: "#c2255c",
  state: "#2f9e44",
  checkpoint: "#087f5b",
  decision: "#e67700",
  error: "#e03131",
  reconcile: "#9c36b5",
  note: "#74808c",
  extension: "#5c7cfa",
};

/** The id of the node the selection is drawn as: its event, else its step (a collapsed one). */
function selectedNodeId(nodes: readonly GraphNodeData[], seq: number | null, step: string | null): string | null {
  if (seq === null) return null;
  const node = nodes.find((n) => n.kind === "event" && n.seq === seq) ?? nodes.find((n) => n.kind === "step" && n.stepId === step);
  return node?.id ?? null;
}
