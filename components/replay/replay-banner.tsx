"use client";
import type { ForkSpec } from "@/lib/replay";
import { describeOverride } from "./describe";
import { useReplayStore } from "./replay-store";

/**
 * What the page shows and how far to trust it: always that the replay is simulated, the
 * mode, and for a trace or a run with gaps that it is best-effort and why.
 */
export function ReplayBanner({
  fork,
  urlError,
  fidelity,
  events,
}: {
  fork: ForkSpec | null;
  urlError: string | null;
  fidelity: string;
  /** The run's event count, for the progress of a streamed load. */
  events: number;
}) {
  const result = useReplayStore((s) => s.result);
  const loading = useReplayStore((s) => s.progress !== null && !s.progress.done);
  const summary = result?.summary;
  const forkError = urlError ?? result?.forkError ?? null;
  const forked = fork !== null && forkError === null;
  return (
    <section className="rp-banner" aria-label="Replay mode">
      <div className="mode">
        <span className="tag-sim">Simulated</span>
        {forked ? (
          <span>
            <b>What-if fork</b> at seq {fork.seq}: {describeOverride(fork.override)}. Frames downstream of the fork&apos;s first change are
            marked stale: recorded, not what would have happened.
          </span>
        ) : (
          <span>
            <b>Reconstruct</b>: the run re-derived from its journal (state rebuilt, hashes and chain verified, policy decisions re-evaluated
            {summary?.bestEffort ? ", as far as the journal records them" : ""}) and compared with what it recorded.
          </span>
        )}
      </div>
      {summary?.bestEffort || fidelity === "trace" ? (
        <div className="best-effort" role="note">
          Best-effort replay ({summary?.fidelity ?? fidelity}): {summary?.bestEffortReason ?? "the run was imported from a trace"}.
        </div>
      ) : null}
      {forkError !== null ? (
        <div className="fork-error" role="alert">
          The fork asked for cannot be applied: {forkError}. Showing the reconstruct instead.
        </div>
      ) : null}
      <div className="sub" style={{ fontSize: 12 }}>
        No tool or model is called: write calls are blocked and recorded results substituted.
        {result && !loading
          ? ` ${
              result.hashed === 0
                ? "The journal carries no hash chain to check."
                : `Hash chain checked against ${result.chain === "recorder" ? "the recorder's hashes" : "Retrace's own chain over the stored events (secrets were redacted at ingest)"}.`
            } ${result.summary.events.toLocaleString("en-US")} events folded in ${Math.round(result.ms).toLocaleString("en-US")} ms.`
          : null}
      </div>
      <LoadProgress total={events} />
    </section>
  );
}

/** While the worker streams the run in, how much of it the frames below cover. */
function LoadProgress({ total }: { total: number }) {
  const progress = useReplayStore((s) => s.progress);
  if (progress === null || progress.done) return null;
  const max = Math.max(total, progress.loaded, 1);
  return (
    <div className="rp-progress" role="status" data-testid="replay-progress">
      <progress max={max} value={progress.loaded} aria-label="Events folded" />
      <span>
        Folding the run: {progress.loaded.toLocaleString("en-US")} of {max.toLocaleString("en-US")} events. The frames below are ready to
        step through; divergences appear as they are found.
      </span>
    </div>
  );
}
