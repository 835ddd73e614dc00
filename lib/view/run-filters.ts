/**
 * The runs list's filters as URL search parameters (so a filtered list is a link), and
 * the query string for GET /api/runs.
 */

export const RUN_SORTS = [
  ["-started", "Newest first"],
  ["started", "Oldest first"],
  ["-events", "Most events"],
  ["-findings", "Most findings"],
  ["-errors", "Most errors"],
  ["-updated", "Recently updated"],
] as const;
export type RunSort = (typeof RUN_SORTS)[number][0];

export const RUN_STATUSES = ["running", "succeeded", "failed", "cancelled", "incomplete"] as const;

export interface RunFilters {
  /** one project's runs (a viewer who can see several); "" for all they can see */
  project: string;
  status: string;
  workflow: string;
  environment: string;
  tag: string;
  q: string;
  from: string;
  to: string;
  live: "" | "true";
  /** runs with a finding of this rule id */
  rule: string;
  /** runs with a finding of this severity */
  severity: "" | "error" | "warning";
  /** "1": runs with at least one finding */
  findings: "" | "1";
  sort: RunSort;
}

export const EMPTY_FILTERS: RunFilters = {
  project: "",
  status: "",
  workflow: "",
  environment: "",
  tag: "",
  q: "",
  from: "",
  to: "",
  live: "",
  rule: "",
  severity: "",
  findings: "",
  sort: "-started",
};

const KEYS = ["project", "status", "workflow", "environment", "tag", "q", "from", "to", "live", "rule", "severity", "findings"] as const;

export function filtersFromParams(p: URLSearchParams): RunFilters {
  const f: RunFilters = { ...EMPTY_FILTERS };
  for (const k of KEYS) {
    const v = p.get(k);
    if (v === null) continue;
    if (k === "live") f.live = v === "true" ? "true" : "";
    else if (k === "severity") f.severity = v === "error" || v === "warning" ? v : "";
    else if (k === "findings") f.findings = v === "1" ? "1" : "";
    else f[k] = v.slice(0, 200);
  }
  const sort = p.get("sort");
  if (sort && RUN_SORTS.some(([s]) => s === sort)) f.sort = sort as RunSort;
  return f;
}

export function paramsFromFilters(f: RunFilters): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of KEYS) if (f[k]) p.set(k, f[k]);
  if (f.sort !== EMPTY_FILTERS.sort) p.set("sort", f.sort);
  return p;
}

export function isFiltered(f: RunFilters): boolean {
  return KEYS.some((k) => f[k] !== "");
}

/** Query for GET /api/runs. Dates from <input type=date> cover their whole day (UTC). */
export function apiQuery(f: RunFilters, cursor: string | null, limit = 50): string {
  const p = paramsFromFilters(f);
  p.set("sort", f.sort);
  if (/^\d{4}-\d{2}-\d{2}$/.test(f.from)) p.set("from", `${f.from}T00:00:00.000Z`);
  if (/^\d{4}-\d{2}-\d{2}$/.test(f.to)) p.set("to", `${f.to}T23:59:59.999Z`);
  if (cursor) p.set("cursor", cursor);
  p.set("limit", String(limit));
  return p.toString();
}
