"use client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { Fidelity } from "@/lib/journal/types";
import type { ForkSpec } from "@/lib/replay";
import { runKeys } from "@/components/data/query-keys";
import { fetchEventPages } from "./event-pages";
import { forkKey, type ReplayResult, type WorkerRequest, type WorkerResponse } from "./protocol";
import { useReplayStoreApi } from "./replay-store";

export type SessionPhase = "fetching" | "folding" | "ready" | "error";

/**
 * The replay of one run in a worker started for this page: loads the events once,
 * replays again whenever the fork changes, and fetches the payloads and state of the
 * frame under the playhead. Scrubbing sends at most one frame request at a time and only
 * the newest waiting one after it, so the frame shown never lags far behind.
 */
export function useReplaySession(run: string, fidelity: Fidelity | undefined, fork: ForkSpec | null, onResult: (r: ReplayResult) => void) {
  const api = useReplayStoreApi();
  const pages = useQuery({
    queryKey: runKeys.eventPages(run),
    queryFn: ({ signal }) => fetchEventPages(run, signal),
    staleTime: Infinity,
    gcTime: 30_000,
  });
  const [phase, setPhase] = useState<SessionPhase>("fetching");
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const worker = useRef<Worker | null>(null);
  /** The worker failed to start or crashed: nothing more will come from it. */
  const dead = useRef(false);
  const nextId = useRef(0);
  const replayId = useRef(0);
  const views = useRef<{ inflight: number | null; pending: number | null }>({ inflight: null, pending: null });
  const onResultRef = useRef(onResult);
  onResultRef.current = onResult;
  const key = forkKey(fork);
  const forkRef = useRef(fork);
  forkRef.current = fork;

  useEffect(() => {
    const w = new Worker(new URL("./replay.worker.ts", import.meta.url), { type: "module", name: "replay" });
    worker.current = w;
    const requestView = (index: number) => {
      const q = views.current;
      const result = api.getState().result;
      if (!result || index < 0 || index >= result.rows.length) return;
      if (q.inflight !== null) {
        q.pending = index;
        return;
      }
      const id = ++nextId.current;
      q.inflight = id;
      const req: WorkerRequest = { kind: "view", id, key: result.key, index };
      w.postMessage(req);
    };
    w.onmessage = (e: MessageEvent<WorkerResponse>) => {
      const msg = e.data;
      if (msg.kind === "loaded") {
        setLoaded(true);
        return;
      }
      if (msg.kind === "replayed") {
        if (msg.id !== replayId.current) return;
        views.current = { inflight: null, pending: null };
        api.getState().setResult(msg);
        onResultRef.current(msg);
        setPhase("ready");
        setError(null);
        requestView(api.getState().cursor);
        return;
      }
      if (msg.kind === "view") {
        const q = views.current;
        if (msg.id !== q.inflight) return;
        q.inflight = null;
        if (msg.key === api.getState().result?.key) api.getState().setView(msg);
        const pending = q.pending;
        q.pending = null;
        if (pending !== null && pending !== msg.index) requestView(pending);
        else if (api.getState().cursor !== msg.index) requestView(api.getState().cursor);
        return;
      }
      if (msg.id === views.current.inflight) views.current.inflight = null;
      setError(msg.message);
      setPhase("error");
    };
    w.onerror = (e) => {
      // a script that cannot load (a deploy replaced it) or a crash: the worker is gone
      dead.current = true;
      setError(`the replay worker stopped (${e.message || "its script could not be loaded"}); reload the page`);
      setPhase("error");
    };
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.cursor !== prev.cursor) requestView(s.cursor);
    });
    return () => {
      unsubscribe();
      w.terminate();
      worker.current = null;
      setLoaded(false);
    };
  }, [api]);

  useEffect(() => {
    const w = worker.current;
    if (!w || !pages.data || dead.current) return;
    setLoaded(false);
    setPhase("folding");
    const req: WorkerRequest = { kind: "load", id: ++nextId.current, run, pages: pages.data, fidelity };
    w.postMessage(req);
  }, [pages.data, run, fidelity]);

  useEffect(() => {
    const w = worker.current;
    if (!w || !loaded || dead.current) return;
    setPhase("folding");
    const id = ++nextId.current;
    replayId.current = id;
    const req: WorkerRequest = { kind: "replay", id, fork: forkRef.current };
    w.postMessage(req);
  }, [loaded, key]);

  const fetchError = pages.isError ? (pages.error instanceof Error ? pages.error.message : String(pages.error)) : null;
  return { phase: fetchError ? ("error" as const) : phase, error: fetchError ?? error, eventPages: pages.data?.length ?? 0 };
}
