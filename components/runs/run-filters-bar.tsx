"use client";
import { useEffect, useState } from "react";
import { RULE_IDS } from "@/lib/journal/types";
import { RULE_TEXT } from "@/lib/analyze";
import { EMPTY_FILTERS, RUN_SORTS, RUN_STATUSES, isFiltered, type RunFilters, type RunSort } from "@/lib/view/run-filters";

/** The Findings select: one control for "has findings" and the severity filter. */
function findingsChoice(f: RunFilters): string {
  return f.severity || (f.findings ? "any" : "");
}
function fromFindingsChoice(v: string): Pick<RunFilters, "findings" | "severity"> {
  if (v === "error" || v === "warning") return { findings: "", severity: v };
  return { findings: v === "any" ? "1" : "", severity: "" };
}

const TEXT_DELAY_MS = 300;

/** Filter controls; text fields apply after a short pause in typing, the rest at once. */
export function RunFiltersBar({
  filters,
  onChange,
  projects,
}: {
  filters: RunFilters;
  onChange: (f: RunFilters) => void;
  /** the projects the viewer can read; a Project filter when there are several */
  projects: string[];
}) {
  const [draft, setDraft] = useState(filters);
  // new filters from outside (the URL, a reset) replace the draft
  const [shown, setShown] = useState(filters);
  if (shown !== filters) {
    setShown(filters);
    setDraft(filters);
  }
  useEffect(() => {
    const changed = (["q", "workflow", "environment", "tag"] as const).some((k) => draft[k] !== filters[k]);
    if (!changed) return;
    const t = setTimeout(() => onChange(draft), TEXT_DELAY_MS);
    return () => clearTimeout(t);
  }, [draft, filters, onChange]);
  const now = (patch: Partial<RunFilters>) => onChange({ ...draft, ...patch });
  const text = (k: "q" | "workflow" | "environment" | "tag") => ({
    value: draft[k],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [k]: e.target.value }),
  });
  return (
    <form className="filters" role="search" aria-label="Filter runs" onSubmit={(e) => (e.preventDefault(), onChange(draft))}>
      <label>
        Search
        <input type="search" placeholder="run id, name, finding or any text in an event" {...text("q")} />
      </label>
      {projects.length > 1 ? (
        <label>
          Project
          <select value={draft.project} onChange={(e) => now({ project: e.target.value })}>
            <option value="">all</option>
            {/* a ?project= from a link to a project this viewer cannot see stays selectable (and lists nothing) */}
            {[...projects, ...(draft.project && !projects.includes(draft.project) ? [draft.project] : [])].map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Status
        <select value={draft.status} onChange={(e) => now({ status: e.target.value })}>
          <option value="">any</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Findings
        <select value={findingsChoice(draft)} onChange={(e) => now(fromFindingsChoice(e.target.value))}>
          <option value="">any run</option>
          <option value="any">with findings</option>
          <option value="error">with errors</option>
          <option value="warning">with warnings</option>
        </select>
      </label>
      <label>
        Rule
        <select value={draft.rule} onChange={(e) => now({ rule: e.target.value })}>
          <option value="">any</option>
          {/* a ?rule= this version does not know stays selectable (and lists what the server says) */}
          {[...RULE_IDS, ...(draft.rule && !(RULE_IDS as readonly string[]).includes(draft.rule) ? [draft.rule] : [])].map((r) => (
            <option key={r} value={r} title={(RULE_TEXT as Record<string, { title: string } | undefined>)[r]?.title}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label>
        Workflow
        <input type="text" {...text("workflow")} />
      </label>
      <label>
        Environment
        <input type="text" {...text("environment")} />
      </label>
      <label>
        Tag
        <input type="text" {...text("tag")} />
      </label>
      <label>
        Started from
        <input type="date" value={draft.from} onChange={(e) => now({ from: e.target.value })} />
      </label>
      <label>
        to
        <input type="date" value={draft.to} onChange={(e) => now({ to: e.target.value })} />
      </label>
      <label style={{ flexDirection: "row", alignItems: "center", gap: 4, paddingBottom: 4 }}>
        <input type="checkbox" checked={draft.live === "true"} onChange={(e) => now({ live: e.target.checked ? "true" : "" })} />
        live only
      </label>
      <label>
        Sort
        <select value={draft.sort} onChange={(e) => now({ sort: e.target.value as RunSort })}>
          {RUN_SORTS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {isFiltered(filters) ? (
        <button type="button" onClick={() => onChange({ ...EMPTY_FILTERS, sort: filters.sort })}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
