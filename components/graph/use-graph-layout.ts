"use client";
import { useEffect, useRef, useState } from "react";
import type { GraphLayout, LayoutEngine, LayoutRequest, LayoutResponse, StepGraph } from "@/lib/graph";
import { getLayoutWorker, nextLayoutRequestId } from "./layout-worker";

const CACHE = 24;

/**
 * Lays out a StepGraph in the layout worker. Only the newest request matters: older
 * answers are dropped. Layouts are cached by signature, so going back to a window or a
 * step state seen before is instant.
 */
export function useGraphLayout(graph: StepGraph, engine: LayoutEngine): { layout: GraphLayout | null; error: string | null } {
  const cache = useRef(new Map<string, GraphLayout>());
  const latest = useRef(0);
  const [layout, setLayout] = useState<GraphLayout | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const key = `${engine}|${graph.signature}`;
    const hit = cache.current.get(key);
    if (hit) {
      setLayout(hit);
      return;
    }
    const w = getLayoutWorker();
    if (!w) return;
    const id = nextLayoutRequestId();
    latest.current = id;
    const onMessage = (e: MessageEvent<LayoutResponse>) => {
      if (e.data.id !== id) return;
      w.removeEventListener("message", onMessage);
      if (!e.data.ok) {
        setError(e.data.error);
        return;
      }
      const c = cache.current;
      c.set(key, e.data.layout);
      if (c.size > CACHE) c.delete(c.keys().next().value as string);
      if (id === latest.current) {
        setError(null);
        setLayout(e.data.layout);
      }
    };
    w.addEventListener("message", onMessage);
    const req: LayoutRequest = { id, engine, graph };
    w.postMessage(req);
    return () => w.removeEventListener("message", onMessage);
  }, [graph, engine]);

  return { layout, error };
}
