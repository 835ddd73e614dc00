/**
 * The layout worker: layouts run here, off the main thread, so laying out a graph never
 * blocks stepping through events. Answers each LayoutRequest with its id; the page drops
 * answers to requests it has since superseded. ELK (about 1.4 MB, 300 ms to load) is only
 * loaded when asked for.
 */
import { layoutStepGraph, type ElkEngine, type LayoutRequest, type LayoutResponse } from "./layout";
import { layoutSequence } from "./sequence-layout";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(message: LayoutResponse): void;
};

let elk: Promise<ElkEngine> | null = null;
function loadElk(): Promise<ElkEngine> {
  elk ??= import("elkjs/lib/elk.bundled.js").then((m) => {
    const engine = new m.default() as unknown as ElkEngine;
    // elk.bundled installs its own onmessage when loaded in a worker; this worker speaks
    // its own protocol, so the handler is put back
    scope.onmessage = onMessage;
    return engine;
  });
  return elk;
}

function onMessage(e: MessageEvent<LayoutRequest>) {
  const { id, engine, graph } = e.data;
  const fail = (err: unknown) => scope.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  if (engine === "elk") {
    loadElk()
      .then((elkEngine) => layoutStepGraph(elkEngine, graph))
      .then((layout) => scope.postMessage({ id, ok: true, layout }), fail);
    return;
  }
  try {
    scope.postMessage({ id, ok: true, layout: layoutSequence(graph) });
  } catch (err) {
    fail(err);
  }
}

scope.onmessage = onMessage;
