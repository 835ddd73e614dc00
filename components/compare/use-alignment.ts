"use client";
import { releaseProxy, wrap, type Remote } from "comlink";
import { useEffect, useRef, useState } from "react";
import type { Alignment, CompareEvent } from "@/lib/compare";
import type { AlignWorkerApi } from "./align.worker";

interface AlignWorker {
  worker: Worker;
  remote: Remote<AlignWorkerApi>;
  busy: boolean;
}

function startWorker(): AlignWorker {
  const worker = new Worker(new URL("./align.worker.ts", import.meta.url), { type: "module", name: "compare-align" });
  return { worker, remote: wrap<AlignWorkerApi>(worker), busy: false };
}

function stopWorker(w: AlignWorker) {
  w.remote[releaseProxy]();
  w.worker.terminate();
}

export type AlignmentState =
  | { phase: "idle"; alignment: null; error: null }
  | { phase: "aligning"; alignment: null; error: null }
  | { phase: "ready"; alignment: Alignment; error: null }
  | { phase: "error"; alignment: null; error: string };

/**
 * Aligns two runs in a worker of this page (lib/compare's alignRuns). Only the newest pair
 * matters: an alignment still running when the pair changes cannot be interrupted inside
 * the worker, so that worker is stopped and a fresh one takes the new pair. The worker is
 * stopped when the page unmounts.
 */
export function useAlignment(a: CompareEvent[] | undefined, b: CompareEvent[] | undefined): AlignmentState {
  const current = useRef<AlignWorker | null>(null);
  const [state, setState] = useState<{ a: CompareEvent[]; b: CompareEvent[]; result: AlignmentState } | null>(null);

  useEffect(
    () => () => {
      if (current.current) stopWorker(current.current);
      current.current = null;
    },
    [],
  );

  useEffect(() => {
    if (!a || !b) return;
    if (current.current?.busy) {
      stopWorker(current.current);
      current.current = null;
    }
    const w = (current.current ??= startWorker());
    let superseded = false;
    const fail = (message: string) => {
      if (!superseded) setState({ a, b, result: { phase: "error", alignment: null, error: message } });
    };
    // a worker script that cannot load, or one that ran out of memory, never answers
    w.worker.onerror = (e) => {
      e.preventDefault();
      w.busy = false;
      if (current.current === w) current.current = null;
      stopWorker(w);
      fail(`the alignment worker stopped (${e.message || "its script could not be loaded"}); reload the page`);
    };
    w.busy = true;
    w.remote.align(a, b).then(
      (alignment) => {
        w.busy = false;
        if (!superseded) setState({ a, b, result: { phase: "ready", alignment, error: null } });
      },
      (err: unknown) => {
        w.busy = false;
        fail(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      superseded = true;
    };
  }, [a, b]);

  if (!a || !b) return { phase: "idle", alignment: null, error: null };
  // the answer for another pair (or none yet) is not this pair's: still aligning
  if (!state || state.a !== a || state.b !== b) return { phase: "aligning", alignment: null, error: null };
  return state.result;
}
