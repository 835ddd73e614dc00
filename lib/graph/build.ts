/**
 * The step graph as data: steps as groups (or one summary node when collapsed), events as
 * nodes, edges for order and for cause (`parent`, and a request to its answer by `call`).
 * Pure and deterministic; drawing (React Flow) and layout (ELK in a worker) come after.
 *
 * Big runs are shown through a window of the top-level sequence (steps and events outside
 * steps): the caller picks the window around the selection, so a 100,000-event run is a
 * graph of a few dozen nodes.
 */
import { EVENT_KINDS, type EventKind } from "./kind";
import type { RunIndex } from "./run-index";

const EVENT_NODE = { width: 200, height: 40 } as const;
const COLLAPSED_NODE = { width: 210, height: 78 } as const;
/** Space above an expanded step's children for its header. */
export const STEP_HEADER = 40;
export const STEP_PADDING = 12;

export interface EventNodeData {
  kind: "event";
  id: string;
  parent: string | null;
  row: number;
  seq: number;
  type: string;
  name: string | null;
  status: string | null;
  eventKind: EventKind;
  failed: boolean;
  findings: number;
  /** reviewers' notes on this event */
  notes: number;
  width: number;
  height: number;
}

export interface StepNodeData {
  kind: "step";
  id: string;
  parent: null;
  stepId: string;
  ordinal: number;
  label: string;
  collapsed: boolean;
  eventCount: number;
  firstSeq: number;
  lastSeq: number;
  status: string | null;
  failures: number;
  findings: number;
  /** reviewers' notes on the step's events */
  notes: number;
  durationMs: number;
  kindCounts: Partial<Record<EventKind, number>>;
  /** Layout fills width and height of expanded steps from their children. */
  width: number;
  height: number;
}

export type GraphNodeData = EventNodeData | StepNodeData;

interface GraphEdgeData {
  id: string;
  source: string;
  target: string;
  /** order in the run, cause (`parent`), a request to its answer (`call`), a later write retrying or repeating an earlier one */
  kind: "order" | "parent" | "call" | "retry" | "duplicate";
}

export interface StepGraph {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
  /** Top-level items shown: [from, to) of `total`. */
  window: { from: number; to: number; total: number };
  /** A key that changes exactly when the layout must change. */
  signature: string;
}

export interface BuildOptions {
  /** Is this step (by id) shown collapsed? */
  collapsed: (stepId: string) => boolean;
  /** Top-level item range to show, [from, to); all when absent. */
  window?: { from: number; to: number };
  /** Number of findings per seq. */
  findings?: ReadonlyMap<number, number>;
  /** Calls related by a finding (lib/view/relations.ts): drawn from the earlier call to the later. */
  relations?: ReadonlyArray<{ kind: "retry" | "duplicate"; earlier: number; later: number }>;
  /** Number of reviewers' notes per seq. */
  notes?: ReadonlyMap<number, number>;
}

const eventNodeId = (seq: number) => `e${seq}`;
const stepNodeId = (stepId: string) => `s:${stepId}`;

export function buildStepGraph(index: RunIndex, opts: BuildOptions): StepGraph {
  const s = index.summary;
  const total = index.items.length;
  const from = Math.max(0, Math.min(opts.window?.from ?? 0, total));
  const to = Math.max(from, Math.min(opts.window?.to ?? total, total));
  const findings = opts.findings ?? new Map<number, number>();
  const notes = opts.notes ?? new Map<number, number>();
  const nodes: GraphNodeData[] = [];
  const edges: GraphEdgeData[] = [];
  const edgeIds = new Set<string>();
  /** The visible node standing for each row shown (its own node, or its collapsed step). */
  const repOfRow = new Map<number, string>();

  const addEdge = (source: string, target: string, kind: GraphEdgeData["kind"]) => {
    if (source === target) return;
    const id = `${kind}:${source}->${target}`;
    // one edge per pair of nodes: an order edge already joining them says enough
    if (edgeIds.has(id) || edgeIds.has(`order:${source}->${target}`)) return;
    edgeIds.add(id);
    edges.push({ id, source, target, kind });
  };

  const eventNode = (row: number, parent: string | null): EventNodeData => {
    const seq = s.seq[row];
    return {
      kind: "event",
      id: eventNodeId(seq),
      parent,
      row,
      seq,
      type: s.type[row],
      name: s.name[row],
      status: s.status[row],
      eventKind: EVENT_KINDS[index.kindOfRow[row]],
      failed: index.failed[row] === 1,
      findings: findings.get(seq) ?? 0,
      notes: notes.get(seq) ?? 0,
      ...EVENT_NODE,
    };
  };

  let prevTop: string | null = null;
  const sig: string[] = [];
  for (let i = from; i < to; i++) {
    const item = index.items[i];
    let topId: string;
    if (item.kind === "event") {
      const node = eventNode(item.row, null);
      nodes.push(node);
      repOfRow.set(item.row, node.id);
      topId = node.id;
      sig.push(node.id);
    } else {
      const step = index.steps[item.step];
      const collapsed = opts.collapsed(step.id);
      topId = stepNodeId(step.id);
      let stepFindings = 0;
      let stepNotes = 0;
      for (const r of step.rows) {
        stepFindings += findings.get(s.seq[r]) ?? 0;
        stepNotes += notes.get(s.seq[r]) ?? 0;
      }
      nodes.push({
        kind: "step",
        id: topId,
        parent: null,
        stepId: step.id,
        ordinal: step.ordinal,
        label: step.name ?? step.id,
        collapsed,
        eventCount: step.rows.length,
        firstSeq: s.seq[step.rows[0]],
        lastSeq: s.seq[step.rows[step.rows.length - 1]],
        status: step.status,
        failures: step.failures,
        findings: stepFindings,
        notes: stepNotes,
        durationMs: step.endMs - step.startMs,
        kindCounts: step.kindCounts,
        width: collapsed ? COLLAPSED_NODE.width : 0,
        height: collapsed ? COLLAPSED_NODE.height : 0,
      });
      sig.push(`${topId}${collapsed ? "-" : "+"}${step.rows.length}`);
      if (collapsed) {
        for (const r of step.rows) repOfRow.set(r, topId);
      } else {
        let prevChild: string | null = null;
        for (const r of step.rows) {
          const child = eventNode(r, topId);
          nodes.push(child);
          repOfRow.set(r, child.id);
          if (prevChild) addEdge(prevChild, child.id, "order");
          prevChild = child.id;
        }
      }
    }
    if (prevTop) addEdge(prevTop, topId, "order");
    prevTop = topId;
  }

  // causal edges between what is visible: parent → event, and request → answer by call
  const requestOfCall = new Map<string, number>();
  for (const [row, target] of repOfRow) {
    const p = s.parent[row];
    if (p >= 0) {
      const prow = index.rowOfSeq(p);
      const source = prow >= 0 ? repOfRow.get(prow) : undefined;
      if (source) addEdge(source, target, "parent");
    }
  }
  const rows = [...repOfRow.keys()].sort((a, b) => a - b);
  for (const row of rows) {
    const type = s.type[row];
    const call = s.call[row];
    if (call === null) continue;
    if (type === "model.request" || type === "tool.call") requestOfCall.set(`${type[0]}:${call}`, row);
    else if (type === "model.response" || type === "tool.result") {
      const req = requestOfCall.get(`${type[0]}:${call}`);
      if (req === undefined || s.parent[row] === s.seq[req]) continue;
      const source = repOfRow.get(req);
      const target = repOfRow.get(row);
      if (source && target) addEdge(source, target, "call");
    }
  }

  // a retry or duplicate between two visible calls (not drawn inside one collapsed step)
  const related: string[] = [];
  for (const r of opts.relations ?? []) {
    const ra = index.rowOfSeq(r.earlier);
    const rb = index.rowOfSeq(r.later);
    const source = ra >= 0 ? repOfRow.get(ra) : undefined;
    const target = rb >= 0 ? repOfRow.get(rb) : undefined;
    if (!source || !target || source === target) continue;
    const id = `${r.kind}:${source}->${target}`;
    if (edgeIds.has(id)) continue;
    edgeIds.add(id);
    edges.push({ id, source, target, kind: r.kind });
    related.push(id);
  }

  // the related edges count for a layout that reads edges (ELK)
  const rel = related.length > 0 ? `|${related.join(",")}` : "";
  return { nodes, edges, window: { from, to, total }, signature: `${from}:${to}:${sig.join(",")}${rel}` };
}

/**
 * The window of top-level items to show around `item`: aligned to blocks of `block`
 * items so stepping through events inside the window never changes the graph.
 */
export function graphWindow(total: number, item: number, block = 16, span = 3): { from: number; to: number } {
  if (total <= block * span) return { from: 0, to: total };
  const b = Math.max(0, Math.floor(Math.max(0, item) / block));
  let from = (b - Math.floor(span / 2)) * block;
  from = Math.max(0, Math.min(from, total - block * span));
  return { from, to: Math.min(total, from + block * span) };
}
