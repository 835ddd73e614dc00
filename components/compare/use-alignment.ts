"use client";
import { proxy, releaseProxy, wrap, type Remote } from "comlink";
import { useEffect, useRef, useState } from "react";
import type { CompactAlignment } from "@/lib/compare/compact";
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

/** Events of each run the worker has read so far (null before the first page). */
type AlignProgress = { a: number; b: number } | null;

type AlignmentState =
  | { phase: "idle"; alignment: null; error: null; progress: null }
  | { phase: "aligning"; alignment: null; error: null; progress: AlignProgress }
  | { phase: "ready"; alignment: CompactAlignment; error: null; progress: null }
  | { phase: "error"; alignment: null; error: string; progress: null };

/**
 * Aligns two runs in a worker of this page, which fetches their events itself
 * (align.worker.ts): the page holds the alignment's columns, never the events. Only the
 * newest pair matters: an alignment still running when the pair changes cannot be
 * interrupted inside the worker, so that worker is stopped and a fresh one takes the new
 * pair. The worker is stopped when the page unmounts.
 */
export function useAlignment(a: string | null, b: string | null): AlignmentState {
  const current = useRef<AlignWorker | null>(null);
  const [state, setState] = useState<{ a: string; b: string; result: AlignmentState } | null>(null);
  const [progress, setProgress] = useState<{ a: string; b: string; loaded: AlignProgress } | null>(null);

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
      if (!superseded) setState({ a, b, result: { phase: "error", alignment: null, error: message, progress: null } });
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
    w.remote
      .align(
        a,
        b,
        proxy((loadedA: number, loadedB: number) => {
          if (!superseded) setProgress({ a, b, loaded: { a: loadedA, b: loadedB } });
        }),
      )
      .then(
        (alignment) => {
          w.busy = false;
          if (!superseded) setState({ a, b, result: { phase: "ready", alignment, error: null, progress: null } });
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

  if (!a || !b) return { phase: "idle", alignment: null, error: null, progress: null };
  // the answer for another pair (or none yet) is not this pair's: still aligning
  if (!state || state.a !== a || state.b !== b) {
    const loaded = progress && progress.a === a && progress.b === b ? progress.loaded : null;
    return { phase: "aligning", alignment: null, error: null, progress: loaded };
  }
  return state.result;
}
