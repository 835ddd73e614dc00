"use client";
import { useEffect } from "react";
import type { RunIndex } from "@/lib/graph";
import { matchRows, mergeRows } from "@/lib/view/search";
import { useRunStore, useRunStoreApi } from "./run-store";
import { usePayloadSearch } from "./use-run-data";

/**
 * Matches of the run search: the summary columns at once, payload text as the server's
 * pages arrive (the next page is loaded when stepping past the last match held).
 */
export function useSearchMatches(runId: string, index: RunIndex | undefined) {
  const api = useRunStoreApi();
  const q = useRunStore((s) => s.search);
  const payload = usePayloadSearch(runId, q);
  const { data, hasNextPage, fetchNextPage } = payload;
  useEffect(() => {
    if (!index || !q.trim()) {
      api.getState().setMatches([]);
      return;
    }
    const cols = matchRows(index.summary, q);
    const fromServer = (data?.pages ?? [])
      .flatMap((p) => p.seqs)
      .map((s) => index.rowOfSeq(s))
      .filter((r) => r >= 0)
      .sort((a, b) => a - b);
    api.getState().setMatches(mergeRows(cols, fromServer), hasNextPage ? () => void fetchNextPage() : null);
  }, [index, q, data, hasNextPage, fetchNextPage, api]);
}
