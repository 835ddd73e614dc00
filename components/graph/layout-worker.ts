"use client";
/**
 * One layout worker per tab, started as soon as a run page mounts (before its data
 * arrives) so ELK has loaded by the time the first graph needs laying out. Called
 * through Comlink: `await getLayoutWorker()?.layout(engine, graph)`.
 */
import { wrap, type Remote } from "comlink";
import type { LayoutWorkerApi } from "./layout.worker";

let worker: Remote<LayoutWorkerApi> | null = null;

export function getLayoutWorker(): Remote<LayoutWorkerApi> | null {
  if (typeof window === "undefined" || typeof Worker === "undefined") return null;
  worker ??= wrap<LayoutWorkerApi>(new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module", name: "graph-layout" }));
  return worker;
}
