/**
 * The layout worker: layouts run here, off the main thread, so laying out a graph never
 * blocks stepping through events. Comlink exposes `layout`; the page keeps only the answer
 * to its newest request. ELK (about 1.4 MB) is only loaded when asked for.
 */
import { expose } from "comlink";
import { layoutStepGraph, type ElkEngine, type GraphLayout, type LayoutEngine } from "@/lib/graph/layout";
import type { StepGraph } from "@/lib/graph/build";
import { layoutSequence } from "@/lib/graph/sequence-layout";

let elk: Promise<ElkEngine> | null = null;
function loadElk(): Promise<ElkEngine> {
  elk ??= import("elkjs/lib/elk.bundled.js").then((m) => {
    const engine = new m.default() as unknown as ElkEngine;
    // elk.bundled sets self.onmessage when loaded in a worker, and would answer Comlink's
    // messages too; the engine made above runs on this thread and does not need it
    self.onmessage = null;
    return engine;
  });
  return elk;
}

const api = {
  async layout(engine: LayoutEngine, graph: StepGraph): Promise<GraphLayout> {
    return engine === "elk" ? layoutStepGraph(await loadElk(), graph) : layoutSequence(graph);
  },
};

export type LayoutWorkerApi = typeof api;

expose(api);
