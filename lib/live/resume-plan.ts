/**
 * The resume plan of a failed or cancelled run (docs/live-actions.md, "Resume"): from a
 * durable checkpoint, what a resume would **reuse** (read results recorded after it),
 * **skip** (writes confirmed by an ok result or a reconcile, in the journal or on a branch
 * run), must **reconcile** first (writes whose outcome is unknown or timed out, or never
 * recorded) and would **run again** (failed calls, reads without a result). Pure: the
 * outcomes are plan.ts's (`recordedCalls`), the checkpoint's state is checked by the run
 * fold (lib/semantics); the server reads the events and the branch reconciles.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue } from "../journal/types";
import { obj, str } from "../journal/values";
import { INITIAL_ORDER, INITIAL_RUN, stepOrder, stepRun, type RunFold } from "../semantics";
import { PlanError, recordedCalls } from "./plan";
import type { BranchReconcile, RecordedCall } from "./types";

export type ResumeAction = "reuse" | "skip" | "reconcile" | "redo";

/** One recorded tool call after the checkpoint and what a resume does with it. */
export interface ResumeRow {
  action: ResumeAction;
  /** seq of the tool.call */
  seq: number;
  /** seq of its latest tool.result, null when none was recorded */
  resultSeq: number | null;
  /** seq of the reconcile in the journal that settled it, null otherwise */
  reconcileSeq: number | null;
  call: string;
  tool: string;
  effect: string;
  status: string | null;
  externalId: string | null;
  reconciled: RecordedCall["reconciled"];
  /** why this action, for people */
  why: string;
}

export interface CheckpointInfo {
  id: string;
  seq: number;
  durable: boolean;
  hash: string | null;
}

export interface ResumePlan {
  run: string;
  /** the run's run.end status, null when it has none */
  status: string | null;
  /** every checkpoint of the run, in seq order (a resume starts only from a durable one) */
  checkpoints: CheckpointInfo[];
  /** the checkpoint the plan starts from (the last durable one unless another was asked for) */
  checkpoint: CheckpointInfo | null;
  /** why no resume is possible from here (run not failed/cancelled, no durable checkpoint, …); null when it is */
  impossible: string | null;
  rows: ResumeRow[];
  counts: Record<ResumeAction, number>;
  /** model responses recorded after the checkpoint: a resume asks the model again */
  modelCallsAfter: number;
  /** why resuming is refused now (something to reconcile first), or null */
  refusal: string | null;
  /** ties the confirmation to this plan: what was shown is what is resumed */
  digest: string;
}

const RESUMABLE = new Set(["failed", "cancelled"]);

function checkpointsOf(events: readonly JournalEvent[]): CheckpointInfo[] {
  return events
    .filter((e) => e.type === "checkpoint")
    .map((e) => ({ id: str(e.data.id) ?? "", seq: e.seq, durable: e.data.durable === true, hash: str(e.data.hash) ?? null }));
}

/** The checkpoint's snapshot against its recorded hash, by the run fold (what the analyzer checks). */
function snapshotAt(events: readonly JournalEvent[], seq: number): { ok: boolean; after: string; recorded: string | null } {
  let order = INITIAL_ORDER;
  let fold: RunFold = INITIAL_RUN;
  for (const e of events) {
    const o = stepOrder(order, e, null);
    order = o.next;
    if (!o.verdict.accepted) continue;
    const step = stepRun(fold, e);
    fold = step.next;
    if (e.seq === seq && step.verdict.kind === "checkpoint")
      return {
        ok: step.verdict.recorded === null || step.verdict.recorded === step.verdict.after,
        after: step.verdict.after,
        recorded: step.verdict.recorded,
      };
    if (e.seq >= seq) break;
  }
  return { ok: false, after: "", recorded: null };
}

function classify(c: RecordedCall): { action: ResumeAction; why: string } {
  const unknown = c.status === "unknown" || c.status === "timeout";
  // an effect the recorder did not name is treated as a write: a resume must not repeat it blindly
  const write = c.effect !== "read";
  if (!write) {
    if (c.status === "ok") return { action: "reuse", why: "read result recorded: answered from the recording" };
    return {
      action: "redo",
      why: c.status === null ? "read without a recorded result: read again" : `read ended ${c.status}: read again`,
    };
  }
  if (c.status === "ok") return { action: "skip", why: `write confirmed by its result${c.externalId ? ` (${c.externalId})` : ""}` };
  if (unknown && c.reconciled?.outcome === "succeeded")
    return {
      action: "skip",
      why: `write ${c.status}, reconciled as succeeded${c.reconciled.where === "journal" ? ` at #${c.reconciled.seq}` : ` on branch ${c.reconciled.where}`}`,
    };
  if (unknown && c.reconciled?.outcome === "failed")
    return {
      action: "redo",
      why: `write ${c.status}, reconciled as failed${c.reconciled.where === "journal" ? ` at #${c.reconciled.seq}` : ` on branch ${c.reconciled.where}`}: it did not happen`,
    };
  if (unknown) return { action: "reconcile", why: `write ${c.status}: nobody knows whether it happened` };
  if (c.status === null) return { action: "reconcile", why: "write without a recorded result: it may have happened" };
  return { action: "redo", why: `write ended ${c.status}: it did not happen` };
}

/**
 * The resume plan of `run` from `checkpoint` (an id; the last durable checkpoint when
 * omitted). Never throws for a run that cannot be resumed: `impossible` says why.
 */
export function resumePlan(opts: {
  run: string;
  events: readonly JournalEvent[];
  branchReconciles?: readonly BranchReconcile[];
  checkpoint?: string | null;
}): ResumePlan {
  const events = [...opts.events].sort((a, b) => a.seq - b.seq);
  const end = [...events].reverse().find((e) => e.type === "run.end");
  const status = end ? (str(end.data.status) ?? null) : null;
  const checkpoints = checkpointsOf(events);
  const durable = checkpoints.filter((c) => c.durable);
  let checkpoint: CheckpointInfo | null = null;
  let impossible: string | null = null;
  if (opts.checkpoint) {
    const asked = [...checkpoints].reverse().find((c) => c.id === opts.checkpoint) ?? null;
    if (!asked) impossible = `no checkpoint "${opts.checkpoint}" in this run`;
    else if (!asked.durable)
      impossible = `checkpoint "${asked.id}" (#${asked.seq}) is not durable: a resume starts only from a durable checkpoint`;
    checkpoint = asked;
  } else checkpoint = durable.at(-1) ?? null;

  if (status === null) impossible = "the run has no run.end: it is still running, or it stopped without saying how";
  else if (!RESUMABLE.has(status)) impossible = `the run ${status}: only a failed or cancelled run is resumed`;
  else if (impossible === null && checkpoint === null)
    impossible =
      checkpoints.length === 0
        ? "the run recorded no checkpoint: there is no saved state to resume from"
        : `none of the run's ${checkpoints.length} checkpoint${checkpoints.length === 1 ? " is" : "s are"} durable: there is no saved state to resume from`;
  if (impossible === null && checkpoint !== null) {
    const snap = snapshotAt(events, checkpoint.seq);
    if (!snap.ok)
      impossible = `checkpoint "${checkpoint.id}" (#${checkpoint.seq}) does not match its recorded hash (${snap.recorded ?? "none"} recorded, ${snap.after} rebuilt): its state cannot be trusted`;
  }

  const rows: ResumeRow[] = [];
  let modelCallsAfter = 0;
  if (checkpoint !== null) {
    const cp = checkpoint.seq;
    const endSeq = end?.seq ?? Infinity;
    for (const c of recordedCalls(events, opts.branchReconciles ?? [])) {
      if (c.seq >= endSeq) continue;
      if (c.seq < cp && (c.resultSeq === null || c.resultSeq < cp)) continue;
      const { action, why } = classify(c);
      rows.push({
        action,
        seq: c.seq,
        resultSeq: c.resultSeq,
        reconcileSeq: c.reconciled?.where === "journal" ? c.reconciled.seq : null,
        call: c.call,
        tool: c.tool,
        effect: c.effect,
        status: c.status,
        externalId: c.reconciled?.externalId ?? c.externalId,
        reconciled: c.reconciled,
        why,
      });
    }
    modelCallsAfter = events.filter((e) => e.type === "model.response" && e.seq > cp && e.seq < endSeq).length;
  }
  const counts: Record<ResumeAction, number> = { reuse: 0, skip: 0, reconcile: 0, redo: 0 };
  for (const r of rows) counts[r.action]++;
  const pending = rows.filter((r) => r.action === "reconcile");
  const refusal =
    impossible ??
    (pending.length > 0
      ? `reconcile first: ${pending.map((r) => `#${r.resultSeq ?? r.seq} ${r.tool} (${r.status ?? "no result"})`).join(", ")} ha${pending.length === 1 ? "s" : "ve"} an outcome nobody reconciled`
      : null);
  const digest = sha256Hex(
    canonicalJson({
      run: opts.run,
      checkpoint: checkpoint ? { id: checkpoint.id, seq: checkpoint.seq } : null,
      rows: rows.map((r) => [r.seq, r.action, r.externalId]),
    } as unknown as JsonValue),
  );
  return { run: opts.run, status, checkpoint, checkpoints, impossible, rows, counts, modelCallsAfter, refusal, digest };
}

/** The marker on an event a resume wrote (docs/journal-format.md, "Live events"). */
export interface ResumeMark {
  action: "resume";
  executor: string;
  environment: string;
  actor: string;
  reason: string;
  at: string;
}

/**
 * The journal of a resume branch: the original's events up to and including the
 * checkpoint (stored bodies, under the branch's id, without the recorder's hashes), with
 * `resumeOf {run, checkpoint}` on its run.start; then, in the original's order, the reused
 * and skipped calls with their recorded results, each marked `data.resumed {action, from}`
 * (the seq it was taken from) and `data.live` (who resumed, where, why). Calls to run again
 * or reconcile are not copied: the continuation (or nobody) makes them.
 */
export function resumeJournal(opts: {
  branchRun: string;
  plan: ResumePlan;
  events: readonly JournalEvent[];
  mark: ResumeMark;
}): JournalEvent[] {
  const { plan } = opts;
  if (plan.checkpoint === null || plan.impossible !== null) throw new PlanError(plan.impossible ?? "no checkpoint to resume from", 409);
  if (plan.refusal !== null) throw new PlanError(plan.refusal, 409);
  const cp = plan.checkpoint;
  const sorted = [...opts.events].sort((a, b) => a.seq - b.seq);
  const kept = sorted.filter((e) => e.seq <= cp.seq);
  if (kept.length === 0 || kept[0].type !== "run.start") throw new PlanError("the run has no run.start to resume from", 409);
  const out: JournalEvent[] = kept.map((e, i) => {
    const { hash: _hash, ...rest } = e;
    void _hash;
    const ev = { ...rest, run: opts.branchRun } as JournalEvent;
    if (i === 0) ev.data = { ...e.data, resumeOf: { run: plan.run, checkpoint: cp.id } };
    return ev;
  });
  const bySeq = new Map<number, JournalEvent>(sorted.map((e) => [e.seq, e]));
  const live = opts.mark as unknown as JsonObject;
  let seq = kept[kept.length - 1].seq;
  const newSeq = new Map<number, number>();
  for (const r of plan.rows) {
    if (r.action !== "reuse" && r.action !== "skip") continue;
    const call = bySeq.get(r.seq);
    if (!call) continue;
    const result = r.resultSeq !== null ? bySeq.get(r.resultSeq) : undefined;
    const callSeq = ++seq;
    newSeq.set(r.seq, callSeq);
    // a parent before the checkpoint is kept as it is, one copied here follows it, any other is left out
    const parent = call.parent === undefined ? undefined : call.parent <= cp.seq ? call.parent : newSeq.get(call.parent);
    out.push(copied(opts.branchRun, callSeq, opts.mark.at, call, { resumed: { action: r.action, from: r.seq }, live }, parent));
    if (!result) continue;
    out.push(copied(opts.branchRun, ++seq, opts.mark.at, result, { resumed: { action: r.action, from: result.seq }, live }, callSeq));
    if (r.action === "skip" && r.reconciled) {
      // a write skipped on a reconcile: the reconcile comes along (the journal's, or one that says which branch made it)
      const rec = r.reconcileSeq !== null ? bySeq.get(r.reconcileSeq) : undefined;
      const data: JsonObject = rec
        ? { ...rec.data }
        : {
            call: r.call,
            outcome: "succeeded",
            evidence: { ...(r.externalId ? { externalId: r.externalId } : {}), branch: r.reconciled.where },
            by: `branch:${r.reconciled.where}`,
          };
      const ev = copied(
        opts.branchRun,
        ++seq,
        opts.mark.at,
        { ...(rec ?? result), type: "reconcile", data },
        {
          resumed: { action: r.action, from: rec?.seq ?? result.seq },
          live,
        },
        callSeq,
      );
      out.push(ev);
    }
  }
  return out;
}

function copied(run: string, seq: number, ts: string, e: JournalEvent, extra: JsonObject, parent: number | undefined): JournalEvent {
  const ev: JournalEvent = { run, seq, ts, type: e.type, data: { ...e.data, ...extra } } as JournalEvent;
  if (e.step !== undefined) ev.step = e.step;
  if (parent !== undefined) ev.parent = parent as JournalEvent["seq"];
  return ev;
}

/** A resume branch run's id: the original's (shortened to fit) and a suffix. */
export function resumeRunId(original: string, nonce: string): string {
  const suffix = `.resume-${nonce}`;
  return `${original.slice(0, 128 - suffix.length)}${suffix}`;
}

/** What the resume marks say on a copied event (for the inspector), or null. */
export function resumedOf(data: JsonObject): { action: string; from: number } | null {
  const r = obj(data.resumed);
  if (!r || typeof r.from !== "number") return null;
  return { action: str(r.action) ?? "", from: r.from };
}
