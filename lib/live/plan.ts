/**
 * What a live action would do, decided from the recorded events alone (pure): the
 * recorded calls of an operation and their outcomes, the idempotency key to send, why the
 * action must be refused, and the branch journal a live action records. The server
 * (lib/server/live) reads the events, calls the executor and stores the branch.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent, JsonObject, JsonValue } from "../journal/types";
import { callLedger, effectOf, groupOf, isConfirmed, isOpen, NO_RESULT } from "../semantics";
import type { BranchReconcile, ExecutorChoice, ReconcilePreview, ReexecutePreview } from "./types";

const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);

export class PlanError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

function callAt(events: readonly JournalEvent[], seq: number): JournalEvent {
  const e = events.find((x) => x.seq === seq);
  if (!e) throw new PlanError(`event #${seq} not found in this run`, 404);
  if (e.type === "tool.call") return e;
  if (e.type === "tool.result" || e.type === "reconcile") {
    const call = str(e.data.call);
    const c = [...events].reverse().find((x) => x.type === "tool.call" && x.seq < e.seq && str(x.data.call) === call);
    if (c) return c;
  }
  throw new PlanError(`event #${seq} is a ${e.type}, not a tool call`);
}

/** A new idempotency key for the n-th live execution of a call: the same on a resend, so a double send pays once. */
export function newIdempotencyKey(run: string, seq: number, n: number): string {
  return `rtx-${sha256Hex(`${run}\u0000${seq}\u0000${n}`).slice(0, 24)}`;
}

/** The request a tool executor gets (docs/live-actions.md, "Executor protocol"). */
export function toolRequest(ex: ExecutorChoice, tool: string, args: JsonValue, idempotencyKey: string): ReexecutePreview["request"] {
  return {
    method: "POST",
    url: `${ex.url}/call`,
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: { tool, args, idempotencyKey },
  };
}

export function previewReexecute(opts: {
  run: string;
  seq: number;
  events: readonly JournalEvent[];
  branchReconciles: readonly BranchReconcile[];
  executor: ExecutorChoice;
  /** live re-executions of this call made before (for a new key) */
  earlierExecutions: number;
}): ReexecutePreview {
  const callEv = callAt(opts.events, opts.seq);
  const d = callEv.data;
  const tool = str(d.tool) ?? "";
  const args = d.args ?? null;
  const group = groupOf(tool, d.args);
  const all = callLedger(opts.events, opts.branchReconciles);
  const same = all.filter((c) => c.tool === tool && groupOf(c.tool, argsAt(opts.events, c.seq)) === group);
  const unknown = same.filter(isOpen);
  const confirmed = same.filter((c) => effectOf(c.effect) === "write" && isConfirmed(c));
  const recordedKey = str(d.idempotencyKey) ?? "";
  const keySource = recordedKey !== "" ? "recorded" : "new";
  const idempotencyKey = recordedKey !== "" ? recordedKey : newIdempotencyKey(opts.run, callEv.seq, opts.earlierExecutions + 1);
  const request = toolRequest(opts.executor, tool, args, idempotencyKey);
  const refusal =
    unknown.length > 0
      ? `refused: ${unknown.map((c) => `#${c.seq} (${c.status ?? NO_RESULT})`).join(", ")} of ${tool} with these arguments ha${unknown.length === 1 ? "s" : "ve"} an outcome nobody reconciled; reconcile it first`
      : null;
  const needsOperationName = opts.executor.environment === "production" || (effectOf(d.effect) === "write" && confirmed.length > 0);
  const digest = sha256Hex(canonicalJson({ run: opts.run, seq: callEv.seq, executor: opts.executor.id, request }));
  return {
    run: opts.run,
    seq: callEv.seq,
    call: str(d.call) ?? "",
    tool,
    effect: str(d.effect) ?? "",
    args,
    idempotencyKey,
    keySource,
    same,
    unknown,
    confirmed,
    executor: opts.executor,
    request,
    refusal,
    needsOperationName,
    digest,
  };
}

function argsAt(events: readonly JournalEvent[], seq: number): JsonValue | undefined {
  return events.find((e) => e.seq === seq)?.data.args;
}

export function previewReconcile(opts: {
  run: string;
  seq: number;
  events: readonly JournalEvent[];
  branchReconciles: readonly BranchReconcile[];
  executor: ExecutorChoice;
}): ReconcilePreview {
  const callEv = callAt(opts.events, opts.seq);
  const call = str(callEv.data.call) ?? "";
  const rec = callLedger(opts.events, opts.branchReconciles).find((c) => c.seq === callEv.seq);
  if (!rec) throw new PlanError(`call ${call} not found in this run`, 404);
  let refusal: string | null = null;
  if (!rec.sent) refusal = `call ${call} was never sent (a live branch left it pending): there is nothing to reconcile`;
  else if (rec.status !== null && rec.status !== "unknown" && rec.status !== "timeout")
    refusal = `call ${call} ended ${rec.status}: only an unknown or timeout outcome, or a write with no result, is reconciled`;
  else if (rec.status === null && effectOf(rec.effect) === "read")
    refusal = `call ${call} is a read with no result: nothing it did needs reconciling`;
  else if (rec.reconciled)
    refusal = `call ${call} is already reconciled as ${rec.reconciled.outcome}${rec.reconciled.where === "journal" ? ` at #${rec.reconciled.seq}` : ` on branch ${rec.reconciled.where}`}`;
  return {
    run: opts.run,
    call,
    tool: rec.tool,
    resultSeq: rec.resultSeq ?? rec.seq,
    status: rec.status ?? NO_RESULT,
    key: rec.key,
    executor: opts.executor,
    refusal,
  };
}

/** The marker on an event a live action wrote (docs/journal-format.md, "Live events"). */
export interface LiveMark {
  action: "reconcile" | "re-execute" | "continue";
  executor: string;
  environment: string;
  actor: string;
  reason: string;
  at: string;
}

/**
 * A branch run's journal: the original's events up to and including `upTo` (their stored
 * bodies, under the branch's id, without the recorder's hashes), `forkOf {run, seq}` on its
 * run.start, and the new events after them with seqs that follow.
 */
export function branchJournal(opts: {
  branchRun: string;
  original: string;
  forkSeq: number;
  events: readonly JournalEvent[];
  upTo: number;
  added: ReadonlyArray<{ type: string; data: JsonObject; parent?: number; step?: string }>;
  ts: string;
}): JournalEvent[] {
  const kept = opts.events.filter((e) => e.seq <= opts.upTo).sort((a, b) => a.seq - b.seq);
  if (kept.length === 0 || kept[0].type !== "run.start") throw new PlanError("the run has no run.start to branch from", 409);
  const out: JournalEvent[] = kept.map((e, i) => {
    const { hash: _hash, ...rest } = e;
    void _hash;
    const ev = { ...rest, run: opts.branchRun } as JournalEvent;
    if (i === 0) ev.data = { ...e.data, forkOf: { run: opts.original, seq: opts.forkSeq } };
    return ev;
  });
  let seq = kept[kept.length - 1].seq;
  for (const a of opts.added) {
    seq++;
    const ev: JournalEvent = { run: opts.branchRun, seq, ts: opts.ts, type: a.type, data: a.data } as JournalEvent;
    if (a.parent !== undefined) ev.parent = a.parent as JournalEvent["seq"];
    if (a.step !== undefined) ev.step = a.step;
    out.push(ev);
  }
  return out;
}

/** A branch run's id: the original's (shortened to fit) and a suffix that says what made it. */
export function branchRunId(original: string, kind: "reconcile" | "re-execute" | "continue", nonce: string): string {
  const suffix = `.${kind === "reconcile" ? "rec" : kind === "continue" ? "cont" : "live"}-${nonce}`;
  return `${original.slice(0, 128 - suffix.length)}${suffix}`;
}
