/** A run's events from GET /api/runs/{run}/events, page by page. */
import { apiErrorOf } from "@/components/data/fetch-json";
import { nextAfterOf, parsePage } from "./parse-events";

const PAGE = 5000;
/** The replay's first page is smaller, so its first frame does not wait for 5,000 events. */
const FIRST_PAGE = 1000;

/** One page of a run's events after `after`, parsed exactly (the replay worker's fetch). */
export async function fetchEventPage(
  run: string,
  after: number,
  limit = after < 0 ? FIRST_PAGE : PAGE,
  signal?: AbortSignal,
): Promise<ReturnType<typeof parsePage>> {
  const res = await fetch(`/api/runs/${encodeURIComponent(run)}/events?after=${after}&limit=${limit}`, {
    signal,
    headers: { accept: "application/json" },
  });
  if (!res.ok) throw await apiErrorOf(res);
  return parsePage(await res.text());
}

/**
 * Every page, as text: compare aligns two whole runs (its lists still draw only the rows
 * on screen).
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
