import "server-only";
/**
 * Resume a failed or cancelled run from a durable checkpoint (docs/live-actions.md,
 * "Resume"). The plan (lib/live/resume-plan.ts) is read by anyone who may read the run;
 * resuming is a live action decided step by step like a re-execution: the run visible,
 * the operator role, a model executor of the project, the operator's environment, the
 * plan possible, a reason, the password again (and "resume" typed for production or in
 * open mode), the plan unchanged since it was shown, nothing left to reconcile. Then the
 * continuation engine (lib/live/loop.ts, through executeContinuation) carries on from
 * the checkpoint with the policy reuse/skip: reads answered from the recording, writes
 * confirmed by result or reconcile (branch reconciles included) answered from it, any
 * other write stopping the continuation for its own confirmed live action. The result is
 * a branch run with `resumeOf {run, checkpoint}`, a LiveBranch row (kind `resume`) and a
 * privileged-action log entry.
 */
import { randomBytes } from "node:crypto";
import { actorOf, type Principal } from "../../access/roles";
import { continuationStart } from "../../live/context";
import { clampTurns, type ContinueMark, type ContinueOutcome, type ContinuePolicy } from "../../live/continue-contract";
import { resumePlan, resumeRecording, resumeRunId, type ResumePlan } from "../../live/resume-plan";
import type { ExecutorChoice, ExecutorInfo } from "../../live/types";
import type { Db } from "../db";
import { bundleOf } from "../bundle-runs";
import { payloadsDroppedOf } from "../retention";
import type { AuthorizedRun } from "../run-access";
import { audited, type LiveDone } from "./audited";
import { liveDecision, mayActOn } from "./authorize";
import { branchReconciles, runEvents } from "./branches";
import { confirm, type Confirmation } from "./confirm";
import { LiveRefusal, planned } from "./refusal";
import { executeContinuation } from "./continue";
import { getExecutor, listExecutors } from "./executors";

/** The operation's name typed to confirm a resume on production (and always in open mode). */
export const RESUME_OPERATION = "resume";

export interface ResumeView {
  plan: ResumePlan;
  /** model executors this caller may resume with (none: the plan is shown, no resume offered) */
  executors: ExecutorChoice[];
  /** why this run cannot be acted on at all (opened from a bundle, payloads dropped), or null */
  readOnly: string | null;
}

const choice = (e: ExecutorInfo): ExecutorChoice => ({ id: e.id, environment: e.environment, name: e.name, url: e.url });

async function modelExecutors(db: Db, project: string): Promise<ExecutorInfo[]> {
  const rows = await db.sql.all<{ id: string }>(
    `SELECT "id" FROM "Executor" WHERE "projectId" = ? AND "kind" = 'model' ORDER BY "environment", "name"`,
    [project],
  );
  const out: ExecutorInfo[] = [];
  for (const r of rows) {
    const ex = await getExecutor(db, project, r.id);
    if (ex) out.push(ex);
  }
  return out;
}

async function planOf(db: Db, run: string, checkpoint: string | null | undefined): Promise<ResumePlan> {
  const [events, reconciles] = await Promise.all([runEvents(db, run), branchReconciles(db, run)]);
  return resumePlan({ run, events, branchReconciles: reconciles, checkpoint });
}

/** The resume plan, for anyone who may read the run (`at`: the edge's run check, runs.read). */
export async function resumeView(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { checkpoint?: string | null },
): Promise<ResumeView> {
  const owner = at.project;
  const plan = await planOf(db, at.run, input.checkpoint);
  const bundle = await bundleOf(db, at.run);
  const dropped = bundle ? null : await payloadsDroppedOf(db, at.run);
  const readOnly = bundle
    ? "opened from an audit bundle: read-only evidence"
    : dropped
      ? `its payloads were dropped by retention on ${dropped}`
      : null;
  // the environments decide what is offered; the resume decides again, step by step
  const executors =
    readOnly === null ? (await modelExecutors(db, owner)).filter((e) => liveDecision(principal, owner, e.environment).ok).map(choice) : [];
  return { plan, executors, readOnly };
}

function continuationDetail(o: ContinueOutcome) {
  return {
    stop: o.stop,
    stopDetail: o.stopDetail,
    modelCalls: o.modelCalls,
    readsFromRecording: o.readsFromRecording,
    readsFromExecutor: o.readsFromExecutor,
    writesReused: o.writesReused,
    pendingWrite: o.pendingWrite,
    finalText: o.finalText,
  };
}

export interface ResumeOutcome extends ReturnType<typeof continuationDetail> {
  branch: string;
  resumeOf: { run: string; checkpoint: string };
  checkpointSeq: number;
  counts: ResumePlan["counts"];
  findings: number;
  auditSeq: number;
}

export async function resume(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  asked: { checkpoint: string; executor: string; digest: string } & Confirmation,
): Promise<ResumeOutcome> {
  const input = { ...asked, run: at.run };
  const project = at.project;
  const entry = {
    action: "live.resume",
    target: `${input.run}@${input.checkpoint}`,
    reason: input.reason,
    detail: { run: input.run, checkpoint: input.checkpoint, executor: input.executor } as Record<string, unknown>,
  };
  return audited(db, principal, at, entry, async (): Promise<LiveDone<ResumeOutcome>> => {
    const ex = await getExecutor(db, project, input.executor);
    if (!ex || ex.kind !== "model") throw new LiveRefusal("executor", `no model executor "${input.executor}" in project "${project}"`, 404);
    entry.detail = { ...entry.detail, model: ex.name, environment: ex.environment };
    mayActOn(principal, project, ex.environment);
    const events = await runEvents(db, input.run);
    const reconciles = await branchReconciles(db, input.run);
    const plan = resumePlan({ run: input.run, events, branchReconciles: reconciles, checkpoint: input.checkpoint });
    if (plan.impossible !== null || plan.checkpoint === null) throw new LiveRefusal("resume", plan.impossible ?? "no checkpoint", 409);
    if (plan.notContinuable !== null)
      throw new LiveRefusal("resume", `the agent cannot be continued from checkpoint "${plan.checkpoint.id}": ${plan.notContinuable}`, 409);
    await confirm(db, principal, input, RESUME_OPERATION, ex.environment === "production");
    if (input.digest !== plan.digest) throw new LiveRefusal("preview", "the resume plan changed since it was shown; look at it again", 409);
    if (plan.refusal) throw new LiveRefusal("unreconciled", plan.refusal, 409);

    const start = planned(() => continuationStart(events, { seq: plan.checkpoint!.seq }));
    const when = new Date().toISOString();
    const branch = resumeRunId(input.run, randomBytes(4).toString("hex"));
    const mark: ContinueMark = {
      action: "resume",
      executor: ex.id,
      environment: ex.environment,
      actor: actorOf(principal),
      reason: input.reason,
      at: when,
      checkpoint: plan.checkpoint.id,
    };
    // the run's own bound on steps, or 8 model turns (the engine caps it at 20)
    const maxSteps = typeof start.policy?.maxSteps === "number" ? start.policy.maxSteps : 8;
    const policy: ContinuePolicy = { maxTurns: clampTurns(maxSteps), writes: "stop", reuseConfirmedWrites: true, reuseReads: true };
    const reads = (await listExecutors(db, [project])).filter((e) => e.kind === "tool" && e.environment === ex.environment);
    const { outcome, findings } = await executeContinuation(db, {
      project,
      start,
      recording: resumeRecording(events, reconciles),
      policy,
      model: ex,
      readExecutors: reads,
      mark,
      branchRun: branch,
      origin: { resumeOf: { run: input.run, checkpoint: plan.checkpoint.id } },
    });
    const checkpoint = plan.checkpoint;
    return {
      result: outcome.stop === "model-error" ? "failed" : "ok",
      target: `${input.run}@${checkpoint.id}`,
      detail: {
        branch,
        checkpointSeq: plan.checkpoint.seq,
        counts: plan.counts,
        ...continuationDetail(outcome),
        reused: plan.rows.filter((r) => r.action === "reuse").map((r) => r.seq),
        skipped: plan.rows.filter((r) => r.action === "skip").map((r) => ({ seq: r.seq, externalId: r.externalId })),
      },
      branch: {
        runId: branch,
        originalRun: input.run,
        forkSeq: plan.checkpoint.seq,
        kind: "resume",
        call: outcome.pendingWrite?.call ?? plan.checkpoint.id,
        outcome: outcome.stop,
        externalId: null,
        environment: ex.environment,
      },
      answer: (auditSeq) => ({
        branch,
        resumeOf: { run: input.run, checkpoint: checkpoint.id },
        checkpointSeq: checkpoint.seq,
        counts: plan.counts,
        ...continuationDetail(outcome),
        findings,
        auditSeq,
      }),
    };
  });
}
