import Link from "next/link";
import type { SideBySideRow } from "@/lib/live/side-by-side";
import { ModeBadge } from "./mode-badge";

interface SideBySideView {
  original: string;
  branch: string;
  kind: string;
  forkSeq: number;
  from: number;
  rows: SideBySideRow[];
  firstDivergence: number | null;
  truncated: boolean;
}

/**
 * The branch run beside its original, aligned by seq from a little before the fork, with
 * the first seq where they differ marked. Rows where both runs have the same event are
 * the original's copies.
 */
export function SideBySide({ view }: { view: SideBySideView }) {
  const original = `/runs/${encodeURIComponent(view.original)}/replay`;
  return (
    <details className="side-by-side" open data-testid="side-by-side">
      <summary>
        Beside the original <span className="mono">{view.original}</span>:{" "}
        {view.firstDivergence === null ? (
          "no difference in the rows shown"
        ) : (
          <>
            first divergence at{" "}
            <Link href={`${original}?event=${view.firstDivergence}`} prefetch={false} data-testid="first-divergence-link">
              #{view.firstDivergence}
            </Link>
          </>
        )}
      </summary>
      <div className="sbs-scroll">
        <table aria-label="Branch run beside its original">
          <thead>
            <tr>
              <th scope="col">seq</th>
              <th scope="col">original (recorded)</th>
              <th scope="col">this branch</th>
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
    </details>
  );
}
