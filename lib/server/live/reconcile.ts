import "server-only";
/**
 * Reconcile an open call (docs/live-actions.md): the call ledger says which calls are
 * open; the operator marks the outcome with evidence, or the executor is asked by the
 * idempotency key. The answer is a branch run with a `reconcile` event.
 */
import { randomBytes } from "node:crypto";
import { actorOf, type Principal } from "../../access/roles";
import type { JsonObject } from "../../journal/types";
import { branchJournal, branchRunId, previewReconcile, type LiveMark } from "../../live/plan";
import type { ReconcilePreview } from "../../live/types";
import type { Db } from "../db";
import { audited, type LiveDone } from "./audited";
import { choice, executorFor, liveDecision, operatorRole, visibleRun } from "./authorize";
import { branchReconciles, runEvents } from "./branches";
import { storeBranch } from "./store-branch";
import { confirm, type Confirmation } from "./confirm";
import { post } from "./executor-http";
import { executorCredential } from "./executors";
import { LiveRefusal, planned } from "./refusal";
import { callToServe } from "../../live/executor-match";
import { previewToolOf, type LiveOutcome } from "./reexecute";
import { redactorFor } from "../redactors";

export async function reconcilePreview(
  db: Db,
  principal: Principal,
  input: { run: string; seq: number; executor: string },
): Promise<ReconcilePreview> {
  const project = await visibleRun(db, principal, input.run);
  const events = await runEvents(db, input.run);
  const tool = planned(() => previewToolOf(events, input.seq));
  const ex = await executorFor(db, project, input.executor, callToServe(events, tool.tool));
  const d = liveDecision(principal, project, ex.environment);
  if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
  const reconciles = await branchReconciles(db, input.run);
  return planned(() => previewReconcile({ run: input.run, seq: input.seq, events, branchReconciles: reconciles, executor: choice(ex) }));
}

export async function reconcile(
  db: Db,
  principal: Principal,
  input: {
    run: string;
    seq: number;
    executor: string;
    mode: "mark" | "ask";
    outcome?: "succeeded" | "failed";
    evidence?: string;
    externalId?: string;
  } & Confirmation,
): Promise<LiveOutcome> {
  const project = await visibleRun(db, principal, input.run, false);
  const events = await runEvents(db, input.run);
  const entry = {
    action: "live.reconcile",
    project,
    target: `${input.run}#${input.seq}`,
    reason: input.reason,
    detail: { run: input.run, seq: input.seq, executor: input.executor, mode: input.mode } as Record<string, unknown>,
  };
  return audited(db, principal, entry, async (): Promise<LiveDone<LiveOutcome>> => {
    operatorRole(principal, project);
    const tool = planned(() => previewToolOf(events, input.seq));
    const ex = await executorFor(db, project, input.executor, callToServe(events, tool.tool));
    entry.detail = { ...entry.detail, tool: tool.tool, environment: ex.environment };
    const d = liveDecision(principal, project, ex.environment);
    if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
    const reconciles = await branchReconciles(db, input.run);
    const p = planned(() =>
      previewReconcile({ run: input.run, seq: input.seq, events, branchReconciles: reconciles, executor: choice(ex) }),
    );
    await confirm(db, principal, input, p.tool, ex.environment === "production");
    if (p.refusal) throw new LiveRefusal("outcome", p.refusal, 409);
    if (input.mode === "mark" && !input.outcome) throw new LiveRefusal("outcome", "say whether the call succeeded or failed", 400);
    if (input.mode === "ask" && !p.key)
      throw new LiveRefusal(
        "idempotency key",
        `call ${p.call} was sent without an idempotency key: the executor cannot be asked; mark it with evidence`,
        409,
      );

    let outcome: "succeeded" | "failed";
    // typed or answered, the external id is stored (LiveBranch, log, answer) redacted
    const redactor = await redactorFor(db);
    let externalId: string | null = input.externalId?.trim() ? redactor.redactString(input.externalId.trim()) : null;
    const evidence: JsonObject = {};
    if (input.evidence?.trim()) evidence.text = input.evidence.trim();
    if (input.mode === "ask") {
      const credential = await executorCredential(db, ex);
      const asked = await post(db.config.executorHosts, `${ex.url}/lookup`, credential, p.key, { tool: p.tool, idempotencyKey: p.key });
      if (!asked.ok || !asked.json)
        throw new LiveRefusal("executor", `${asked.error ?? "the executor gave no answer"}; nothing was recorded`, 502);
      const found = asked.json.found === true;
      outcome = found ? "succeeded" : "failed";
      externalId = typeof asked.json.externalId === "string" ? redactor.redactString(asked.json.externalId) : null;
      evidence.executorAnswer = { found, ...(externalId ? { externalId } : {}) };
      evidence.idempotencyKey = p.key;
    } else {
      outcome = input.outcome!;
      if (p.key) evidence.idempotencyKey = p.key;
    }
    if (externalId) evidence.externalId = externalId;
    const at = new Date().toISOString();
    const branch = branchRunId(input.run, "reconcile", randomBytes(4).toString("hex"));
    const mark: LiveMark = {
      action: "reconcile",
      executor: ex.id,
      environment: ex.environment,
      actor: actorOf(principal),
      reason: input.reason,
      at,
    };
    const callEv = events.find((e) => e.type === "tool.call" && e.data.call === p.call && e.seq <= p.resultSeq);
    const journal = branchJournal({
      branchRun: branch,
      original: input.run,
      forkSeq: p.resultSeq,
      events,
      upTo: p.resultSeq,
      added: [
        {
          type: "reconcile",
          data: {
            call: p.call,
            outcome,
            evidence,
            by: input.mode === "ask" ? `executor:${ex.id}` : actorOf(principal),
            live: mark as unknown as JsonObject,
          },
          ...(callEv ? { parent: callEv.seq } : {}),
          ...(callEv?.step ? { step: callEv.step } : {}),
        },
      ],
      ts: at,
    });
    const { findings } = await storeBranch(db, project, journal);
    return {
      result: "ok",
      target: `${input.run}#${p.resultSeq}`,
      detail: { branch, call: p.call, outcome, externalId, evidence },
      branch: {
        runId: branch,
        originalRun: input.run,
        forkSeq: p.resultSeq,
        kind: "reconcile",
        call: p.call,
        outcome,
        externalId,
        environment: ex.environment,
      },
      answer: (auditSeq) => ({ branch, forkOf: { run: input.run, seq: p.resultSeq }, status: outcome, externalId, findings, auditSeq }),
    };
  });
}
