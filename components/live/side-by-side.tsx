import Link from "next/link";
import type { ReplayBesideView, SideBySideView } from "@/lib/live/side-by-side";
import { ModeBadge } from "./mode-badge";

const originalReplay = (run: string) => `/runs/${encodeURIComponent(run)}/replay`;

/** The rows of a branch beside its original, aligned by seq, with the first divergence marked. */
function Rows({ view, branchLabel }: { view: Pick<SideBySideView, "rows" | "firstDivergence" | "truncated">; branchLabel: string }) {
  return (
    <div className="sbs-scroll">
      <table aria-label="Branch run beside its original">
        <thead>
          <tr>
            <th scope="col">seq</th>
            <th scope="col">original (recorded)</th>
            <th scope="col">{branchLabel}</th>
          </tr>
        </thead>
        <tbody>
          {view.rows.map((r) => (
            <tr
              key={r.seq}
              className={`${r.differs ? "differs" : ""}${r.seq === view.firstDivergence ? " first" : ""}`}
              data-testid={r.seq === view.firstDivergence ? "first-divergence" : undefined}
              data-seq={r.seq}
            >
              <td className="mono">
                #{r.seq}
                {r.seq === view.firstDivergence ? (
                  <span className="div-badge" title="the first seq where the branch differs from its original">
                    {" "}
                    ≠ first
                  </span>
                ) : null}
              </td>
              <td className="mono">{r.original ? r.original.type : <span className="muted">—</span>}</td>
              <td className="mono">
                {r.branch ? (
                  <>
                    <ModeBadge mode={r.branch.mode} /> {r.branch.type}
                  </>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.truncated ? <p className="muted">Only the first rows after the fork are shown.</p> : null}
    </div>
  );
}

/**
 * The branch run beside its original, aligned by seq from a little before the fork, with
 * the first seq where they differ marked. Rows where both runs have the same event are
 * the original's copies.
 */
export function SideBySide({ view }: { view: SideBySideView }) {
  return (
    <details className="side-by-side" open data-testid="side-by-side">
      <summary>
        Beside the original <span className="mono">{view.original}</span>:{" "}
        {view.firstDivergence === null ? (
          "no difference in the rows shown"
        ) : (
          <>
            first divergence at{" "}
            <Link
              href={`${originalReplay(view.original)}?event=${view.firstDivergence}`}
              prefetch={false}
              data-testid="first-divergence-link"
            >
              #{view.firstDivergence}
            </Link>
          </>
        )}
      </summary>
      <Rows view={view} branchLabel="this branch" />
    </details>
  );
}

/** A value of the divergence as one line of text (payloads are data: shown as text, never markup). */
function shown(v: unknown): string {
  const text = v === undefined ? "(absent)" : typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
}

/**
 * A replay of the agent beside the recording it replayed: whether every request matched,
 * or where the gateway found the first divergence (its kind, the JSON pointer into the
 * request, the recorded and the replayed value), with that row marked.
 */
export function ReplayBeside({ view }: { view: ReplayBesideView }) {
  const d = view.divergence;
  return (
    <details className="side-by-side" open data-testid="replay-beside">
      <summary>
        Replay of the agent beside its recording <span className="mono">{view.original}</span> ({view.mode}):{" "}
        {d === null ? (
          view.ended ? (
            "every request matched the recording"
          ) : (
            "not ended yet"
          )
        ) : (
          <>
            first divergence at recorded{" "}
            <Link href={`${originalReplay(view.original)}?event=${d.seq}`} prefetch={false} data-testid="first-divergence-link">
              #{d.seq}
            </Link>
            : <b data-testid="divergence-kind">{d.kind}</b>
            {d.path ? (
              <>
                {" "}
                at <span className="mono">{d.path}</span>
              </>
            ) : null}
          </>
        )}
      </summary>
      {d !== null ? (
        <dl className="sbs-divergence" data-testid="divergence-values">
          <dt>recorded</dt>
          <dd className="mono">{shown(d.recorded)}</dd>
          <dt>replayed</dt>
          <dd className="mono">{shown(d.replayed)}</dd>
        </dl>
      ) : null}
      <Rows view={view} branchLabel="this replay" />
    </details>
  );
}
