/**
 * The default layout: made for agent runs, which are sequences. The top level runs left to
 * right; inside an expanded step each event sits one layer below the event it hangs from
 * (its cause in the same step, else its predecessor), and events hanging from the same
 * one share a layer side by side (parallel tool calls). Linear time, so it lays out a
 * window far faster than ELK (`npm run bench:viewer`); and a step opening
 * moves only the steps after it sideways.
 */
import { STEP_HEADER, STEP_PADDING, type StepGraph } from "./build";
import type { GraphLayout, NodeBox } from "./layout";

const TOP_GAP = 36;
const LAYER_GAP = 14;
const LANE_GAP = 14;

export function layoutSequence(graph: StepGraph): GraphLayout {
  const boxes: Record<string, NodeBox> = {};
  const children = new Map<string, string[]>();
  const size = new Map<string, { width: number; height: number }>();
  for (const n of graph.nodes) {
    size.set(n.id, { width: n.width, height: n.height });
    if (n.parent) {
      const list = children.get(n.parent) ?? [];
      list.push(n.id);
      children.set(n.parent, list);
    }
  }
  // the cause of each event inside the same step (the same rule as the ELK conversion)
  const parentOf = new Map(graph.nodes.map((n) => [n.id, n.parent] as const));
  const cause = new Map<string, string>();
  for (const e of graph.edges) {
    if (e.kind === "parent" && parentOf.get(e.source) && parentOf.get(e.source) === parentOf.get(e.target)) cause.set(e.target, e.source);
  }

  let x = 0;
  for (const n of graph.nodes) {
    if (n.parent) continue;
    const kids = children.get(n.id);
    if (n.kind === "step" && !n.collapsed && kids) {
      const layerOf = new Map<string, number>();
      const layers: string[][] = [];
      let prev: string | null = null;
      for (const id of kids) {
        const from = cause.get(id) ?? prev;
        const layer = from !== null && layerOf.has(from) ? layerOf.get(from)! + 1 : 0;
        // never above the layer of an earlier event: keeps seq order top to bottom
        const prevLayer = prev !== null ? (layerOf.get(prev) ?? 0) : 0;
        const l = Math.max(layer, from === prev ? layer : prevLayer);
        layerOf.set(id, l);
        (layers[l] ??= []).push(id);
        prev = id;
      }
      let y = STEP_HEADER;
      let width = 0;
      for (const layer of layers) {
        if (!layer) continue;
        let lx = STEP_PADDING;
        let h = 0;
        for (const id of layer) {
          const s = size.get(id)!;
          boxes[id] = { x: lx, y, width: s.width, height: s.height };
          lx += s.width + LANE_GAP;
          h = Math.max(h, s.height);
        }
        width = Math.max(width, lx - LANE_GAP + STEP_PADDING);
        y += h + LAYER_GAP;
      }
      const box = { x, y: 0, width: Math.max(width, 160), height: y - LAYER_GAP + STEP_PADDING };
      boxes[n.id] = box;
      x += box.width + TOP_GAP;
    } else {
      const s = size.get(n.id)!;
      boxes[n.id] = { x, y: 0, width: s.width, height: s.height };
      x += s.width + TOP_GAP;
    }
  }
  return { signature: graph.signature, boxes };
}
