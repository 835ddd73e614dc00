"use client";
import Link from "next/link";
import { ruleText } from "@/lib/analyze";
import { plural } from "@/lib/semantics";
import { groupFindings } from "@/lib/view/findings";
import type { RunDetail } from "@/lib/view/api-types";
import { formatTimestamp } from "@/lib/view/format";
import { StatusBadge } from "@/components/runs/runs-table";
import { RunPicker } from "./run-picker";
import { useWorkflowRuns } from "./use-compare-data";

const enc = encodeURIComponent;

/**
 * One side of the comparison: which run, its health and findings (grouped by rule, each a
 * link to its first event), and pickers: for run b the runs of run a's workflow, for
 * either side a search across workflows.
 */
export function RunCard({
  side,
  id,
  detail,
  error,
  workflow,
  other,
  onPick,
}: {
  side: "a" | "b";
  id: string | null;
  detail: RunDetail | undefined;
  error: string | null;
  /** For run b: the workflow of run a, whose runs are offered. */
  workflow?: string | null;
  other?: string | null;
  onPick: (id: string) => void;
}) {
  const groups = detail ? groupFindings(detail.findings) : [];
  const runs = useWorkflowRuns(side === "b" ? (workflow ?? null) : null);
  const candidates = (runs.data?.runs ?? []).filter((r) => r.id !== other);
  return (
    <section className="cmp-run" aria-label={`Run ${side}`}>
      <h2>
        Run {side}
        {detail ? <StatusBadge run={detail} /> : null}
        {detail ? <span className={`badge ${detail.fidelity === "replayable" ? "good" : "warn"}`}>{detail.fidelity}</span> : null}
      </h2>
      {id ? <div className="id">{id}</div> : <div style={{ color: "var(--muted)" }}>No run chosen yet.</div>}
      {error ? (
        <div className="bad" role="alert">
          {error}
        </div>
      ) : null}
      {detail ? (
        <div className="meta">
          <span>
            {detail.workflow ?? "(no workflow)"}
            {detail.workflowVersion ? `@${detail.workflowVersion}` : ""}
          </span>
          <span>started {formatTimestamp(detail.startedAt)}</span>
          <span>{plural(detail.eventCount, "event")}</span>
          <Link href={`/runs/${enc(detail.id)}`} prefetch={false}>
            open
          </Link>
          <Link href={`/runs/${enc(detail.id)}/replay`} prefetch={false}>
            replay
          </Link>
        </div>
      ) : null}
      {detail ? (
        groups.length > 0 ? (
          <ul className="cmp-findings" aria-label={`Findings of run ${side}`}>
            {groups.map((g) => (
              <li key={g.rule}>
                <span className={`sev-${g.severity}`}>{g.severity}</span>{" "}
                <Link href={`/runs/${enc(detail.id)}?event=${g.findings[0].seq}`} prefetch={false} title={g.rule}>
                  {ruleText(g.rule).title}
                </Link>{" "}
                <span className="muted">
                  {g.findings.length > 1 ? `${plural(g.findings.length, "time")}, first ` : ""}at #{g.findings[0].seq}
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <div className="muted" aria-label={`Findings of run ${side}`}>
            No findings.
          </div>
        )
      ) : null}
      {side === "b" && workflow ? (
        <label style={{ display: "flex", flexDirection: "column", gap: 2, fontSize: 12, color: "var(--muted)" }}>
          {id ? "Compare with another run" : "Pick a run"} of {workflow}
          <select aria-label={`Run b: a run of ${workflow}`} value={id ?? ""} onChange={(e) => e.target.value && onPick(e.target.value)}>
            <option value="">
              {runs.isLoading ? "Loading runs…" : `${candidates.length} run${candidates.length === 1 ? "" : "s"} of this workflow`}
            </option>
            {id && !candidates.some((r) => r.id === id) ? <option value={id}>{id}</option> : null}
            {candidates.map((r) => (
              <option key={r.id} value={r.id}>
                {r.id} · {r.workflowVersion ?? "?"} · {r.status} · {formatTimestamp(r.startedAt)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {!id ? (
        <RunPicker side={side} exclude={other ?? null} onPick={onPick} />
      ) : (
        <details className="cmp-change">
          <summary>Compare another run as run {side}</summary>
          <RunPicker side={side} exclude={other ?? null} onPick={onPick} />
        </details>
      )}
    </section>
  );
}
