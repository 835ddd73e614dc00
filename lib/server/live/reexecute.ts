import "server-only";
/**
 * Re-execute one recorded tool call (docs/live-actions.md): the preview (the operation's
 * recorded calls from the call ledger, the key, the exact request), then, confirmed, one
 * request to the executor and a branch run with the call and its result.
 */
import { randomBytes } from "node:crypto";
import { actorOf, type Principal } from "../../access/roles";
import type { JournalEvent, JsonObject } from "../../journal/types";
import { branchJournal, branchRunId, previewReexecute, type LiveMark } from "../../live/plan";
import type { ExecutorChoice, ExecutorInfo, ReexecutePreview } from "../../live/types";
import type { Db } from "../db";
import type { AuthorizedRun } from "../run-access";
import { auditedToolCall, livePreview, previewToolCall, type LiveDone } from "./audited";
import { choice, liveDecision } from "./authorize";
import { branchReconciles, runEvents } from "./branches";
import { storeBranch } from "./store-branch";
import { confirm, type Confirmation } from "./confirm";
import { post } from "./executor-http";
import { executorCredential, toolExecutorsFor } from "./executors";
import { LiveRefusal, planned } from "./refusal";
import { callToServe, servingExecutors } from "../../live/executor-match";
import { redactorFor } from "../redactors";

export interface LiveOutcome {
  branch: string;
  forkOf: { run: string; seq: number };
  status: string;
  externalId: string | null;
  findings: number;
  auditSeq: number;
}

/**
 * The executors that may carry out the call at `seq`, for the inspector to offer, or why
 * none (lib/live/executor-match.ts: the verdict the live actions refuse by, too).
 */
export async function executorsForCall(db: Db, principal: Principal, at: AuthorizedRun, seq: number) {
  const project = at.project;
  return livePreview(db, principal, at, async () => {
    const events = await runEvents(db, at.run);
    const ev = events.find((e) => e.seq === seq);
    const call = ev?.data.call;
    const callEv = ev?.type === "tool.call" ? ev : events.find((e) => e.type === "tool.call" && e.data.call === call && e.seq <= seq);
    if (!callEv) return { project, tool: null, executors: [] as ExecutorChoice[], reason: null };
    const tool = String(callEv.data.tool ?? "");
    const serving = servingExecutors(await toolExecutorsFor(db, project, tool), callToServe(events, tool));
    const mine = serving.executors.filter((e) => liveDecision(principal, project, e.environment).ok);
    const reason =
      serving.reason ??
      (mine.length === 0
        ? `You may not act on the environment of the executors that carry out ${tool} (${[...new Set(serving.executors.map((e) => e.environment))].join(", ")}).`
        : null);
    return { project, tool, executors: mine.map(choice), reason };
  });
}

async function executionsOf(db: Db, run: string, call: string): Promise<number> {
  const rows = await db.sql.all<{ n: number }>(
    `SELECT COUNT(*) AS "n" FROM "LiveBranch" WHERE "originalRun" = ? AND "call" = ? AND "kind" = 're-execute'`,
    [run, call],
  );
  return Number(rows[0]?.n ?? 0);
}

async function fullPreview(
  db: Db,
  run: string,
  seq: number,
  events: JournalEvent[],
  ex: ExecutorInfo,
  call: string,
): Promise<ReexecutePreview> {
  const [reconciles, n] = await Promise.all([branchReconciles(db, run), executionsOf(db, run, call)]);
  return planned(() => previewReexecute({ run, seq, events, branchReconciles: reconciles, executor: choice(ex), earlierExecutions: n }));
}

export async function reexecutePreview(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { seq: number; executor: string },
): Promise<ReexecutePreview> {
  return previewToolCall(db, principal, at, input, ({ events, ex, tool }) => fullPreview(db, at.run, input.seq, events, ex, tool.call));
}

export async function reexecute(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  input: { seq: number; executor: string; digest: string } & Confirmation,
): Promise<LiveOutcome> {
  const entry = {
    action: "live.reexecute",
    target: `${at.run}#${input.seq}`,
    reason: input.reason,
    detail: { run: at.run, seq: input.seq, executor: input.executor } as Record<string, unknown>,
  };
  return auditedToolCall(db, principal, at, input, entry, async ({ events, ex, tool }): Promise<LiveDone<LiveOutcome>> => {
    const project = at.project;
    const preview = await fullPreview(db, at.run, input.seq, events, ex, tool.call);
    await confirm(db, principal, input, preview.tool, preview.needsOperationName);
    if (input.digest !== preview.digest)
      throw new LiveRefusal("preview", "what would be sent changed since the preview; look at the preview again", 409);
    if (preview.refusal) throw new LiveRefusal("unreconciled", preview.refusal, 409);

    const credential = await executorCredential(db, ex);
    const sent = await post(db.config.executorHosts, preview.request.url, credential, preview.idempotencyKey, preview.request.body);
    const r = sent.json ?? {};
    const status =
      sent.ok && typeof r.status === "string" && ["ok", "error", "timeout", "unknown"].includes(r.status) ? r.status : "unknown";
    // as stored everywhere (branch run, LiveBranch, log, answer): redacted
    const externalId = typeof r.externalId === "string" ? (await redactorFor(db)).redactString(r.externalId) : null;
    const when = new Date().toISOString();
    const branch = branchRunId(at.run, "re-execute", randomBytes(4).toString("hex"));
    const mark: LiveMark = {
      action: "re-execute",
      executor: ex.id,
      environment: ex.environment,
      actor: actorOf(principal),
      reason: input.reason,
      at: when,
    };
    const callEv = events.find((e) => e.seq === preview.seq)!;
    const callData: JsonObject = {
      ...callEv.data,
      idempotencyKey: preview.idempotencyKey,
      target: ex.environment,
      live: mark as unknown as JsonObject,
    };
    const resultData: JsonObject = {
      call: preview.call,
      status,
      ...(r.result !== undefined ? { result: r.result } : {}),
      ...(externalId ? { externalId } : {}),
      ...(r.error !== undefined ? { error: r.error } : sent.error ? { error: { message: sent.error } } : {}),
      live: mark as unknown as JsonObject,
    };
    const journal = branchJournal({
      branchRun: branch,
      original: at.run,
      forkSeq: preview.seq,
      events,
      upTo: preview.seq - 1,
      added: [
        { type: "tool.call", data: callData, step: callEv.step, ...(callEv.parent !== undefined ? { parent: callEv.parent } : {}) },
        { type: "tool.result", data: resultData, step: callEv.step, parent: preview.seq },
      ],
      ts: when,
    });
    const { findings } = await storeBranch(db, project, journal);
    return {
      result: status === "ok" ? "ok" : "failed",
      target: `${at.run}#${preview.seq}`,
      detail: {
        branch,
        request: { url: preview.request.url, headers: preview.request.headers, body: preview.request.body },
        keySource: preview.keySource,
        repeats: preview.confirmed.map((c) => ({ seq: c.seq, externalId: c.reconciled?.externalId ?? c.externalId })),
        result: { status, externalId },
      },
      branch: {
        runId: branch,
        originalRun: at.run,
        forkSeq: preview.seq,
        kind: "re-execute",
        call: preview.call,
        outcome: status,
        externalId,
        environment: ex.environment,
      },
      answer: (auditSeq) => ({ branch, forkOf: { run: at.run, seq: preview.seq }, status, externalId, findings, auditSeq }),
    };
  });
}
