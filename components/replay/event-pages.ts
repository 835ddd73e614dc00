/** A run's events from GET /api/runs/{run}/events, page by page. */
import { apiErrorOf } from "@/components/data/fetch-json";
import { parsePage } from "./parse-events";

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
