"use client";
import { useQuery } from "@tanstack/react-query";
import type { RunDetail } from "@/lib/view/api-types";
import { fetchJson } from "./fetch-json";
import { runKeys } from "./query-keys";

/**
 * GET /api/runs/{run}, one cache entry per run for every page (run, replay, compare), so a
 * live update the run page applies is what the others show. Disabled while `run` is unset.
 */
export function useRunDetail(run: string | null, initial?: RunDetail) {
  return useQuery({
    queryKey: runKeys.detail(run ?? ""),
    queryFn: ({ signal }) => fetchJson<RunDetail>(`/api/runs/${encodeURIComponent(run ?? "")}`, signal),
    initialData: initial,
    enabled: run !== null && run !== "",
  });
}
