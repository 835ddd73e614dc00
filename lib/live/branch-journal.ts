/**
 * A continuation's branch run journal (docs/journal-format.md, "Branch runs and live
 * events"): the kept events under the branch's id, then the events the loop added.
 */
import type { JournalEvent, JsonObject } from "../journal/types";
import type { ContinueOutcome, ContinueStart } from "./continue-contract";

/**
 * The branch run's journal: the kept events under the branch's id (without the recorder's
 * hashes; run.start with `forkOf`, the branch's policy and `mode: "live"`), then the added
 * events, whose seqs already follow the kept ones.
 */
export function continuationJournal(opts: {
  branchRun: string;
  start: ContinueStart;
  outcome: ContinueOutcome;
  ts: string;
  /** run.start fields naming what made the branch (forkOf by default; a resume passes resumeOf) */
  origin?: JsonObject;
}): JournalEvent[] {
  const out: JournalEvent[] = opts.start.kept.map((e, i) => {
    const { hash: _hash, ...rest } = e;
    void _hash;
    const ev = { ...rest, run: opts.branchRun } as JournalEvent;
    if (i === 0)
      ev.data = {
        ...e.data,
        ...(opts.start.policy ? { policy: opts.start.policy as unknown as JsonObject } : {}),
        ...(opts.origin ?? { forkOf: { run: opts.start.original, seq: opts.start.forkSeq } }),
        mode: "live",
      };
    return ev;
  });
  for (const a of opts.outcome.added) {
    const ev = { run: opts.branchRun, seq: a.seq, ts: opts.ts, type: a.type, data: a.data } as JournalEvent;
    if (a.parent !== undefined) ev.parent = a.parent as JournalEvent["seq"];
    out.push(ev);
  }
  return out;
}
