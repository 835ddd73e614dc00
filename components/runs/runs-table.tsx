import Link from "next/link";
import type { RunListItem } from "@/lib/view/api-types";
import { describeChain, formatCount, formatDuration, formatTimestamp } from "@/lib/view/format";
import { visibleText as vt } from "@/lib/view/text";

export function StatusBadge({ status }: { status: string }) {
  const cls =
    status === "succeeded" ? "good" : status === "failed" ? "bad" : status === "running" ? "warn" : status === "cancelled" ? "warn" : "";
  return <span className={`badge ${cls}`}>{status}</span>;
}

export function ChainBadge({ status, brokenAt, prefix = "" }: { status: string; brokenAt: number | null; prefix?: string }) {
  const cls = status === "verified" ? "good" : status === "broken" ? "bad" : "";
  return (
    <span
      className={`badge ${cls}`}
      title="The recorder's hash chain: verified, unverified (no hashes), or broken at the first failing seq"
    >
      {prefix}
      {describeChain(status, brokenAt)}
    </span>
  );
}

/** `showProject`: the viewer can see several projects, so each run says which it is in. */
export function RunsTable({ runs, showProject = false }: { runs: RunListItem[]; showProject?: boolean }) {
  return (
    <div className="runs-table-wrap">
      <table className={showProject ? "runs-table with-project" : "runs-table"} aria-label="Runs">
        <thead>
          <tr>
            <th>Run</th>
            {showProject ? <th>Project</th> : null}
            <th>Workflow</th>
            <th>Version</th>
            <th>Environment</th>
            <th>Status</th>
            <th>Started (UTC)</th>
            <th className="num">Duration</th>
            <th className="num">Events</th>
            <th className="num">Findings</th>
            <th>Fidelity</th>
            <th>Chain</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td className="run-id">
                <Link href={`/runs/${encodeURIComponent(r.id)}`} prefetch={false}>
                  {r.id}
                </Link>
                {r.tags.length > 0 ? <div className="sub">{vt(r.tags.join(" · "))}</div> : null}
              </td>
              {showProject ? (
                <td className="project" title={r.project}>
                  {r.project}
                </td>
              ) : null}
              <td>
                {r.workflow ? vt(r.workflow) : "—"}
                {r.agent ? (
                  <div className="sub">
                    {vt(r.agent)}
                    {r.agentVersion ? `@${vt(r.agentVersion)}` : ""}
                  </div>
                ) : null}
              </td>
              <td className="mono">{r.workflowVersion ? vt(r.workflowVersion) : "—"}</td>
              <td>{r.environment ? vt(r.environment) : "—"}</td>
              <td>
                <StatusBadge status={r.status} /> {r.live ? <span className="badge live">live</span> : null}
              </td>
              <td title={r.timesRecorded === false ? "The source recorded no times" : formatTimestamp(r.startedAt)}>
                {r.timesRecorded === false ? "not recorded" : formatTimestamp(r.startedAt).slice(0, 19)}
              </td>
              <td className="num">{formatDuration(r.durationMs)}</td>
              <td className="num">
                {formatCount(r.eventCount)}
                {r.errorCount > 0 ? <div className="sub bad">{formatCount(r.errorCount)} errors</div> : null}
              </td>
              <td className="num">
                {r.findingCount > 0 ? <span className="badge bad">{formatCount(r.findingCount)}</span> : <span className="sub">0</span>}
              </td>
              <td>{r.fidelity}</td>
              <td>
                <ChainBadge status={r.chainStatus} brokenAt={r.chainBrokenAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
