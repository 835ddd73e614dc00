"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { RunListItem } from "@/lib/view/api-types";
import { useMemo, useSyncExternalStore } from "react";
import { formatCount, formatDuration, formatRelative, formatTimestamp } from "@/lib/view/format";
import { visibleText as vt } from "@/lib/view/text";
import { plural, runHealth, severityTone, type HealthTone } from "@/lib/semantics";
import { healthOf, type HealthOf } from "@/lib/view/health";
import { chainVerdict, type ChainVerdict } from "@/lib/evidence/chain-verdict";

const TONE_CLASS: Record<HealthTone, string> = { good: "good", bad: "bad", warn: "warn", live: "", neutral: "" };

/**
 * The run's health: its status, failed events and findings read as one verdict
 * (lib/semantics/health), so "failed" or "succeeded" with 18 failed events is red, never
 * green, and the chip names what went wrong; the tooltip has every count.
 */
export function StatusBadge({ run }: { run: HealthOf }) {
  const h = healthOf(run);
  return (
    <span
      className={`badge health ${TONE_CLASS[h.tone]}`}
      data-health={h.tone}
      data-testid="health"
      title={`${h.label}${h.detail ? ` (${h.detail})` : "; no failed events, no findings"}`}
    >
      {h.label}
    </span>
  );
}

/** A findings count coloured by the highest severity among them (an error is not a warning). */
function FindingsBadge({ findingCount, errorFindings }: { findingCount: number; errorFindings: number }) {
  if (findingCount === 0) return <span className="sub">0</span>;
  const h = runHealth({ status: "", findingCount, errorFindings });
  return (
    <span className={`badge ${TONE_CLASS[severityTone(h.worst)]}`} data-severity={h.worst ?? undefined} title={h.detail}>
      {formatCount(findingCount)}
    </span>
  );
}

export function ChainBadge({ verdict, prefix = "" }: { verdict: ChainVerdict; prefix?: string }) {
  const cls = verdict.status === "verified" ? "good" : verdict.status === "broken" ? "bad" : "";
  return (
    <span className={`badge ${cls}`} title={verdict.title} data-chain={verdict.status}>
      {prefix}
      {verdict.text}
    </span>
  );
}

interface RunSelection {
  selected: ReadonlySet<string>;
  toggle(ids: readonly string[], on: boolean): void;
}

/**
 * `showProject`: the viewer can see several projects, so each run says which it is in.
 * `selection`: a checkbox per run (and one for all shown), for exporting several at once.
 */
export function RunsTable({
  runs,
  showProject = false,
  pinned = [],
  selection,
  searched = "",
}: {
  runs: RunListItem[];
  /** the search the list answers: marked where a content match's snippet holds it */
  searched?: string;
  showProject?: boolean;
  /** run ids shown first, marked "uploaded" (the runs just uploaded from this page) */
  pinned?: readonly string[];
  selection?: RunSelection;
}) {
  const now = useNow();
  const router = useRouter();
  const rows = useMemo(() => {
    let ordered = runs;
    if (pinned.length > 0) {
      const rank = new Map(pinned.map((id, i) => [id, i]));
      const first = runs.filter((r) => rank.has(r.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
      ordered = [...first, ...runs.filter((r) => !rank.has(r.id))];
    }
    return underOriginals(ordered);
  }, [runs, pinned]);
  const isPinned = new Set(pinned);
  const allOn = selection !== undefined && runs.length > 0 && runs.every((r) => selection.selected.has(r.id));
  return (
    <div className="runs-table-wrap">
      <table className={`runs-table${showProject ? " with-project" : ""}${selection ? " with-select" : ""}`} aria-label="Runs">
        <thead>
          <tr>
            {selection ? (
              <th className="col-select">
                <input
                  type="checkbox"
                  aria-label="Select every run shown"
                  checked={allOn}
                  onChange={(e) =>
                    selection.toggle(
                      runs.map((r) => r.id),
                      e.target.checked,
                    )
                  }
                />
              </th>
            ) : null}
            <th>Run</th>
            {showProject ? <th>Project</th> : null}
            <th>Workflow</th>
            <th className="col-version">Version</th>
            <th className="col-env">Environment</th>
            <th>Health</th>
            <th>Started (UTC)</th>
            <th className="num col-duration">Duration</th>
            <th className="num">Events</th>
            <th className="num">Findings</th>
            <th className="col-fidelity">Fidelity</th>
            <th className="col-chain">Chain</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.id}
              className={isPinned.has(r.id) ? "pinned row-link" : "row-link"}
              aria-selected={selection ? selection.selected.has(r.id) : undefined}
              // the whole row opens the run (the id's link stays the keyboard's way in);
              // a click on a control or a text selection is left alone
              onClick={(e) => {
                if ((e.target as HTMLElement).closest("a, button, input, label, select")) return;
                if (window.getSelection()?.toString()) return;
                router.push(runHref(r));
              }}
            >
              {selection ? (
                <td className="col-select">
                  <input
                    type="checkbox"
                    aria-label={`Select run ${r.id}`}
                    checked={selection.selected.has(r.id)}
                    onChange={(e) => selection.toggle([r.id], e.target.checked)}
                  />
                </td>
              ) : null}
              <td className="run-id">
                <Link href={`/runs/${encodeURIComponent(r.id)}`} prefetch={false}>
                  {r.id}
                </Link>
                {isPinned.has(r.id) ? <span className="badge uploaded">uploaded</span> : null}
                {r.forkOf ? (
                  <div className="sub branch-of" data-testid="branch-of">
                    ↳ branch of {r.forkOf.run} at #{r.forkOf.seq}
                  </div>
                ) : r.resumeOf ? (
                  <div className="sub branch-of" data-testid="branch-of">
                    ↳ resume of {r.resumeOf.run}
                    {r.resumeOf.checkpoint !== null ? ` from checkpoint ${r.resumeOf.checkpoint}` : ""}
                  </div>
                ) : r.replayOf ? (
                  <div className="sub branch-of" data-testid="branch-of">
                    ↳ replay of {r.replayOf.run} ·{" "}
                    {r.status === "succeeded" ? (
                      <span className="ok">matched</span>
                    ) : r.status === "failed" ? (
                      <span className="bad">diverged</span>
                    ) : (
                      "running"
                    )}
                  </div>
                ) : null}
                {r.tags.length > 0 ? <div className="sub">{vt(r.tags.join(" · "))}</div> : null}
                {r.match ? <MatchLine run={r.id} match={r.match} searched={searched} /> : null}
              </td>
              {showProject ? (
                <td className="project" title={r.project}>
                  {r.project}
                </td>
              ) : null}
              <td className="workflow">
                {r.workflow ? vt(r.workflow) : "—"}
                {r.agent ? (
                  <div className="sub">
                    {vt(r.agent)}
                    {r.agentVersion ? `@${vt(r.agentVersion)}` : ""}
                  </div>
                ) : null}
              </td>
              <td className="mono col-version">{r.workflowVersion ? vt(r.workflowVersion) : "—"}</td>
              <td className="col-env">{r.environment ? vt(r.environment) : "—"}</td>
              <td>
                <StatusBadge run={r} /> {r.live ? <span className="badge live">live</span> : null}
              </td>
              <td title={r.timesRecorded === false ? "The source recorded no times" : formatTimestamp(r.startedAt)}>
                {r.timesRecorded === false ? (
                  "not recorded"
                ) : (
                  <>
                    {formatTimestamp(r.startedAt).slice(0, 19)}
                    {now !== null && r.startedAt !== null ? (
                      <div className="sub" data-testid="relative-time">
                        {formatRelative(Date.parse(r.startedAt), now)}
                      </div>
                    ) : null}
                  </>
                )}
              </td>
              <td className="num col-duration">{formatDuration(r.durationMs)}</td>
              <td className="num">
                {formatCount(r.eventCount)}
                {r.errorCount > 0 ? <div className="sub bad">{plural(r.errorCount, "failed event")}</div> : null}
              </td>
              <td className="num">
                <FindingsBadge findingCount={r.findingCount} errorFindings={r.errorFindings} />
              </td>
              <td className="col-fidelity">{r.fidelity}</td>
              <td className="col-chain">
                <ChainBadge verdict={chainVerdict(r)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Where a row opens: at the event a content search matched, else the run's own opening. */
function runHref(r: RunListItem): string {
  const base = `/runs/${encodeURIComponent(r.id)}`;
  return r.match ? `${base}?event=${r.match.seq}` : base;
}

/** The event a search matched: its seq and type, where in it, and the text around the match (as text, the match marked). */
function MatchLine({ run, match, searched }: { run: string; match: NonNullable<RunListItem["match"]>; searched: string }) {
  const q = searched.trim();
  const at = q ? match.snippet.toLowerCase().indexOf(q.toLowerCase()) : -1;
  return (
    <div className="sub run-match" data-testid="run-match">
      <Link href={`/runs/${encodeURIComponent(run)}?event=${match.seq}`} prefetch={false} title={`Open ${run} at event #${match.seq}`}>
        #{match.seq} {vt(match.type)}
      </Link>
      {match.field ? <span className="match-field"> · {vt(match.field)}</span> : null}
      <span className="match-snippet">
        {at < 0 ? (
          vt(match.snippet)
        ) : (
          <>
            {vt(match.snippet.slice(0, at))}
            <mark>{vt(match.snippet.slice(at, at + q.length))}</mark>
            {vt(match.snippet.slice(at + q.length))}
          </>
        )}
      </span>
    </div>
  );
}

const subscribeMinutes = (changed: () => void) => {
  const t = setInterval(changed, 30_000);
  return () => clearInterval(t);
};
const thisMinute = () => Math.floor(Date.now() / 60_000) * 60_000;
const onServer = () => null;

/**
 * Now, to the minute: null on the server and while hydrating, so the relative times
 * ("3 days ago") never differ between the server's HTML and the browser's first render.
 */
function useNow(): number | null {
  return useSyncExternalStore(subscribeMinutes, thisMinute, onServer);
}

/** The run a branch run (forkOf), a resumed run (resumeOf) or a replay (replayOf) came from, or null. */
const originOf = (r: RunListItem): string | null => r.forkOf?.run ?? r.resumeOf?.run ?? r.replayOf?.run ?? null;

/** Branch runs (forkOf, resumeOf, replayOf) right after their original when both are on the page, in the order they came. */
function underOriginals(runs: RunListItem[]): RunListItem[] {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map<string, RunListItem[]>();
  for (const r of runs) {
    const origin = originOf(r);
    if (origin !== null && ids.has(origin) && origin !== r.id) {
      const list = children.get(origin) ?? [];
      list.push(r);
      children.set(origin, list);
    }
  }
  if (children.size === 0) return runs;
  const out: RunListItem[] = [];
  const placed = new Set<string>();
  const place = (r: RunListItem) => {
    if (placed.has(r.id)) return;
    placed.add(r.id);
    out.push(r);
    for (const c of children.get(r.id) ?? []) place(c);
  };
  for (const r of runs) {
    const origin = originOf(r);
    if (!(origin !== null && ids.has(origin))) place(r);
  }
  for (const r of runs) place(r);
  return out;
}
