/** Every event of a run from GET /api/runs/{run}/events, page by page, as the pages' text. */
import { apiErrorOf } from "@/components/data/fetch-json";
import { nextAfterOf } from "./parse-events";

const PAGE = 5000;

/**
 * The replay folds the whole run, so it needs all of it (the lists still draw only the
 * rows on screen). Text, because the replay worker parses it: a string crosses to the
 * worker as one copy, parsed objects one by one.
 */
export async function fetchEventPages(run: string, signal: AbortSignal): Promise<string[]> {
  const pages: string[] = [];
  let after = -1;
  for (;;) {
    const res = await fetch(`/api/runs/${encodeURIComponent(run)}/events?after=${after}&limit=${PAGE}`, {
      signal,
      headers: { accept: "application/json" },
    });
    if (!res.ok) throw await apiErrorOf(res);
    const text = await res.text();
    pages.push(text);
    const next = nextAfterOf(text);
    if (next === null) return pages;
    after = next;
  }
}
