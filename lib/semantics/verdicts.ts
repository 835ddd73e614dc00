/**
 * The verdicts that concern one event, as the inspect answer carries them (GET
 * /api/runs/{run}/inspect, `verdicts`): the retrieval's document ages against the policy,
 * an approval decision against the hash in force, a tool call's outcome, and the approval
 * verdict on a tool call or on the call an approval gates. Each
 * is the fold's or the ledger's own verdict, the one the findings are reported from, so a
 * pane shows what a finding says and never decides it again.
 */
import type { JournalEvent } from "../journal/types";
import { str } from "../journal/values";
import type { ApprovalStatus } from "./approvals";
import { writeCallAt } from "./effects";
import { effectOf } from "./call-effect";
import { callLedger, isConfirmed, isOpen, type BranchReconcile } from "./ledger";
import type { ArgsVerdict } from "./contracts";
import type { PolicyVerdict } from "./invariants";
import { retrievalVerdict, type RetrievalVerdict } from "./retrieval";
import { INITIAL_RUN, stepRun, type RunFold, type Verdict } from "./run";
import { UNKNOWN_HASH } from "./state";
import { contractOf } from "./policy";

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
}

/**
 * The fold's approval verdict on a tool.call, the one `approval.missing`, `.undecided`,
 * `.denied` and `.reused` are reported from (lib/semantics/approvals.ts `callApproval`).
 */
export interface ApprovalVerdict {
  /** seq of the tool.call judged */
  seq: number;
  call: string;
  tool: string;
  /** policy.requireApproval names the tool */
  required: boolean;
  /** "ok" when no approval rule applies; else the rule's last word (`approval.<status>`) */
  status: ApprovalStatus;
  /** an approval.request before the call names it */
  requested: boolean;
  /** a decision of such a request before the call is `approved` */
  approved: boolean;
  /** requested, every request decided, none approved */
  denied: boolean;
  /** for `reused`: seq of the call that used the decision first, else null */
  usedBy: number | null;
}

/**
 * The declared policy's verdict on a tool.call (docs/declared-policy.md): its args against
 * the tool's contract (`tool.args-invalid`) and the invariants it breaks (`policy.<kind>`),
 * decided by the events before it. Null on a run whose policy declares neither a contract
 * nor an invariant for the tool.
 */
export interface PolicyCallVerdict {
  /** seq of the tool.call judged */
  seq: number;
  call: string;
  tool: string;
  /** the contract's args schema: null when the contract declares none */
  args:
    | { status: "ok" }
    | { status: "invalid"; keyword: string; path: string; message: string }
    | { status: "schema-refused"; message: string }
    | null;
  /** ids of the policy's invariants about this tool, in the policy's order */
  checked: string[];
  /** the invariants the call breaks, each with its evidence seq */
  broken: PolicyVerdict[];
}

export interface EventVerdicts {
  retrieval: RetrievalVerdict | null;
  decision: DecisionVerdict | null;
  call: CallVerdict | null;
  /**
   * A tool.call (or its tool.result or reconcile): its approval verdict. An approval.request
   * or approval.decision: the verdict on the call the request gates (the first tool.call
   * naming the request's call after the request), null while no such call was made.
   */
  approval: ApprovalVerdict | null;
  /** A tool.call (or its tool.result or reconcile): the declared policy's verdict on the call. */
  policy: PolicyCallVerdict | null;
}

function argsStatus(declared: boolean, v: ArgsVerdict | null): PolicyCallVerdict["args"] {
  if (!declared) return null;
  if (v === null) return { status: "ok" };
  return v.kind === "invalid" ? { status: "invalid", ...v.error } : { status: "schema-refused", message: v.error };
}

const TOOL_EVENTS: ReadonlySet<string> = new Set(["tool.call", "tool.result", "reconcile"]);

/** The call id an event is about, and from which seq on its tool.call is looked for. */
function gatedCall(events: readonly JournalEvent[], target: JournalEvent): { id: string; after: number } | null {
  if (target.type === "approval.request") {
    const id = str(target.data.call);
    return id === undefined ? null : { id, after: target.seq };
  }
  if (target.type === "approval.decision") {
    const approval = str(target.data.approval);
    const request = events.find((e) => e.type === "approval.request" && e.seq < target.seq && str(e.data.approval) === approval);
    const id = request && str(request.data.call);
    return request && id !== undefined ? { id, after: request.seq } : null;
  }
  return null;
}

/** The policy verdict on the tool.call at `seq`, null when the policy says nothing of its tool. */
function policyOf(before: RunFold, seq: number, v: Extract<Verdict, { kind: "tool.call" }>): PolicyCallVerdict | null {
  const contract = contractOf(before.policy, v.tool);
  const checked = [...new Set((before.policy?.invariants ?? []).filter((i) => i.tools.includes(v.tool)).map((i) => i.id))];
  const declared = contract?.args !== undefined;
  if (!declared && checked.length === 0) return null;
  return { seq, call: v.call, tool: v.tool, args: argsStatus(declared, v.args), checked, broken: [...v.policy] };
}

/**
 * The verdicts for the event at `seq`. `events`, in seq order: the run's `run.start`, and
 * what the verdict reads: for a retrieval nothing else; for a tool.call, tool.result,
 * reconcile or approval.request every tool.call, tool.result, reconcile and approval event
 * of the run; for an approval.decision those and the state and checkpoint events before it
 * (from a checkpoint on is enough). `redacted`: seqs stored with a secret replaced (their state is not the recorder's).
 */
export function eventVerdicts(
  events: readonly JournalEvent[],
  seq: number,
  opts: { branchReconciles?: readonly BranchReconcile[]; redacted?: ReadonlySet<number> } = {},
): EventVerdicts {
  const target = events.find((e) => e.seq === seq);
  const out: EventVerdicts = { retrieval: null, decision: null, call: null, approval: null, policy: null };
  if (!target) return out;
  let fold: RunFold = INITIAL_RUN;
  let callSeq: number | null = null;
  const id = str(target.data.call);
  const gated = gatedCall(events, target);
  const judge = (at: number, v: Extract<Verdict, { kind: "tool.call" }>): ApprovalVerdict => ({
    seq: at,
    call: v.call,
    tool: v.tool,
    required: v.required,
    status: v.approval.status,
    requested: v.approval.requested,
    approved: v.approval.approved,
    denied: v.approval.denied,
    usedBy: v.approval.usedBy,
  });
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
    if (e.type === "tool.call" && e.seq <= seq && str(e.data.call) === id && TOOL_EVENTS.has(target.type)) {
      callSeq = e.seq;
      out.approval = verdict.kind === "tool.call" ? judge(e.seq, verdict) : null;
      out.policy = verdict.kind === "tool.call" ? policyOf(fold, e.seq, verdict) : null;
    }
    if (gated && out.approval === null && verdict.kind === "tool.call" && e.seq > gated.after && verdict.call === gated.id)
      out.approval = judge(e.seq, verdict);
    fold = next;
  }
  if (callSeq === null || !TOOL_EVENTS.has(target.type)) return out;
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
  };
  return out;
}
