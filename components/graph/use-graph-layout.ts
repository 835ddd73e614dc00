"use client";
import { useEffect, useRef, useState } from "react";
import type { GraphLayout, LayoutEngine, StepGraph } from "@/lib/graph";
import { getLayoutWorker } from "./layout-worker";

const CACHE = 24;

/**
 * Lays out a StepGraph in the layout worker. Only the newest request matters: the answer
 * to one the graph or engine has since replaced is dropped. Layouts are cached by
 * signature, so going back to a window or a step state seen before is instant.
 */
export function useGraphLayout(graph: StepGraph, engine: LayoutEngine): { layout: GraphLayout | null; error: string | null } {
  const cache = useRef(new Map<string, GraphLayout>());
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
    let superseded = false;
    w.layout(engine, graph).then(
      (result) => {
        if (superseded) return;
        const c = cache.current;
        c.set(key, result);
        if (c.size > CACHE) c.delete(c.keys().next().value as string);
        setError(null);
        setLayout(result);
      },
      (err: unknown) => {
        if (!superseded) setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      superseded = true;
    };
  }, [graph, engine]);

  return { layout, error };
}
