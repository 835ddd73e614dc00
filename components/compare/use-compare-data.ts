"use client";
import { useQuery } from "@tanstack/react-query";
import type { RunListPage } from "@/lib/view/api-types";
import { fetchJson } from "@/components/data/fetch-json";
import { runsKeys } from "@/components/data/query-keys";

const enc = encodeURIComponent;
const CANDIDATES = 100;
const SEARCH_LIMIT = 20;

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
