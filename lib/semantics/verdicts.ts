/**
 * The verdicts that concern one event, as the inspect answer carries them (GET
 * /api/runs/{run}/inspect, `verdicts`): the retrieval's document ages against the policy,
 * an approval decision against the hash in force, a tool call's approval and outcome. Each
 * is the fold's or the ledger's own verdict, the one the findings are reported from, so a
 * pane shows what a finding says and never decides it again.
 */
import type { JournalEvent } from "../journal/types";
import { str } from "../journal/values";
import type { ApprovalStatus } from "./approvals";
import { writeCallAt } from "./effects";
import { callLedger, effectOf, isConfirmed, isOpen, type BranchReconcile } from "./ledger";
import { retrievalVerdict, type RetrievalVerdict } from "./retrieval";
import { INITIAL_RUN, stepRun, type RunFold } from "./run";
import { UNKNOWN_HASH } from "./state";

/** An approval.decision against the run state (`approval.stale-state`). */
export interface DecisionVerdict {
  /** the approver's `stateHash`, null when the decision recorded none */
  stateHash: string | null;
  /** the hash in force at the decision, null when it cannot be known (the state was stored redacted) */
  hashInForce: string | null;
  /** decided on another state than the run's: `approval.stale-state`; null when it cannot be judged */
  stale: boolean | null;
}

/** A tool call's approval and outcome (`approval.*`, `effect.*`, the ledger's open and confirmed). */
export interface CallVerdict {
  /** seq of the tool.call */
  seq: number;
  call: string;
  /** how its `effect` is read (a missing one is a write) */
  effect: "read" | "write";
  /** the latest result's status, null before any */
  status: string | null;
  open: boolean;
  confirmed: boolean;
  /** how a reconcile settled it, null when none did */
  reconciled: { outcome: string; where: string; seq: number | null } | null;
  /** the earlier write this call retries after an unknown outcome (`effect.retry-after-unknown`), null when none */
  retryOf: number | null;
  /** the approval verdict at the call (`approval.missing`, … ; "ok" when none applies) */
  approval: ApprovalStatus;
}

export interface EventVerdicts {
  retrieval: RetrievalVerdict | null;
  decision: DecisionVerdict | null;
  call: CallVerdict | null;
}

/**
 * The verdicts for the event at `seq`. `events`, in seq order: the run's `run.start`, and
 * what the verdict reads: for a retrieval nothing else; for an approval.decision the
 * state and checkpoint events before it (from a checkpoint on is enough); for a tool.call,
 * tool.result or reconcile every tool.call, tool.result, reconcile and approval event of
 * the run. `redacted`: seqs stored with a secret replaced (their state is not the recorder's).
 */
export function eventVerdicts(
  events: readonly JournalEvent[],
  seq: number,
  opts: { branchReconciles?: readonly BranchReconcile[]; redacted?: ReadonlySet<number> } = {},
): EventVerdicts {
  const target = events.find((e) => e.seq === seq);
  const out: EventVerdicts = { retrieval: null, decision: null, call: null };
  if (!target) return out;
  let fold: RunFold = INITIAL_RUN;
  let approval: ApprovalStatus = "ok";
  let callSeq: number | null = null;
  const id = str(target.data.call);
  for (const e of events) {
    const { next, verdict } = stepRun(fold, e, null, opts.redacted?.has(e.seq) === true);
    if (e.seq === seq) {
      if (verdict.kind === "approval.decision")
        out.decision = {
          stateHash: verdict.stateHash,
          hashInForce: verdict.hashInForce === UNKNOWN_HASH ? null : verdict.hashInForce,
          stale: verdict.stateHash === null || verdict.hashInForce === UNKNOWN_HASH ? null : verdict.problem === "stale",
        };
      else if (e.type === "retrieval") out.retrieval = retrievalVerdict(e, fold.policy?.retrievalMaxAgeSeconds);
    }
    if (e.type === "tool.call" && e.seq <= seq && str(e.data.call) === id) {
      callSeq = e.seq;
      if (verdict.kind === "tool.call") approval = verdict.approval.status;
    }
    fold = next;
  }
  if (callSeq === null || (target.type !== "tool.call" && target.type !== "tool.result" && target.type !== "reconcile")) return out;
  const rec = callLedger(events, opts.branchReconciles).find((c) => c.seq === callSeq);
  if (!rec) return out;
  out.call = {
    seq: rec.seq,
    call: rec.call,
    effect: effectOf(rec.effect),
    status: rec.status,
    open: isOpen(rec),
    confirmed: isConfirmed(rec),
    reconciled: rec.reconciled && { outcome: rec.reconciled.outcome, where: rec.reconciled.where, seq: rec.reconciled.seq },
    retryOf: writeCallAt(fold.effects, rec.seq)?.retryOf ?? null,
    approval,
  };
  return out;
}
