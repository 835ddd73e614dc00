"use client";
import { useEffect } from "react";
import type { RunIndex } from "@/lib/graph";
import { matchRows, mergeRows } from "@/lib/view/search";
import { useRunStore, useRunStoreApi } from "./run-store";
import { usePayloadSearch } from "./use-run-data";

/** Matches of the run search: the summary columns at once, payload text when the server answers. */
export function useSearchMatches(runId: string, index: RunIndex | undefined) {
  const api = useRunStoreApi();
  const q = useRunStore((s) => s.search);
  const payload = usePayloadSearch(runId, q);
  useEffect(() => {
    if (!index || !q.trim()) {
      api.getState().setMatches([]);
      return;
    }
    const cols = matchRows(index.summary, q);
    const fromServer = (payload.data?.seqs ?? [])
      .map((s) => index.rowOfSeq(s))
      .filter((r) => r >= 0)
      .sort((a, b) => a - b);
    api.getState().setMatches(mergeRows(cols, fromServer));
  }, [index, q, payload.data, api]);
}
