import "server-only";
/**
 * Continue a fork live (docs/live-actions.md): the server half of lib/live/continue.ts.
 *
 * - `continuePreview` / `continueFork`: the live action, decided step by step like a
 *   re-execute (run visible, operator role, a model executor of the project, the operator's
 *   environment, a reason, the password again, the operation name `continue` typed in open
 *   mode or for production, the preview unchanged); nothing reaches an executor before the
 *   last step. The branch run gets a LiveBranch row (kind `continue`) and a log entry.
 * - `executeContinuation` (for the resume plan too): given a ContinueStart, a policy and
 *   the executors the caller was already allowed to use, runs the engine with HTTP ports
 *   (the model executor's `POST URL/chat/completions`, the read executors' `POST URL/call`,
 *   each credential opened for its request only), stores the branch journal (ingest) and
 *   returns the outcome. It decides nothing about who may: its caller has.
 */
import { randomBytes } from "node:crypto";
import { actorOf, type Principal } from "../../access/roles";
import type { JournalEvent, JsonObject, JsonValue } from "../../journal/types";
import { continuationJournal } from "../../live/branch-journal";
import { chatCompletionsBody, parseChatCompletion, type AskedCall, type ChatMessage } from "../../live/chat-wire";
import { continuationStart } from "../../live/context";
import {
  clampTurns,
  continueDigest,
  DEFAULT_POLICY,
  type ContinueMark,
  type ContinueOutcome,
  type ContinuePolicy,
  type ContinueStart,
  type ToolAnswer,
} from "../../live/continue-contract";
import { runContinuation } from "../../live/loop";
import { sideBySide, type SideBySideView } from "../../live/side-by-side";
import { branchRunId, newIdempotencyKey } from "../../live/plan";
import type { BranchReconcile, ExecutorChoice, ExecutorInfo } from "../../live/types";
import { parseForkOverride, ReplayError } from "../../replay";
import type { ForkOverride } from "../../replay";
import type { Db } from "../db";
import { runProjectOf } from "../queries";
import type { AuthorizedRun } from "../run-access";
import { audited, livePreview, type LiveDone } from "./audited";
import { choice, liveDecision, liveEnvironments, mayActOn } from "./authorize";
import { runEvents } from "./branches";
import { storeBranch } from "./store-branch";
import { confirm, type Confirmation } from "./confirm";
import { post } from "./executor-http";
import { LiveRefusal, planned } from "./refusal";
import { executorCredential, getExecutor, listExecutors } from "./executors";

/** What the operator types to confirm a continuation (open mode, production). */
export const CONTINUE_OPERATION = "continue";

export interface ContinueInput {
  run: string;
  seq: number;
  /** the what-if fork's override (as the replay page's URL carries it); none continues the run as recorded */
  override?: unknown;
  /** the model executor */
  executor: string;
  maxTurns?: number;
  /** sandbox-only mode: writes get an error result instead of stopping the continuation */
  sandboxOnly?: boolean;
}

export interface ContinuePreview {
  run: string;
  seq: number;
  upTo: number;
  edited: number[];
  override: ForkOverride | null;
  executor: ExecutorChoice;
  /** the tool executors of that environment that answer read calls the recording cannot */
  readExecutors: ExecutorChoice[];
  /** the messages the model gets first (after the pending calls' answers, if any) */
  messages: ChatMessage[];
  /** tool calls of the fork's turn still to answer before the model is called */
  pending: AskedCall[];
  model: string;
  /** the exact first request when nothing is pending (the credential is added on sending) */
  request: { method: "POST"; url: string; body: JsonValue } | null;
  policy: ContinuePolicy;
  operation: string;
  needsOperationName: boolean;
  digest: string;
}

function overrideOf(v: unknown): ForkOverride | null {
  if (v === undefined || v === null) return null;
  try {
    return parseForkOverride(v);
  } catch (e) {
    if (e instanceof ReplayError) throw new LiveRefusal("fork", e.message, 400);
    throw e;
  }
}

async function modelExecutor(db: Db, project: string, id: string): Promise<ExecutorInfo> {
  const ex = await getExecutor(db, project, id);
  if (!ex || ex.kind !== "model") throw new LiveRefusal("executor", `no model executor "${id}" in project "${project}"`, 404);
  return ex;
}

/** The project's tool executors on `environment`: they answer read calls the recording cannot. */
async function readExecutorsOn(db: Db, project: string, environment: string): Promise<ExecutorInfo[]> {
  return (await listExecutors(db, [project])).filter((e) => e.kind === "tool" && e.environment === environment);
}

const modelName = (ex: ExecutorInfo, start: ContinueStart) => (ex.name === "*" ? start.setup.model : ex.name);

async function prepare(db: Db, principal: Principal, project: string, events: JournalEvent[], input: ContinueInput) {
  const override = overrideOf(input.override);
  const start = planned(() => continuationStart(events, { seq: input.seq, override }));
  const ex = await modelExecutor(db, project, input.executor);
  mayActOn(principal, project, ex.environment);
  const reads = await readExecutorsOn(db, project, ex.environment);
  const policy: ContinuePolicy = {
    ...DEFAULT_POLICY,
    maxTurns: clampTurns(input.maxTurns ?? DEFAULT_POLICY.maxTurns),
    writes: input.sandboxOnly ? "block" : "stop",
  };
  const model = modelName(ex, start);
  const first = { model, messages: start.messages, params: start.setup.params, tools: start.setup.tools };
  const preview: ContinuePreview = {
    run: input.run,
    seq: input.seq,
    upTo: start.upTo,
    edited: start.edited,
    override,
    executor: choice(ex),
    readExecutors: reads.map(choice),
    messages: start.messages,
    pending: start.pending,
    model,
    request: start.pending.length === 0 ? { method: "POST", url: `${ex.url}/chat/completions`, body: chatCompletionsBody(first) } : null,
    policy,
    operation: CONTINUE_OPERATION,
    needsOperationName: ex.environment === "production",
    digest: continueDigest({
      run: input.run,
      seq: input.seq,
      override,
      first,
      executor: ex.id,
      readExecutor: reads.map((r) => r.id).join(",") || null,
      policy,
    }),
  };
  return { start, ex, reads, policy, preview };
}

export async function continuePreview(db: Db, principal: Principal, at: AuthorizedRun, input: ContinueInput): Promise<ContinuePreview> {
  return livePreview(db, principal, at, async () => {
    const events = await runEvents(db, at.run);
    return (await prepare(db, principal, at.project, events, { ...input, run: at.run })).preview;
  });
}

function toolStatus(v: unknown): ToolAnswer["status"] {
  return v === "ok" || v === "error" || v === "timeout" || v === "unknown" ? v : "unknown";
}

/**
 * Runs the engine against the executors over HTTP and stores the branch run. The caller
 * has decided that `principal` may use these executors (and confirmed it freshly).
 */
export async function executeContinuation(
  db: Db,
  opts: {
    project: string;
    start: ContinueStart;
    recording: readonly JournalEvent[];
    policy: ContinuePolicy;
    model: ExecutorInfo;
    readExecutors: readonly ExecutorInfo[];
    mark: ContinueMark;
    branchRun: string;
    /** run.start fields naming the branch's origin (default forkOf {original, forkSeq}; a resume passes resumeOf) */
    origin?: JsonObject;
    /** reconciles of the recording's calls made on branch runs (confirm writes for `reuseConfirmedWrites`) */
    branchReconciles?: readonly BranchReconcile[];
  },
): Promise<{ outcome: ContinueOutcome; findings: number; journal: JournalEvent[] }> {
  const readFor = (tool: string) => opts.readExecutors.find((e) => e.name === tool) ?? opts.readExecutors.find((e) => e.name === "*");
  const outcome = await runContinuation({
    start: opts.start,
    recording: opts.recording,
    policy: opts.policy,
    mark: opts.mark,
    model: modelName(opts.model, opts.start),
    ...(opts.branchReconciles ? { branchReconciles: opts.branchReconciles } : {}),
    ports: {
      model: async (req) => {
        const credential = await executorCredential(db, opts.model);
        const t0 = Date.now();
        const sent = await post(
          db.config.executorHosts,
          `${opts.model.url}/chat/completions`,
          credential,
          newIdempotencyKey(opts.branchRun, req.messages.length, 0),
          chatCompletionsBody(req),
        );
        if (!sent.ok || !sent.json) throw new Error(sent.error ?? "the model executor gave no JSON answer");
        return { ...parseChatCompletion(sent.json), latencyMs: Date.now() - t0 };
      },
      readTool:
        opts.readExecutors.length === 0
          ? null
          : async (c) => {
              const ex = readFor(c.tool);
              if (!ex) throw new Error(`no read executor carries out ${c.tool}`);
              const credential = await executorCredential(db, ex);
              const key = newIdempotencyKey(opts.branchRun, c.seq, 1);
              const sent = await post(db.config.executorHosts, `${ex.url}/call`, credential, key, {
                tool: c.tool,
                args: c.args,
                idempotencyKey: key,
              });
              const r = sent.json ?? {};
              return {
                status: sent.ok ? toolStatus(r.status) : "unknown",
                ...(r.result !== undefined ? { result: r.result } : {}),
                ...(typeof r.externalId === "string" ? { externalId: r.externalId } : {}),
                ...(r.error !== undefined ? { error: r.error } : sent.error ? { error: { message: sent.error } } : {}),
              };
            },
    },
  });
  const journal = continuationJournal({
    branchRun: opts.branchRun,
    start: opts.start,
    outcome,
    ts: opts.mark.at,
    ...(opts.origin ? { origin: opts.origin } : {}),
  });
  const { findings } = await storeBranch(db, opts.project, journal);
  return { outcome, findings, journal };
}

export interface ContinueResult {
  branch: string;
  forkOf: { run: string; seq: number };
  stop: ContinueOutcome["stop"];
  stopDetail: string;
  modelCalls: number;
  readsFromRecording: number;
  readsFromExecutor: number;
  writesBlocked: number;
  pendingWrite: ContinueOutcome["pendingWrite"];
  finalText: string | null;
  findings: number;
  auditSeq: number;
}

export async function continueFork(
  db: Db,
  principal: Principal,
  at: AuthorizedRun,
  asked: ContinueInput & Confirmation & { digest: string },
): Promise<ContinueResult> {
  const input = { ...asked, run: at.run };
  const project = at.project;
  const entry = {
    action: "live.continue",
    target: `${input.run}#${input.seq}`,
    reason: input.reason,
    detail: { run: input.run, seq: input.seq, executor: input.executor, override: (input.override ?? null) as JsonValue } as Record<
      string,
      unknown
    >,
  };
  return audited(db, principal, at, entry, async (): Promise<LiveDone<ContinueResult>> => {
    const events = await runEvents(db, input.run);
    const { start, ex, reads, policy, preview } = await prepare(db, principal, project, events, input);
    entry.detail = { ...entry.detail, environment: ex.environment, maxTurns: policy.maxTurns, writes: policy.writes };
    await confirm(db, principal, input, CONTINUE_OPERATION, preview.needsOperationName);
    if (input.digest !== preview.digest)
      throw new LiveRefusal("preview", "what would be sent changed since the preview; look at the preview again", 409);

    const when = new Date().toISOString();
    const branch = branchRunId(input.run, "continue", randomBytes(4).toString("hex"));
    const mark: ContinueMark = {
      action: "continue",
      executor: ex.id,
      environment: ex.environment,
      actor: actorOf(principal),
      reason: input.reason,
      at: when,
    };
    const { outcome, findings } = await executeContinuation(db, {
      project,
      start,
      recording: events,
      policy,
      model: ex,
      readExecutors: reads,
      mark,
      branchRun: branch,
    });
    return {
      result: outcome.stop === "model-error" ? "failed" : "ok",
      target: `${input.run}#${input.seq}`,
      detail: {
        branch,
        edited: start.edited,
        stop: outcome.stop,
        stopDetail: outcome.stopDetail,
        modelCalls: outcome.modelCalls,
        readsFromRecording: outcome.readsFromRecording,
        readsFromExecutor: outcome.readsFromExecutor,
        writesBlocked: outcome.writesBlocked,
        pendingWrite: outcome.pendingWrite,
        request: preview.request ? { url: preview.request.url } : null,
      },
      branch: {
        runId: branch,
        originalRun: input.run,
        forkSeq: input.seq,
        kind: "continue",
        call: outcome.pendingWrite?.call ?? "",
        outcome: outcome.stop,
        externalId: null,
        environment: ex.environment,
      },
      answer: (auditSeq) => ({
        branch,
        forkOf: { run: input.run, seq: input.seq },
        stop: outcome.stop,
        stopDetail: outcome.stopDetail,
        modelCalls: outcome.modelCalls,
        readsFromRecording: outcome.readsFromRecording,
        readsFromExecutor: outcome.readsFromExecutor,
        writesBlocked: outcome.writesBlocked,
        pendingWrite: outcome.pendingWrite,
        finalText: outcome.finalText,
        findings,
        auditSeq,
      }),
    };
  });
}

/** The model executors this caller may continue with in the run's project (none: the fork panel offers nothing). */
export async function continueExecutors(db: Db, principal: Principal, at: AuthorizedRun): Promise<ExecutorChoice[]> {
  const project = at.project;
  return livePreview(db, principal, at, async () =>
    (await listExecutors(db, [project]))
      .filter((e) => e.kind === "model" && liveDecision(principal, project, e.environment).ok)
      .map(choice),
  );
}

const SIDE_ROWS = 300;

async function eventsFrom(db: Db, run: string, from: number): Promise<JournalEvent[]> {
  const rows = await db.sql.all<{ body: string }>(
    `SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" >= ? ORDER BY "seq" LIMIT ${SIDE_ROWS}`,
    [run, from],
  );
  return rows.map((r) => JSON.parse(r.body) as JournalEvent);
}

export type SideBySide = SideBySideView;

/**
 * A branch run a live action made beside its original, from a little before the fork (the
 * replay page of the branch shows it). Null for a run that is no such branch, or whose
 * original is gone or in another project than `project`.
 */
export async function branchSideBySide(db: Db, branch: string, project: string): Promise<SideBySide | null> {
  const own = await db.sql.all<{ originalRun: string; forkSeq: number; kind: string }>(
    `SELECT "originalRun", "forkSeq", "kind" FROM "LiveBranch" WHERE "runId" = ?`,
    [branch],
  );
  const b = own[0];
  if (!b || (await runProjectOf(db, b.originalRun)) !== project) return null;
  const forkSeq = Number(b.forkSeq);
  const from = Math.max(0, forkSeq - 3);
  const [o, br] = await Promise.all([eventsFrom(db, b.originalRun, from), eventsFrom(db, branch, from)]);
  const view = sideBySide(o, br);
  return {
    original: b.originalRun,
    branch,
    kind: b.kind,
    forkSeq,
    from,
    rows: view.rows.slice(0, SIDE_ROWS),
    firstDivergence: view.firstDivergence,
    truncated: o.length === SIDE_ROWS || br.length === SIDE_ROWS,
  };
}

/** Whether the replay page offers "Continue live": the viewer acts on an environment a model executor of the project acts on. */
export async function offersContinue(db: Db, principal: Principal, project: string): Promise<boolean> {
  const envs = liveEnvironments(principal, project);
  if (envs.length === 0) return false;
  return (await listExecutors(db, [project])).some((e) => e.kind === "model" && envs.includes(e.environment));
}
