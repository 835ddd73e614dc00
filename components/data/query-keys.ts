/**
 * Every TanStack Query key of the client, in one place. Keys nest under the run they are
 * about, so a prefix names all of a run's queries of one kind (`runKeys.inspectAll(run)`
 * invalidates every inspected event) without touching the others: the run's summary is
 * extended in place by live updates and must not be refetched by an invalidation of its
 * detail.
 */
import type { RunFilters } from "@/lib/view/run-filters";

export const runKeys = {
  /** Everything cached about one run. */
  all: (run: string) => ["run", run] as const,
  /** GET /api/runs/{run}: shared by the run page, the replay page and the compare page. */
  detail: (run: string) => ["run", run, "detail"] as const,
  /** GET /api/runs/{run}/summary, decoded and indexed. */
  summary: (run: string) => ["run", run, "summary"] as const,
  inspectAll: (run: string) => ["run", run, "inspect"] as const,
  inspect: (run: string, seq: number, withState: boolean) => ["run", run, "inspect", seq, withState] as const,
  search: (run: string, q: string) => ["run", run, "search", q] as const,
  /** GET /api/runs/{run}/usage at `n` events (a live run refetches as it grows). */
  usage: (run: string, n: number) => ["run", run, "usage", n] as const,
  /** Every stored event, parsed, for the compare page. */
  events: (run: string) => ["run", run, "events"] as const,
};

export const runsKeys = {
  /** Every runs list, whatever its filters. */
  all: ["runs"] as const,
  list: (filters: RunFilters) => ["runs", "list", filters] as const,
  /** The newest runs of one workflow (the compare page's candidates). */
  ofWorkflow: (workflow: string, limit: number) => ["runs", "workflow", workflow, limit] as const,
  /** Runs of any workflow matching a search (the compare page's run picker). */
  search: (q: string, limit: number) => ["runs", "search", q, limit] as const,
};
