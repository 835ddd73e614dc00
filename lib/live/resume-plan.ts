/**
 * The resume plan of a failed or cancelled run (docs/live-actions.md, "Resume"): from a
 * durable checkpoint, what a resume would **reuse** (read results recorded after it),
 * **skip** (writes confirmed by an ok result or a reconcile, in the journal or on a branch
 * run), must **reconcile** first (writes whose outcome is unknown or timed out, or never
 * recorded) and would **run again** (failed calls, reads without a result). Pure: the
 * outcomes are the call ledger's (lib/semantics: the live actions', the analyzer's and the inspector's), the checkpoint's
 * state is checked by the run fold (lib/semantics); the server reads the events and the
 * branch reconciles.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent, JsonValue } from "../journal/types";
import { str } from "../journal/values";
import {
  callLedger,
  effectOf,
  INITIAL_ORDER,
  INITIAL_RUN,
  isConfirmed,
  isOpen,
  NO_RESULT,
  stepOrder,
  stepRun,
  type RunFold,
} from "../semantics";
import { continuationStart } from "./context";
import { PlanError } from "./plan";
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
  /** why the model cannot be continued from this checkpoint (lib/live/context.ts), or null */
  notContinuable: string | null;
  /** why resuming is refused now (something to reconcile first), or null */
  refusal: string | null;
  /** ties the confirmation to this plan: what was shown is what is resumed */
  digest: string;
}

const RESUMABLE = new Set(["failed", "cancelled"]);
/** A recorded name in a sentence: the table shows it whole. */
const cut = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);

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
  const where = (r: NonNullable<RecordedCall["reconciled"]>) => (r.where === "journal" ? ` at #${r.seq}` : ` on branch ${r.where}`);
  const ended = c.status === null ? "without a recorded result" : c.status;
  // an effect the recorder did not name is a write (lib/semantics effectOf): a resume must not repeat it blindly
  const write = effectOf(c.effect) === "write";
  if (!c.sent) return { action: "redo", why: "never sent (a live branch left it pending): the model may ask for it again" };
  if (!write) {
    if (c.status === "ok") return { action: "reuse", why: "read result recorded: answered from the recording" };
    return {
      action: "redo",
      why: c.status === null ? "read without a recorded result: read again" : `read ended ${c.status}: read again`,
    };
  }
  if (isConfirmed(c))
    return {
      action: "skip",
      why: c.reconciled
        ? `write ${ended}, reconciled as succeeded${where(c.reconciled)}`
        : `write confirmed by its result${c.externalId ? ` (${c.externalId})` : ""}`,
    };
  if (c.reconciled)
    return {
      action: "redo",
      why: `write ${ended}, reconciled as ${c.reconciled.outcome || "failed"}${where(c.reconciled)}: it did not happen`,
    };
  if (isOpen(c))
    return {
      action: "reconcile",
      why:
        c.status === null ? "write without a recorded result: it may have happened" : `write ${c.status}: nobody knows whether it happened`,
    };
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
    for (const c of callLedger(events, opts.branchReconciles ?? [])) {
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
  let notContinuable: string | null = null;
  if (checkpoint !== null && impossible === null) {
    try {
      continuationStart(events, { seq: checkpoint.seq });
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      notContinuable = e.message;
    }
  }
  const counts: Record<ResumeAction, number> = { reuse: 0, skip: 0, reconcile: 0, redo: 0 };
  for (const r of rows) counts[r.action]++;
  const pending = rows.filter((r) => r.action === "reconcile");
  const refusal =
    impossible ??
    (notContinuable !== null
      ? `the agent cannot be continued from checkpoint "${checkpoint?.id ?? ""}": ${notContinuable}`
      : pending.length > 0
        ? `reconcile first: ${pending.map((r) => `#${r.resultSeq ?? r.seq} ${cut(r.tool)} (${r.status ?? NO_RESULT})`).join(", ")} ha${pending.length === 1 ? "s" : "ve"} an outcome nobody reconciled`
        : null);
  const digest = sha256Hex(
    canonicalJson({
      run: opts.run,
      checkpoint: checkpoint ? { id: checkpoint.id, seq: checkpoint.seq } : null,
      rows: rows.map((r) => [r.seq, r.action, r.externalId]),
    } as unknown as JsonValue),
  );
  return { run: opts.run, status, checkpoint, checkpoints, impossible, rows, counts, modelCallsAfter, notContinuable, refusal, digest };
}

/**
 * What the continuation reads as "the recording" on a resume: the run's events, and each
 * reconcile made on a branch run as a `reconcile` event after them, so a write reconciled
 * as succeeded there is answered from the recording (skipped), never sent again.
 */
export function resumeRecording(events: readonly JournalEvent[], branchReconciles: readonly BranchReconcile[]): JournalEvent[] {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  let seq = sorted.at(-1)?.seq ?? -1;
  const run = sorted[0]?.run ?? "";
  const ts = sorted.at(-1)?.ts ?? new Date(0).toISOString();
  for (const b of branchReconciles)
    sorted.push({
      run,
      seq: ++seq,
      ts,
      type: "reconcile",
      data: {
        call: b.call,
        outcome: b.outcome,
        evidence: { branch: b.run, ...(b.externalId ? { externalId: b.externalId } : {}) },
        by: `branch:${b.run}`,
      },
    } as unknown as JournalEvent);
  return sorted;
}

/** A resume branch run's id: the original's (shortened to fit) and a suffix. */
export function resumeRunId(original: string, nonce: string): string {
  const suffix = `.resume-${nonce}`;
  return `${original.slice(0, 128 - suffix.length)}${suffix}`;
}
