"use client";
import { useQueries } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import type { CompareEvent } from "@/lib/compare";
import { fetchEventPage } from "@/components/replay/event-pages";

/** Events fetched together: a screen of rows needs one or two blocks of each run. */
export const BLOCK = 200;

/**
 * The events of one run at some indices (the rows on screen, the selected pair), fetched
 * from the events API a block of BLOCK events at a time and kept while in use: the page
 * never holds a whole run. `seqs` (the alignment's seq column of the run) says where each
 * block starts. Returns the event at an index, once its block has arrived.
 */
export function useEventBlocks(run: string | null, seqs: Float64Array | null, indices: readonly number[]) {
  const blocks = useMemo(
    () => [...new Set(indices.filter((i) => i >= 0).map((i) => Math.floor(i / BLOCK)))].sort((x, y) => x - y),
    [indices],
  );
  const results = useQueries({
    queries: blocks.map((k) => ({
      queryKey: ["compare-block", run ?? "", k, seqs?.length ?? 0],
      queryFn: async ({ signal }: { signal: AbortSignal }): Promise<CompareEvent[]> => {
        // the events of indices [k·BLOCK, …) are the BLOCK after the seq of the one before
        const after = k === 0 || !seqs ? -1 : seqs[k * BLOCK - 1];
        const page = await fetchEventPage(run ?? "", after, BLOCK, signal);
        return page.events.map((r) => r.event as CompareEvent);
      },
      enabled: run !== null && seqs !== null && k * BLOCK < seqs.length,
      staleTime: Infinity,
      gcTime: 30_000,
    })),
  });
  const data = results.map((r) => r.data);
  const key = data.map((d) => (d ? 1 : 0)).join("");
  return useCallback(
    (index: number): CompareEvent | null => {
      const at = blocks.indexOf(Math.floor(index / BLOCK));
      return at < 0 ? null : (data[at]?.[index % BLOCK] ?? null);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [blocks, key],
  );
}
