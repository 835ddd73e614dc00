/**
 * The policy guard of a replay (issue 33): a tool call the replayed agent makes that breaks
 * the declared policy (a tool contract's `args` schema, an invariant; docs/journal-format.md
 * "Tool contracts", "Invariants") is refused: it is neither answered from the recording nor
 * executed, and it is the replay's divergence (kind `policy`), named by the rule the analyzer
 * would report (`tool.args-invalid`, `policy.<kind>`).
 *
 * The judging is lib/semantics', never decided here: the guard folds the replay's OWN
 * journal as it is written (`observe`, wired to the sink of the journal the replay writes)
 * with `stepRun`, and judges a call by stepping a `tool.call` event for it, at the next seq,
 * on that fold without keeping the step. The verdict is the one the analyzer and the journal
 * replay read (the tool.call verdict's `args` and `policy`), on the replay's inputs, calls
 * and results before the call only, never the recording's. The call, once recorded (refused
 * or answered), is observed like any other event.
 *
 * The policy is the one the guard is made with: the recording's `run.start` policy, or one
 * the replay is told to judge by (`--policy FILE`, a workflow's attached policy), which
 * replaces it whole, as an attached policy does at ingest. The branch's own `run.start`
 * does not change it.
 */
import type { InvariantKind, JournalEvent, JsonValue, RunId, Seq } from "../journal/types";
import { INITIAL_RUN, stepRun, type ArgsVerdict, type PolicyVerdict, type RunFold } from "../semantics";
import type { RequestDivergence } from "./model-request";
import type { ToolCallSequence } from "./tool-sequence";

/** The rule a refused call breaks, as the analyzer names its finding. */
export type PolicyRule = "tool.args-invalid" | `policy.${InvariantKind}`;

/** A refused call: where it stands in the recording, and the rule it breaks in the replay. */
export interface PolicyDivergence extends RequestDivergence {
  kind: "policy";
  rule: PolicyRule;
  /** `policy.*`: the invariant's id; null for `tool.args-invalid` */
  invariant: string | null;
  /** `tool.args-invalid`: the JSON Schema keyword that fails (null: the contract's schema itself is refused) */
  keyword: string | null;
  /** `policy.*`: seq, in the replay's own journal, of the event that shows it; null when the evidence is an absence */
  evidence: number | null;
  /** seq, in the replay's own journal, of the refused call (its `tool.call`) */
  at: number;
  /** every rule the call breaks, the first being `rule` */
  broken: Array<{ rule: PolicyRule; invariant: string | null; evidence: number | null }>;
  /** one line for people: the rule, the invariant or keyword and the evidence (no argument values) */
  message: string;
}

/** Whether a replay's divergence is a policy refusal (and so names its rule). */
export function isPolicyDivergence(d: RequestDivergence): d is PolicyDivergence {
  return d.kind === "policy" && typeof (d as Partial<PolicyDivergence>).rule === "string";
}

/** The guard of one replay: the policy it judges by, and the kernel's fold of the replay's journal so far. */
export class PolicyGuard {
  private fold: RunFold;
  private next = 0;

  /** `policy`: the JSON of a run.start's `data.policy` (undefined or null: no policy, nothing refused). */
  constructor(policy: JsonValue | undefined) {
    // the kernel reads the policy as it reads a run.start's; the branch's own run.start is then ignored
    const start = { run: "" as RunId, seq: -1 as Seq, ts: "", type: "run.start", data: { policy: policy ?? null } } as JournalEvent;
    this.fold = stepRun(INITIAL_RUN, start).next;
  }

  /** One event of the replay's own journal, as it is written (in seq order). */
  observe(event: JournalEvent): void {
    if (event.seq < this.next) return; // already folded: a journal written twice (tee'd sinks) counts once
    this.fold = stepRun(this.fold, event).next;
    this.next = event.seq + 1;
  }

  /**
   * The call `tool(args)` the agent makes now, as the next event of the replay's journal:
   * null when the policy allows it, else the divergence that refuses it, placed where the
   * call would stand in the recording (`calls.placeOf`, nothing asked or answered).
   * `data`: more of the tool.call as it will be recorded (`effect`, `call`…).
   */
  judge(tool: string, args: JsonValue, calls: ToolCallSequence, data: Record<string, JsonValue> = {}): PolicyDivergence | null {
    const policy = this.fold.policy;
    if (policy === null || (policy.tools === undefined && (policy.invariants?.length ?? 0) === 0)) return null;
    const at = this.next;
    const event = { run: "" as RunId, seq: at as Seq, ts: "", type: "tool.call", data: { ...data, tool, args } } as JournalEvent;
    const { verdict } = stepRun(this.fold, event);
    if (verdict.kind !== "tool.call" || (verdict.args === null && verdict.policy.length === 0)) return null;
    const broken = [
      ...(verdict.args === null ? [] : [{ rule: "tool.args-invalid" as const, invariant: null, evidence: null }]),
      ...verdict.policy.map((p) => ({ rule: `policy.${p.kind}` as const, invariant: p.id, evidence: p.evidence })),
    ];
    const first = broken[0];
    const place = calls.placeOf(tool, args);
    const invariant = verdict.args === null ? verdict.policy[0] : null;
    return {
      seq: place.seq,
      kind: "policy",
      rule: first.rule,
      invariant: first.invariant,
      keyword: verdict.args?.kind === "invalid" ? verdict.args.error.keyword : null,
      evidence: first.evidence,
      at,
      path: verdict.args !== null ? argsPath(verdict.args) : invariantPath(this.fold, invariant!),
      recorded: place.recorded === null ? null : { tool: place.recorded.tool, args: place.recorded.args },
      replayed: { tool, args },
      broken,
      message: describe(tool, verdict.args, verdict.policy),
    };
  }
}

/** `/args` + the failing value's pointer (the whole args when the schema itself is refused). */
function argsPath(v: ArgsVerdict): string {
  return v.kind === "invalid" ? `/args${v.error.path}` : "/args";
}

/** The argument the invariant reads of the call (the object a state-precondition names), "" when none. */
function invariantPath(fold: RunFold, v: PolicyVerdict): string {
  const inv = fold.policy?.invariants?.find((i) => i.id === v.id);
  const arg = inv?.kind === "state-precondition" ? inv.arg : v.path;
  return arg === null || arg === undefined ? "" : `/args${arg}`;
}

function describe(tool: string, args: ArgsVerdict | null, policy: readonly PolicyVerdict[]): string {
  const parts: string[] = [];
  if (args?.kind === "invalid")
    parts.push(
      `tool.args-invalid: the args of ${tool} break its contract: keyword ${args.error.keyword} at /args${args.error.path} (${args.error.message})`,
    );
  else if (args) parts.push(`tool.args-invalid: the contract's args schema for ${tool} is refused, so no call to it is allowed`);
  for (const p of policy)
    parts.push(
      `policy.${p.kind}: ${tool} breaks invariant "${p.id}"${p.evidence === null ? "" : ` (evidence: seq ${p.evidence} of the replay)`}`,
    );
  return parts.join("; ");
}
