"use client";
import { queryOptions, useInfiniteQuery, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { appendSummary, buildRunIndex, type RunIndex, type RunSummary } from "@/lib/graph";
import { decodeSummaryBinary } from "@/lib/graph/summary-binary";
import type { InspectAnswer, RunChange, RunDetail, SearchAnswer } from "@/lib/view/api-types";
import { visibleText } from "@/lib/view/text";
import { apiErrorOf, fetchJson } from "@/components/data/fetch-json";
import { runKeys } from "@/components/data/query-keys";

const enc = encodeURIComponent;
/** The binary summary (lib/graph/summary-binary.ts); the page preloads this very URL. */
const summaryUrl = (run: string, after = -1) => `/api/runs/${enc(run)}/summary?format=binary${after >= 0 ? `&after=${after}` : ""}`;

/** The run's columns after `after`, decoded, with invisible characters made visible (visibleText, lib/view/text.ts). */
async function fetchSummary(run: string, after: number, signal?: AbortSignal): Promise<RunSummary> {
  const res = await fetch(summaryUrl(run, after), { signal });
  if (!res.ok || !res.body) throw await apiErrorOf(res);
  // the body is the gzip of the packed columns; the browser inflates it natively
  const bytes = await new Response(res.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  return decodeSummaryBinary(bytes, visibleText);
}

/** The whole run's columns, decoded and indexed once; a live run appends to it. */
export function useRunIndex(run: string) {
  return useQuery({
    queryKey: runKeys.summary(run),
    queryFn: async ({ signal }) => buildRunIndex(await fetchSummary(run, -1, signal)),
    staleTime: Infinity,
  });
}

/** One event's inspect answer: the same key and fetch for the pane and the neighbours' prefetch. */
const inspectQuery = (run: string, seq: number, withState: boolean) =>
  queryOptions({
    queryKey: runKeys.inspect(run, seq, withState),
    queryFn: ({ signal }) => fetchJson<InspectAnswer>(`/api/runs/${enc(run)}/inspect?seq=${seq}${withState ? "&state=1" : ""}`, signal),
    staleTime: 30_000,
  });

export function useInspect(run: string, seq: number | null, withState: boolean) {
  return useQuery({ ...inspectQuery(run, seq ?? -1, withState), enabled: seq !== null && seq >= 0 });
}

export function prefetchInspect(qc: QueryClient, run: string, seq: number) {
  void qc.prefetchQuery(inspectQuery(run, seq, false));
}

/** Payload search on the server (the stored, redacted text), a page of matches at a time. */
export function usePayloadSearch(run: string, q: string) {
  return useInfiniteQuery({
    queryKey: runKeys.search(run, q),
    queryFn: ({ signal, pageParam }) =>
      fetchJson<SearchAnswer>(`/api/runs/${enc(run)}/search?q=${enc(q)}${pageParam >= 0 ? `&after=${pageParam}` : ""}`, signal),
    initialPageParam: -1,
    getNextPageParam: (last) => last.next ?? undefined,
    enabled: q.trim().length >= 2,
    staleTime: 30_000,
  });
}

async function catchUp(qc: QueryClient, run: string, change: RunChange) {
  const index = qc.getQueryData<RunIndex>(runKeys.summary(run));
  if (!index) return;
  const last = index.n > 0 ? index.summary.seq[index.n - 1] : -1;
  if (change.maxSeq > last) {
    const more = await fetchSummary(run, last);
    const merged = appendSummary(index.summary, more);
    if (merged !== index.summary) qc.setQueryData(runKeys.summary(run), buildRunIndex(merged));
  }
  const now = qc.getQueryData<RunIndex>(runKeys.summary(run));
  // a gap was filled below the last seq held: take the whole summary again
  if (now && now.n < change.eventCount) await qc.invalidateQueries({ queryKey: runKeys.summary(run) });
}

/**
 * Live updates: Server-Sent Events from /stream (any server instance, see
 * lib/server/changes.ts), falling back to polling while the stream is down.
 */
export function useLiveRun(run: string, enabled: boolean): "stream" | "polling" | "off" {
  const qc = useQueryClient();
  const [mode, setMode] = useState<"stream" | "polling" | "off">("off");
  useEffect(() => {
    if (!enabled) return;
    let pollTimer: ReturnType<typeof setInterval> | null = null;
    let busy = false;
    let pending: RunChange | null = null;
    const onChange = async (change: RunChange) => {
      pending = change;
      if (busy) return;
      busy = true;
      try {
        while (pending) {
          const c: RunChange = pending;
          pending = null;
          const known = qc.getQueryData<RunDetail>(runKeys.detail(run));
          const index = qc.getQueryData<RunIndex>(runKeys.summary(run));
          // the stream says where the run is on connect: nothing to do when we are there already
          if (
            known &&
            index &&
            known.updatedAt === c.updatedAt &&
            known.eventCount === c.eventCount &&
            index.n === c.eventCount &&
            known.status === c.status &&
            known.live === c.live
          )
            continue;
          qc.setQueryData<RunDetail>(runKeys.detail(run), (d) => (d ? { ...d, ...c } : d));
          await catchUp(qc, run, c);
          await qc.invalidateQueries({ queryKey: runKeys.detail(run) });
          await qc.invalidateQueries({ queryKey: runKeys.inspectAll(run) });
        }
      } catch {
        /* the next change tries again */
      } finally {
        busy = false;
      }
    };
    const poll = () => {
      if (pollTimer) return;
      setMode("polling");
      pollTimer = setInterval(async () => {
        try {
          const d = await fetchJson<RunDetail>(`/api/runs/${enc(run)}`);
          void onChange(d);
        } catch {
          /* keep polling */
        }
      }, 2000);
    };
    const es = new EventSource(`/api/runs/${enc(run)}/stream`);
    es.addEventListener("open", () => {
      if (pollTimer) clearInterval(pollTimer);
      pollTimer = null;
      setMode("stream");
    });
    es.addEventListener("change", (e) => {
      try {
        void onChange(JSON.parse((e as MessageEvent<string>).data) as RunChange);
      } catch {
        /* ignore a malformed message */
      }
    });
    // EventSource reconnects by itself; poll meanwhile so the page keeps up
    es.addEventListener("error", poll);
    return () => {
      es.close();
      if (pollTimer) clearInterval(pollTimer);
      setMode("off");
    };
  }, [run, enabled, qc]);
  return mode;
}
