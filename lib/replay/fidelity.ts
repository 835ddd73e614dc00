/**
 * Whether a run can be replayed exactly. The format calls a journal with run.start
 * versions and state events replayable; anything less (a trace imported from
 * OpenTelemetry and the like, a run without state) is replayed best-effort, and says so.
 */
import type { Fidelity, JournalEvent } from "../journal/types";

export interface FidelityVerdict {
  fidelity: Fidelity;
  bestEffort: boolean;
  reason: string | null;
}

/** The same verdict, read event by event (the streamed replay's chunks). */
export function createFidelityScan(): { push(event: JournalEvent): void; verdict(given?: Fidelity): FidelityVerdict } {
  let start: JournalEvent | undefined;
  let hasState = false;
  let expected = 0;
  let missing = 0;
  return {
    push(e) {
      if (start === undefined && e.type === "run.start") start = e;
      if (e.type === "state" || e.type === "checkpoint") hasState = true;
      if (e.seq > expected) missing += e.seq - expected;
      expected = e.seq + 1;
    },
    verdict(given) {
      const reasons: string[] = [];
      const hasVersions = start !== undefined && typeof start.data.versions === "object" && start.data.versions !== null;
      let fidelity: Fidelity;
      if (given !== undefined) {
        fidelity = given;
        if (given === "trace") reasons.push("the run was imported from a trace: no recorded state or versions to replay against");
        else if (given === "partial") reasons.push("the run is stored as partial");
      } else if (!start || !hasVersions) {
        fidelity = "trace";
        reasons.push(
          start
            ? "run.start records no versions (prompts, policies, tools, models)"
            : "the run has no run.start: versions and policy are unknown",
        );
      } else if (!hasState) {
        fidelity = "partial";
        reasons.push("the run has no state or checkpoint events: its state cannot be rebuilt");
      } else {
        fidelity = "replayable";
      }
      if (missing > 0) reasons.push(`${missing} event${missing === 1 ? " is" : "s are"} missing from the journal (gaps in seq)`);
      return { fidelity, bestEffort: fidelity !== "replayable" || missing > 0, reason: reasons.length > 0 ? reasons.join("; ") : null };
    },
  };
}
