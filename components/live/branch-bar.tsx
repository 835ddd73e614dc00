import Link from "next/link";

interface BranchItem {
  run: string;
  kind: string;
  forkSeq: number;
  outcome: string;
  externalId: string | null;
  actor: string;
  environment: string;
}

export interface Branches {
  /** this run is a branch: of which run, at which seq, made how */
  of: { run: string; seq: number; kind: string } | null;
  /** branch runs made of this run, oldest first */
  children: BranchItem[];
}

const KIND: Record<string, string> = {
  reconcile: "reconcile",
  "re-execute": "live re-execute",
  continue: "live continue",
  resume: "resume",
};

/**
 * Under the run header: the original a branch run came from, or the branch runs made of
 * this one; `children` (the resume plan) share the bar, so the page keeps one row for both.
 */
export function BranchBar({ branches, children }: { branches: Branches; children?: React.ReactNode }) {
  if (!branches.of && branches.children.length === 0 && !children) return null;
  return (
    <div className="branch-bar" data-testid="branch-bar">
      {branches.of ? (
        <p>
          <span className="badge live-mark">branch</span> {KIND[branches.of.kind] ?? branches.of.kind} of{" "}
          <Link href={`/runs/${encodeURIComponent(branches.of.run)}?event=${branches.of.seq}`} prefetch={false}>
            {branches.of.run}
          </Link>{" "}
          at #{branches.of.seq}:{" "}
          {branches.of.kind === "continue"
            ? "the events before it are the original's, the what-if edit is simulated, and those after it were recorded live."
            : branches.of.kind === "resume"
              ? "the events up to the checkpoint are the original's; after it the agent was continued live, reused and skipped calls answered from the recording."
              : "the events before it are the original's, those after it were recorded live."}
        </p>
      ) : null}
      {branches.children.length > 0 ? (
        <details open>
          <summary>
            {branches.children.length} branch run{branches.children.length === 1 ? "" : "s"} made by live actions
          </summary>
          <ul aria-label="Branch runs">
            {branches.children.map((b) => (
              <li key={b.run}>
                <Link href={`/runs/${encodeURIComponent(b.run)}`} prefetch={false} className="mono">
                  {b.run}
                </Link>{" "}
                · {KIND[b.kind] ?? b.kind} at #{b.forkSeq} · {b.outcome}
                {b.externalId ? ` (${b.externalId})` : ""} · {b.environment} · {b.actor}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {children}
    </div>
  );
}
