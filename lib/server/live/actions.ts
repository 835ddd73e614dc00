import "server-only";
/**
 * Live actions (docs/live-actions.md): reconcile an unknown outcome, re-execute one
 * recorded tool call. Each is decided here, step by step, before anything reaches an
 * executor: the run visible, the executor the project's, the operator role for the
 * executor's environment, a reason, a fresh confirmation (the password again; the
 * operation's name for production or a repeat of a confirmed write), the preview
 * unchanged, no unreconciled unknown outcome. The result is a new branch run (the original
 * journal is never edited), a LiveBranch row and a privileged-action log entry.
 */
import { randomBytes } from "node:crypto";
import { actorOf, decide, roleHolds, type Principal } from "../../access/roles";
import type { JournalEvent, JsonObject, JsonValue } from "../../journal/types";
import { branchJournal, branchRunId, PlanError, previewReconcile, previewReexecute, type LiveMark } from "../../live/plan";
import type { BranchReconcile, ExecutorChoice, ExecutorInfo, ReconcilePreview, ReexecutePreview } from "../../live/types";
import { AccessError, findUserByName } from "../access/accounts";
import { appendAudit } from "../access/audit-log";
import { loginAllowed, recordFailure, recordSuccess } from "../access/throttle";
import { burnVerify, verifyPassword } from "../access/password";
import type { Db } from "../db";
import { bundleOf } from "../bundle-runs";
import { runProjectOf } from "../queries";
import { payloadsDroppedOf } from "../retention";
import { ingestBytes } from "../service";
import { ExecutorHostRefused, type ExecutorHosts } from "./executor-hosts";
import { postToExecutor } from "./executor-request";
import { executorCredential, getExecutor, toolExecutorsFor } from "./executors";

/** A live action refused at one step; the message starts with the step's name. */
export class LiveRefusal extends AccessError {
  constructor(
    readonly step: string,
    message: string,
    status: ConstructorParameters<typeof AccessError>[1],
  ) {
    super(`[${step}] ${message}`, status);
  }
}

export const EXECUTOR_TIMEOUT_MS = 15_000;
const CONFIRM_ADDRESS = "live-confirmation";

/** Every stored (redacted) event of a run, in seq order. */
export async function runEvents(db: Db, run: string): Promise<JournalEvent[]> {
  const rows = await db.sql.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`, [run]);
  return rows.map((r) => JSON.parse(r.body) as JournalEvent);
}

export interface BranchRow {
  runId: string;
  originalRun: string;
  forkSeq: number;
  kind: string;
  call: string;
  outcome: string;
  externalId: string | null;
  environment: string;
  actor: string;
  auditSeq: number;
  createdMs: number;
}

/** Branch runs live actions made of `run` (those still stored), oldest first. */
export async function branchesOf(db: Db, run: string): Promise<BranchRow[]> {
  const rows = await db.sql.all<BranchRow>(
    `SELECT b.* FROM "LiveBranch" b JOIN "Run" r ON r."id" = b."runId" WHERE b."originalRun" = ? ORDER BY b."createdMs", b."runId"`,
    [run],
  );
  return rows.map((r) => ({ ...r, forkSeq: Number(r.forkSeq), auditSeq: Number(r.auditSeq), createdMs: Number(r.createdMs) }));
}

/** Which of these runs are branches, and of what (the runs list shows them under their original). */
export async function branchOriginsOf(db: Db, runs: readonly string[]): Promise<Record<string, { original: string; kind: string }>> {
  if (runs.length === 0) return {};
  const rows = await db.sql.all<{ runId: string; originalRun: string; kind: string }>(
    `SELECT "runId", "originalRun", "kind" FROM "LiveBranch" WHERE "runId" IN (${runs.map(() => "?").join(", ")})`,
    [...runs],
  );
  return Object.fromEntries(rows.map((r) => [r.runId, { original: r.originalRun, kind: r.kind }]));
}

export async function branchReconciles(db: Db, run: string): Promise<BranchReconcile[]> {
  return (await branchesOf(db, run))
    .filter((b) => b.kind === "reconcile")
    .map((b) => ({ run: b.runId, call: b.call, outcome: b.outcome as "succeeded" | "failed", externalId: b.externalId }));
}

export const choice = (e: ExecutorInfo): ExecutorChoice => ({ id: e.id, environment: e.environment, name: e.name, url: e.url });

/**
 * The run's project, or 404 exactly like a missing run for one the principal cannot see;
 * then 403 naming the role for a member who is not an operator there (before anything
 * else is looked up, so a viewer learns nothing about executors).
 */
export async function visibleRun(db: Db, principal: Principal, run: string, checkRole = true): Promise<string> {
  const owner = await runProjectOf(db, run);
  if (owner === null || !decide(principal, "runs.read", owner).ok) throw new LiveRefusal("run", `run "${run}" not found`, 404);
  if (checkRole) operatorRole(principal, owner);
  // evidence is not a run to act on, and a dropped payload leaves no request to send
  if ((await bundleOf(db, run)) !== null)
    throw new LiveRefusal("run", `run "${run}" was opened from an audit bundle: it is read-only evidence`, 409);
  const dropped = await payloadsDroppedOf(db, run);
  if (dropped !== null)
    throw new LiveRefusal(
      "run",
      `run "${run}" had its payloads dropped by retention on ${dropped}: no recorded request is left to act on`,
      409,
    );
  return owner;
}

export function operatorRole(principal: Principal, owner: string): void {
  if (principal.kind === "user" && !roleHolds(principal.memberships[owner].role, "live.act"))
    throw new LiveRefusal("role", `this needs the operator role in project "${owner}"; you are ${principal.memberships[owner].role}`, 403);
  if (principal.kind === "key") throw new LiveRefusal("role", "live actions need a signed-in user", 403);
}

/** May `principal` act live on `environment` of `project`? Open mode (the quick start, loopback only) acts on sandbox only. */
export function liveDecision(
  principal: Principal,
  project: string,
  environment: string,
): { ok: true } | { ok: false; step: string; message: string } {
  if (principal.kind === "open")
    return environment === "sandbox"
      ? { ok: true }
      : {
          ok: false,
          step: "environment",
          message: "open mode acts only on sandbox executors: add an account to act on another environment",
        };
  if (principal.kind !== "user") return { ok: false, step: "role", message: "live actions need a signed-in user" };
  const role = decide(principal, "live.act", project);
  if (!role.ok && role.message.includes("role in project")) return { ok: false, step: "role", message: role.message };
  const env = decide(principal, "live.act", project, environment);
  if (!env.ok) return { ok: false, step: "environment", message: env.message };
  return { ok: true };
}

/** The environments of a project `principal` may act on live (what the inspector offers). */
export function liveEnvironments(principal: Principal, project: string): string[] {
  if (principal.kind === "open") return ["sandbox"];
  if (principal.kind !== "user") return [];
  const m = principal.memberships[project];
  if (!m) return [];
  return m.environments.filter((env) => decide(principal, "live.act", project, env).ok);
}

async function executorFor(db: Db, project: string, executorId: string, tool: string): Promise<ExecutorInfo> {
  const ex = await getExecutor(db, project, executorId);
  if (!ex || ex.kind !== "tool") throw new LiveRefusal("executor", `no tool executor "${executorId}" in project "${project}"`, 404);
  if (ex.name !== "*" && ex.name !== tool) throw new LiveRefusal("executor", `executor ${ex.id} carries out ${ex.name}, not ${tool}`, 400);
  return ex;
}

/** The executors that may carry out the call at `seq`, for the inspector to offer. */
export async function executorsForCall(db: Db, principal: Principal, run: string, seq: number) {
  const project = await visibleRun(db, principal, run);
  const events = await runEvents(db, run);
  const ev = events.find((e) => e.seq === seq);
  const call = ev?.data.call;
  const callEv = ev?.type === "tool.call" ? ev : events.find((e) => e.type === "tool.call" && e.data.call === call && e.seq <= seq);
  if (!callEv) return { project, tool: null, executors: [] as ExecutorChoice[] };
  const tool = String(callEv.data.tool ?? "");
  const executors = (await toolExecutorsFor(db, project, tool))
    .filter((e) => liveDecision(principal, project, e.environment).ok)
    .map(choice);
  return { project, tool, executors };
}

export function planned<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PlanError) throw new LiveRefusal("event", e.message, e.status === 404 ? 404 : e.status === 409 ? 409 : 400);
    throw e;
  }
}

async function executionsOf(db: Db, run: string, call: string): Promise<number> {
  const rows = await db.sql.all<{ n: number }>(
    `SELECT COUNT(*) AS "n" FROM "LiveBranch" WHERE "originalRun" = ? AND "call" = ? AND "kind" = 're-execute'`,
    [run, call],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function reexecutePreview(
  db: Db,
  principal: Principal,
  input: { run: string; seq: number; executor: string },
): Promise<ReexecutePreview> {
  const project = await visibleRun(db, principal, input.run);
  const events = await runEvents(db, input.run);
  const tool = planned(() => previewToolOf(events, input.seq));
  const ex = await executorFor(db, project, input.executor, tool.tool);
  const d = liveDecision(principal, project, ex.environment);
  if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
  return fullPreview(db, input.run, input.seq, events, ex, tool.call);
}

function previewToolOf(events: readonly JournalEvent[], seq: number): { tool: string; call: string } {
  const p = previewReexecute({
    run: "",
    seq,
    events,
    branchReconciles: [],
    executor: { id: "", environment: "", name: "", url: "" },
    earlierExecutions: 0,
  });
  return { tool: p.tool, call: p.call };
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

export async function reconcilePreview(
  db: Db,
  principal: Principal,
  input: { run: string; seq: number; executor: string },
): Promise<ReconcilePreview> {
  const project = await visibleRun(db, principal, input.run);
  const events = await runEvents(db, input.run);
  const tool = planned(() => previewToolOf(events, input.seq));
  const ex = await executorFor(db, project, input.executor, tool.tool);
  const d = liveDecision(principal, project, ex.environment);
  if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
  const reconciles = await branchReconciles(db, input.run);
  return planned(() => previewReconcile({ run: input.run, seq: input.seq, events, branchReconciles: reconciles, executor: choice(ex) }));
}

export interface Confirmation {
  reason: string;
  password?: string;
  operationName?: string;
}

/** The fresh confirmation: a reason, and the password again (a user) or the operation's name (open mode). */
export async function confirm(db: Db, principal: Principal, c: Confirmation, operation: string, needsName: boolean): Promise<void> {
  if (c.reason.trim().length < 3) throw new LiveRefusal("reason", "say why (a reason of at least 3 characters); it goes into the log", 400);
  if (principal.kind === "user") {
    if (!c.password) throw new LiveRefusal("confirmation", "re-enter your password to confirm this live action", 401);
    if (!(await loginAllowed(db, principal.name, CONFIRM_ADDRESS))) {
      await burnVerify(c.password);
      throw new LiveRefusal("confirmation", "too many wrong passwords; wait 15 minutes", 429);
    }
    const user = await findUserByName(db, principal.name);
    const good =
      user && user.disabledAt === null ? await verifyPassword(c.password, user.passwordHash) : (await burnVerify(c.password), false);
    if (!good) {
      await recordFailure(db, principal.name, CONFIRM_ADDRESS);
      throw new LiveRefusal("confirmation", "the password is not right; nothing was sent", 401);
    }
    await recordSuccess(db, principal.name);
  }
  if ((needsName || principal.kind === "open") && c.operationName?.trim() !== operation)
    throw new LiveRefusal("operation name", `type the operation's name (${operation}) to confirm`, 400);
}

/** Runs `work`; a refusal after the run was found is logged (who, why, which step), then thrown. */
export async function logged<R>(
  db: Db,
  principal: Principal,
  entry: { action: string; project: string; target: string; reason: string; detail: Record<string, unknown> },
  work: () => Promise<R>,
): Promise<R> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof LiveRefusal && e.step !== "run") {
      await appendAudit(db, {
        ...entry,
        actor: actorOf(principal),
        result: "refused",
        detail: { ...entry.detail, step: e.step, error: e.message },
      });
    }
    throw e;
  }
}

/**
 * One request to an executor. Its host is checked again on the address it resolves to now
 * (executor-hosts.ts): a refused one is a refusal before anything is sent or recorded.
 */
export async function post(
  allow: ExecutorHosts | undefined,
  url: string,
  credential: string | null,
  key: string,
  body: JsonValue,
): Promise<{ ok: boolean; json: JsonObject | null; error?: string }> {
  try {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "idempotency-key": key,
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    };
    const res = await postToExecutor(url, headers, JSON.stringify(body), { allow, timeoutMs: EXECUTOR_TIMEOUT_MS });
    let json: JsonObject | null = null;
    try {
      const v = JSON.parse(res.text) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) json = v as JsonObject;
    } catch {
      json = null;
    }
    const ok = res.status >= 200 && res.status < 300;
    return ok ? { ok: true, json } : { ok: false, json, error: `the executor answered HTTP ${res.status}` };
  } catch (e) {
    if (e instanceof ExecutorHostRefused) throw new LiveRefusal("executor", `${e.message}; nothing was sent`, 403);
    // the executor's own words may carry what was sent: only the kind of failure is kept
    const name = e instanceof Error ? e.name : "error";
    return {
      ok: false,
      json: null,
      error: name === "TimeoutError" ? "the executor did not answer in time" : `the executor could not be reached (${name})`,
    };
  }
}

export async function storeBranch(db: Db, project: string, events: JournalEvent[]): Promise<{ findings: number }> {
  const text = events.map((e) => JSON.stringify(e)).join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);
  const r = await ingestBytes(
    db,
    (async function* () {
      yield bytes;
    })(),
    {
      mode: "upload",
      project,
      source: "upload",
    },
  );
  const run = r.runs[0];
  if (!run || r.errors.length > 0) throw new Error("the branch run could not be stored");
  return { findings: run.findings };
}

export interface LiveOutcome {
  branch: string;
  forkOf: { run: string; seq: number };
  status: string;
  externalId: string | null;
  findings: number;
  auditSeq: number;
}

export async function reexecute(
  db: Db,
  principal: Principal,
  input: { run: string; seq: number; executor: string; digest: string } & Confirmation,
): Promise<LiveOutcome> {
  const project = await visibleRun(db, principal, input.run, false);
  const events = await runEvents(db, input.run);
  const entry = {
    action: "live.reexecute",
    project,
    target: `${input.run}#${input.seq}`,
    reason: input.reason,
    detail: { run: input.run, seq: input.seq, executor: input.executor } as Record<string, unknown>,
  };
  return logged(db, principal, entry, async () => {
    operatorRole(principal, project);
    const tool = planned(() => previewToolOf(events, input.seq));
    const ex = await executorFor(db, project, input.executor, tool.tool);
    entry.detail = { ...entry.detail, tool: tool.tool, environment: ex.environment };
    const d = liveDecision(principal, project, ex.environment);
    if (!d.ok) throw new LiveRefusal(d.step, d.message, 403);
    const preview = await fullPreview(db, input.run, input.seq, events, ex, tool.call);
    await confirm(db, principal, input, preview.tool, preview.needsOperationName);
    if (input.digest !== preview.digest)
      throw new LiveRefusal("preview", "what would be sent changed since the preview; look at the preview again", 409);
    if (preview.refusal) throw new LiveRefusal("unreconciled", preview.refusal, 409);

    const credential = await executorCredential(db, ex);
    const sent = await post(db.config.executorHosts, preview.request.url, credential, preview.idempotencyKey, preview.request.body);
    const r = sent.json ?? {};
    const status =
      sent.ok && typeof r.status === "string" && ["ok", "error", "timeout", "unknown"].includes(r.status) ? r.status : "unknown";
    const externalId = typeof r.externalId === "string" ? r.externalId : null;
    const at = new Date().toISOString();
    const branch = branchRunId(input.run, "re-execute", randomBytes(4).toString("hex"));
    const mark: LiveMark = {
      action: "re-execute",
      executor: ex.id,
      environment: ex.environment,
      actor: actorOf(principal),
      reason: input.reason,
      at,
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
      original: input.run,
      forkSeq: preview.seq,
      events,
      upTo: preview.seq - 1,
      added: [
        { type: "tool.call", data: callData, step: callEv.step, ...(callEv.parent !== undefined ? { parent: callEv.parent } : {}) },
        { type: "tool.result", data: resultData, step: callEv.step, parent: preview.seq },
      ],
      ts: at,
    });
    const { findings } = await storeBranch(db, project, journal);
    const audit = await appendAudit(db, {
      actor: actorOf(principal),
      action: "live.reexecute",
      project,
      target: `${input.run}#${preview.seq}`,
      reason: input.reason,
      result: status === "ok" ? "ok" : "failed",
      detail: {
        ...entry.detail,
        branch,
        request: { url: preview.request.url, headers: preview.request.headers, body: preview.request.body },
        keySource: preview.keySource,
        repeats: preview.confirmed.map((c) => ({ seq: c.seq, externalId: c.reconciled?.externalId ?? c.externalId })),
        result: { status, externalId },
      },
    });
    await recordBranch(db, {
      runId: branch,
      originalRun: input.run,
      forkSeq: preview.seq,
      kind: "re-execute",
      call: preview.call,
      outcome: status,
      externalId,
      environment: ex.environment,
      actor: actorOf(principal),
      auditSeq: audit.seq,
    });
    return { branch, forkOf: { run: input.run, seq: preview.seq }, status, externalId, findings, auditSeq: audit.seq };
  });
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
  return logged(db, principal, entry, async () => {
    operatorRole(principal, project);
    const tool = planned(() => previewToolOf(events, input.seq));
    const ex = await executorFor(db, project, input.executor, tool.tool);
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
    let externalId: string | null = input.externalId?.trim() || null;
    const evidence: JsonObject = {};
    if (input.evidence?.trim()) evidence.text = input.evidence.trim();
    if (input.mode === "ask") {
      const credential = await executorCredential(db, ex);
      const asked = await post(db.config.executorHosts, `${ex.url}/lookup`, credential, p.key, { tool: p.tool, idempotencyKey: p.key });
      if (!asked.ok || !asked.json)
        throw new LiveRefusal("executor", `${asked.error ?? "the executor gave no answer"}; nothing was recorded`, 502);
      const found = asked.json.found === true;
      outcome = found ? "succeeded" : "failed";
      externalId = typeof asked.json.externalId === "string" ? asked.json.externalId : null;
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
    const audit = await appendAudit(db, {
      actor: actorOf(principal),
      action: "live.reconcile",
      project,
      target: `${input.run}#${p.resultSeq}`,
      reason: input.reason,
      result: "ok",
      detail: { ...entry.detail, branch, call: p.call, outcome, externalId, evidence },
    });
    await recordBranch(db, {
      runId: branch,
      originalRun: input.run,
      forkSeq: p.resultSeq,
      kind: "reconcile",
      call: p.call,
      outcome,
      externalId,
      environment: ex.environment,
      actor: actorOf(principal),
      auditSeq: audit.seq,
    });
    return { branch, forkOf: { run: input.run, seq: p.resultSeq }, status: outcome, externalId, findings, auditSeq: audit.seq };
  });
}

export async function recordBranch(db: Db, b: Omit<BranchRow, "createdMs">): Promise<void> {
  await db.sql.transaction((tx) =>
    tx.run(
      `INSERT INTO "LiveBranch" ("runId", "originalRun", "forkSeq", "kind", "call", "outcome", "externalId", "environment", "actor", "auditSeq", "createdMs") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [b.runId, b.originalRun, b.forkSeq, b.kind, b.call, b.outcome, b.externalId, b.environment, b.actor, b.auditSeq, Date.now()],
    ),
  );
}

/** For the run page: the original this run branches from, and the branch runs made of it. */
export async function branchInfo(db: Db, run: string) {
  const own = await db.sql.all<{ originalRun: string; forkSeq: number; kind: string }>(
    `SELECT "originalRun", "forkSeq", "kind" FROM "LiveBranch" WHERE "runId" = ?`,
    [run],
  );
  const children = (await branchesOf(db, run)).map((b) => ({
    run: b.runId,
    kind: b.kind,
    forkSeq: b.forkSeq,
    outcome: b.outcome,
    externalId: b.externalId,
    actor: b.actor,
    environment: b.environment,
  }));
  return { of: own[0] ? { run: own[0].originalRun, seq: Number(own[0].forkSeq), kind: own[0].kind } : null, children };
}

/** Whether the run page offers live actions: the viewer acts on an environment some tool executor of the project acts on. */
export async function offersLive(db: Db, principal: Principal, project: string): Promise<boolean> {
  const envs = liveEnvironments(principal, project);
  if (envs.length === 0) return false;
  const rows = await db.sql.all<{ environment: string }>(
    `SELECT DISTINCT "environment" FROM "Executor" WHERE "projectId" = ? AND "kind" = 'tool'`,
    [project],
  );
  return rows.some((r) => envs.includes(r.environment));
}
