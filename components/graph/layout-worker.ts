"use client";
/**
 * One layout worker per tab, started as soon as a run page mounts (before its data
 * arrives) so ELK has loaded by the time the first graph needs laying out.
 */
let worker: Worker | null = null;

export function getLayoutWorker(): Worker | null {
  if (typeof window === "undefined" || typeof Worker === "undefined") return null;
  worker ??= new Worker(new URL("../../lib/graph/layout.worker.ts", import.meta.url), { type: "module", name: "graph-layout" });
  return worker;
}

let nextId = 0;
export const nextLayoutRequestId = () => ++nextId;
