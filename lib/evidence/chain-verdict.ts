/**
 * Whether a run's record can be trusted, in one verdict every screen reads: the run
 * header's chain chip, the runs list's chain column and a bundle run's banner say the
 * same thing.
 *
 * A run opened from an audit bundle is stored as a copy without the recorder's hashes
 * (the server chains it afresh), so the copy alone reads "unverified". But the bundle's
 * own journal chain was checked when it was opened, and a bundle whose chain does not hold
 * is refused and never stored (lib/server/bundle-runs.ts): a bundle run's chain is
 * verified, in the bundle. Pure: no imports, safe in the browser.
 */

export interface ChainVerdict {
  status: "verified" | "unverified" | "broken";
  /** the chip's words: "verified", "unverified", "broken at seq 12", "verified in the bundle" */
  text: string;
  /** what the verdict rests on, for a tooltip */
  title: string;
}

interface ChainOfRun {
  chainStatus: string;
  chainBrokenAt: number | null;
  /** Run.source: "bundle" for a run opened from an audit bundle */
  source?: string;
}

const RECORDER =
  "The recorder's hash chain over what arrived: verified, unverified (the source recorded no hashes), or broken at the first failing seq";

/** The verdict on a run's chain; `bundle` (its provenance, when the page has it) adds the bundle's last hash. */
export function chainVerdict(run: ChainOfRun, bundle?: { lastHash: string | null } | null): ChainVerdict {
  if (run.source === "bundle" || bundle) {
    const last = bundle?.lastHash ? ` (last hash ${bundle.lastHash.slice(7, 19)}…)` : "";
    return {
      status: "verified",
      text: "verified in the bundle",
      title: `The bundle's journal chain was checked when the bundle was opened${last}; a bundle whose chain does not hold is refused, never opened. This server's copy is chained afresh and carries no recorder hashes.`,
    };
  }
  if (run.chainStatus === "broken")
    return { status: "broken", text: run.chainBrokenAt !== null ? `broken at seq ${run.chainBrokenAt}` : "broken", title: RECORDER };
  if (run.chainStatus === "verified") return { status: "verified", text: "verified", title: RECORDER };
  return { status: "unverified", text: "unverified", title: RECORDER };
}
