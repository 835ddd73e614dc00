"use client";
import { proxy, releaseProxy, wrap, type Remote } from "comlink";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Fidelity } from "@/lib/journal/types";
import type { ForkSpec } from "@/lib/replay";
import { forkKey, type ReplayAnswer, type ReplayProgress, type ReplayResult } from "./protocol";
import type { ReplayWorkerApi } from "./replay.worker";
import { useReplayStoreApi } from "./replay-store";

type SessionPhase = "fetching" | "streaming" | "folding" | "ready" | "error";

/**
 * The replay of one run in a worker started for this page (called through Comlink): the
 * worker fetches the events and folds the reconstruct page by page (the first frames show
 * while the rest loads: phase "streaming"), replays again whenever the fork changes, and
 * builds the rows on screen and the payloads and state of the frame under the playhead. The event pages never
 * pass through the page. Only the newest load and replay count; scrubbing
 * sends at most one frame request at a time and only the newest waiting one after it, so
 * the frame shown never lags far behind.
 */
export function useReplaySession(
  run: string,
  fidelity: Fidelity | undefined,
  /** the policy attached to the run, as JSON text (null: judged by the policy it recorded) */
  attachedPolicy: string | null,
  fork: ForkSpec | null,
  onResult: (r: ReplayResult) => void,
) {
  const api = useReplayStoreApi();
  const [phase, setPhase] = useState<SessionPhase>("fetching");
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const onReplayed = useRef<(r: ReplayAnswer) => void>(() => {});
  const onProgress = useRef<(p: ReplayProgress) => void>(() => {});
  const failRef = useRef<(err: unknown) => void>(() => {});
  const worker = useRef<Remote<ReplayWorkerApi> | null>(null);
  /** The worker failed to start or crashed: nothing more will come from it. */
  const dead = useRef(false);
  const nextId = useRef(0);
  const loadId = useRef(0);
  const replayId = useRef(0);
  const views = useRef<{ inflight: number | null; pending: number | null }>({ inflight: null, pending: null });
  const onResultRef = useRef(onResult);
  const key = forkKey(fork);
  const forkRef = useRef(fork);
  // the latest callback and fork, in place before the effects below post to the worker
  useLayoutEffect(() => {
    onResultRef.current = onResult;
    forkRef.current = fork;
  });

  useEffect(() => {
    const w = new Worker(new URL("./replay.worker.ts", import.meta.url), { type: "module", name: "replay" });
    const remote = wrap<ReplayWorkerApi>(w);
    worker.current = remote;
    const fail = (err: unknown) => {
      setError(err instanceof Error ? err.message : String(err));
      setPhase("error");
    };
    const requestView = (index: number) => {
      const q = views.current;
      const result = api.getState().result;
      if (!result || index < 0 || index >= result.frames.count) return;
      if (q.inflight !== null) {
        q.pending = index;
        return;
      }
      const id = ++nextId.current;
      q.inflight = id;
      remote.view(result.key, index).then(
        (view) => {
          const q = views.current;
          if (id !== q.inflight) return; // a newer replay reset the queue
          q.inflight = null;
          if (view === null) return; // that replay was replaced; its result requests the view
          if (view.key === api.getState().result?.key) api.getState().setView(view);
          const pending = q.pending;
          q.pending = null;
          if (pending !== null && pending !== index) requestView(pending);
          else if (api.getState().cursor !== index) requestView(api.getState().cursor);
        },
        (err: unknown) => {
          if (id === views.current.inflight) views.current.inflight = null;
          fail(err);
        },
      );
    };
    onReplayed.current = (r: ReplayAnswer) => {
      views.current = { inflight: null, pending: null };
      api.getState().setResult(r);
      const result = api.getState().result;
      if (result) onResultRef.current(result);
      setPhase("ready");
      setError(null);
      requestView(api.getState().cursor);
    };
    onProgress.current = (p: ReplayProgress) => {
      const first = api.getState().result === null || p.restart;
      api.getState().applyProgress(p);
      if (first) {
        views.current = { inflight: null, pending: null };
        setPhase("streaming");
        requestView(api.getState().cursor);
      }
    };
    w.onerror = (e) => {
      // a script that cannot load (a deploy replaced it) or a crash: the worker is gone
      dead.current = true;
      setError(`the replay worker stopped (${e.message || "its script could not be loaded"}); reload the page`);
      setPhase("error");
    };
    failRef.current = fail;
    api.getState().setRowSource((key, from, to) => remote.rows(key, from, to));
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.cursor !== prev.cursor) requestView(s.cursor);
    });
    return () => {
      unsubscribe();
      api.getState().setRowSource(null);
      remote[releaseProxy]();
      w.terminate();
      worker.current = null;
      setLoaded(false);
    };
  }, [api]);

  useEffect(() => {
    const remote = worker.current;
    if (!remote || dead.current) return;
    setLoaded(false);
    setPhase("fetching");
    const id = ++loadId.current;
    remote
      .load(
        run,
        fidelity,
        attachedPolicy,
        proxy((p: ReplayProgress) => {
          if (id === loadId.current) onProgress.current(p);
        }),
      )
      .then(
        () => {
          if (id !== loadId.current) return;
          setPhase("folding");
          setLoaded(true);
        },
        (err: unknown) => {
          if (id === loadId.current) failRef.current(err);
        },
      );
  }, [run, fidelity, attachedPolicy]);

  useEffect(() => {
    const remote = worker.current;
    if (!remote || !loaded || dead.current) return;
    setPhase("folding");
    const id = ++replayId.current;
    remote.replay(forkRef.current).then(
      (r) => {
        // null: a newer load replaced the run while this fold waited for its pages
        if (r !== null && id === replayId.current) onReplayed.current(r);
      },
      (err: unknown) => {
        if (id === replayId.current) failRef.current(err);
      },
    );
  }, [loaded, key]);

  return { phase, error };
}
