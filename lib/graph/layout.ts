/**
 * Layout of a StepGraph with ELK (layered): the top level runs left to right, events
 * inside an expanded step run top to bottom. Only the ELK graph conversion lives here;
 * the ELK engine is passed in, so this runs in the layout worker and in vitest alike.
 *
 * Layout edges are a subset of the drawn edges: the top-level order, and inside a step
 * each event hangs under its cause when the cause is in the same step (so parallel tool
 * calls sit side by side) and under its predecessor otherwise.
 */
import { STEP_HEADER, STEP_PADDING, type StepGraph } from "./build";

interface ElkLikeNode {
  id: string;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  children?: ElkLikeNode[];
  edges?: { id: string; sources: string[]; targets: string[] }[];
  layoutOptions?: Record<string, string>;
}

export interface ElkEngine {
  layout(graph: ElkLikeNode): Promise<ElkLikeNode>;
}

/** Position relative to the parent node (React Flow's convention for child nodes). */
export interface NodeBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphLayout {
  signature: string;
  boxes: Record<string, NodeBox>;
}

const ROOT_OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "RIGHT",
  "elk.spacing.nodeNode": "24",
  "elk.layered.spacing.nodeNodeBetweenLayers": "36",
  "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.alignment": "TOP",
};

const STEP_OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "DOWN",
  "elk.spacing.nodeNode": "14",
  "elk.layered.spacing.nodeNodeBetweenLayers": "14",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.padding": `[top=${STEP_HEADER},left=${STEP_PADDING},bottom=${STEP_PADDING},right=${STEP_PADDING}]`,
};

function toElkGraph(graph: StepGraph): ElkLikeNode {
  const root: ElkLikeNode = { id: "root", layoutOptions: ROOT_OPTIONS, children: [], edges: [] };
  const byId = new Map<string, ElkLikeNode>();
  const parentOf = new Map<string, string | null>();
  for (const n of graph.nodes) {
    parentOf.set(n.id, n.parent);
    const elk: ElkLikeNode =
      n.kind === "step" && !n.collapsed
        ? { id: n.id, layoutOptions: STEP_OPTIONS, children: [], edges: [] }
        : { id: n.id, width: n.width, height: n.height };
    byId.set(n.id, elk);
    if (n.parent) byId.get(n.parent)?.children?.push(elk);
    else root.children!.push(elk);
  }
  // inside steps: cause in the same step, else the predecessor (the order edge)
  const causeInStep = new Map<string, string>();
  for (const e of graph.edges) {
    if (e.kind === "parent" && parentOf.get(e.source) && parentOf.get(e.source) === parentOf.get(e.target))
      causeInStep.set(e.target, e.source);
  }
  for (const e of graph.edges) {
    const ps = parentOf.get(e.source) ?? null;
    const pt = parentOf.get(e.target) ?? null;
    if (ps !== pt) continue;
    const container = ps ? byId.get(ps) : root;
    if (!container?.edges) continue;
    if (ps === null) {
      if (e.kind === "order") container.edges.push({ id: e.id, sources: [e.source], targets: [e.target] });
    } else if (e.kind === "order" ? !causeInStep.has(e.target) : e.kind === "parent" && causeInStep.get(e.target) === e.source) {
      container.edges.push({ id: e.id, sources: [e.source], targets: [e.target] });
    }
  }
  return root;
}

function fromElkLayout(signature: string, laidOut: ElkLikeNode): GraphLayout {
  const boxes: Record<string, NodeBox> = {};
  const walk = (n: ElkLikeNode) => {
    for (const c of n.children ?? []) {
      boxes[c.id] = { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 };
      walk(c);
    }
  };
  walk(laidOut);
  return { signature, boxes };
}

export async function layoutStepGraph(elk: ElkEngine, graph: StepGraph): Promise<GraphLayout> {
  return fromElkLayout(graph.signature, await elk.layout(toElkGraph(graph)));
}

/** `sequence` (lib/graph/sequence-layout.ts) by default; `elk` for ELK's layered layout. */
export type LayoutEngine = "sequence" | "elk";
