"use client";
import { useQuery } from "@tanstack/react-query";
import type { CompareEvent } from "@/lib/compare";
import type { RunListPage } from "@/lib/view/api-types";
import { fetchJson } from "@/components/data/fetch-json";
import { runKeys, runsKeys } from "@/components/data/query-keys";
import { fetchEventPages } from "@/components/replay/event-pages";
import { parsePage } from "@/components/replay/parse-events";

const enc = encodeURIComponent;
const CANDIDATES = 100;
const SEARCH_LIMIT = 20;

/** Every stored event of a run, parsed (the alignment needs both runs whole). */
export function useRunEvents(run: string | null) {
  return useQuery({
    queryKey: runKeys.events(run ?? ""),
    queryFn: async ({ signal }): Promise<CompareEvent[]> =>
      (await fetchEventPages(run ?? "", signal)).flatMap((p) => parsePage(p).events.map((e) => e.event)),
    enabled: run !== null && run !== "",
    staleTime: Infinity,
    gcTime: 60_000,
  });
}

/** Runs of one workflow, newest first: the candidates for run b. */
export function useWorkflowRuns(workflow: string | null) {
  return useQuery({
    queryKey: runsKeys.ofWorkflow(workflow ?? "", CANDIDATES),
    queryFn: ({ signal }) => fetchJson<RunListPage>(`/api/runs?workflow=${enc(workflow ?? "")}&limit=${CANDIDATES}&sort=-started`, signal),
    enabled: workflow !== null && workflow !== "",
  });
}

/** Runs of any workflow whose id, workflow, tag or findings match `q`, newest first: the run picker. */
export function useRunSearch(q: string) {
  return useQuery({
    queryKey: runsKeys.search(q, SEARCH_LIMIT),
    queryFn: ({ signal }) => fetchJson<RunListPage>(`/api/runs?q=${enc(q)}&limit=${SEARCH_LIMIT}&sort=-started`, signal),
    enabled: q.trim().length > 0,
    staleTime: 10_000,
  });
}
