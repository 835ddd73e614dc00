"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { RunListPage } from "@/lib/view/api-types";
import { apiQuery, type RunFilters } from "@/lib/view/run-filters";
import { fetchJson } from "@/components/data/fetch-json";
import { runsKeys } from "@/components/data/query-keys";

/** The runs list, page by page (cursor pagination); polls while a live run is on screen. */
export function useRuns(filters: RunFilters) {
  return useInfiniteQuery({
    queryKey: runsKeys.list(filters),
    queryFn: ({ pageParam, signal }) => fetchJson<RunListPage>(`/api/runs?${apiQuery(filters, pageParam)}`, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.runs.some((r) => r.live)) ? 3000 : false),
  });
}
