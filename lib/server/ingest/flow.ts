import "server-only";
/**
 * The ingest flow: validated events in, durable runs out (see lib/server/README.md). It
 * ties the modules of this folder together and owns only the request: one transaction,
 * the runs it opens, batching rows across runs, and which errors reject a run or the whole
 * request. A run with any error is rejected whole (its rows from this request are removed
 * before commit); an error that names no run rejects the whole request.
 */
import { isBundleRunId } from "../../evidence/opened";
import { SummaryBinaryBuilder } from "../../graph/summary-binary";
import { msOf } from "../../journal/epoch-ms";
import type { SeqMap } from "../../journal/seq-map";
import { eventColumns, type EventColumns } from "../../journal/summary";
import type { JournalEvent } from "../../journal/types";
import { looksSecret, redactIssue, type Redactor } from "../../redact";
import type { SqlExec, SqlTx } from "../sql";
import type { IngestRow } from "../sqlite-rows";
import { RunAnalysis, type PolicyLookup } from "./analysis";
import { latestWorkflowPolicies } from "./workflow-policies";
import { WRITER_BACKLOG } from "./finish-on-writer";
import { concludeChain, finisherFor, finishRow, runChainOf, type RowFinisher, type RunChain } from "./finishing";
import { holdLink } from "./pending-links";
import { pendingOf, rawText, storedText, type Pending } from "./pending";
import { redactArrival } from "./redaction";
import { ReorderBuffer } from "./reorder";
import { prefetchResends, RunResends, storedTextOfRow } from "./resend";
import { deleteSeqs, loadRun, lockRun, RunSummary, writeRunRow } from "./run-row";
import { storableOrNull, storableText } from "../storable-text";
import { IssueList, MAX_INVALID_LINES } from "./issues";
import type { IngestError, IngestOptions, IngestResult, IngestSource, RunOutcome } from "./types";

/** One run's part of the request. */
interface RunCtx {
  id: string;
  /** The id is another project's run: refused, never read or changed. */
  foreign: boolean;
  summary: RunSummary;
  isNew: boolean;
  /** Every seq stored (before or in this request) → its recorder hash. */
  stored: SeqMap<string | null>;
  resends: RunResends;
  reorder: ReorderBuffer<Pending>;
  chain: RunChain;
  analysis: RunAnalysis;
  /** Seqs this request added to a run that existed before (removed on rejection). */
  inserted: number[];
  /** Rows not yet handed to the database. */
  rows: IngestRow[];
  accepted: number;
  duplicates: number;
  rejected: boolean;
  toolOfCall: Map<string, string>;
  /** Processes a pending event of this run (bound once: the reorder buffer calls it per event). */
  emit: (p: Pending) => void;
  /** The stored text of an event taken in this request and not yet handed over (resends compare with it). */
  inRequest: (seq: number) => string | undefined;
  /** The viewer summary of a new run, row by row in seq order (IngestOptions.onSummary). */
  built: SummaryBinaryBuilder | null;
}

class FatalIngest extends Error {}

/** Runs a request keeps open at once (see Request.run): beyond it the first begun is finished. */
export const MAX_OPEN_RUNS = 1000;

/** Why an event of a run already finished in this request is refused. */
function appearsAgain(run: string, contiguous: boolean): string {
  return contiguous
    ? `run "${safeId(run)}" appears again after other runs`
    : `run "${safeId(run)}" appears again after ${MAX_OPEN_RUNS} other runs began after it (a request keeps at most ${MAX_OPEN_RUNS} runs open): send each run's events together; nothing was stored`;
}

/** Events between two progress reports (IngestOptions.onProgress). */
const PROGRESS_EVERY = 5000;

export async function ingest(sql: SqlExec, redactor: Redactor, source: IngestSource, opts: IngestOptions): Promise<IngestResult> {
  const errors = new IssueList();
  const warnings = new IssueList();
  let request: Request | undefined;
  // Errors quote their input (a bad run id, another run's name): they leave redacted as
  // storage redacts, whoever shows them (API answers, the UI's report, the CLI).
  const answer = (runs: RunOutcome[]): IngestResult => ({
    runs,
    errors: errors.listed.map((e) => redactIssue(e, redactor)),
    warnings: warnings.listed.map((e) => redactIssue(e, redactor)),
    ...(errors.more > 0 ? { moreErrors: errors.more } : {}),
    ...(warnings.more > 0 ? { moreWarnings: warnings.more } : {}),
    ...(request?.stopped ? { stopped: request.stopped } : {}),
    committed: runs.some((r) => r.status === "stored"),
  });
  try {
    const outcomes = await sql.transaction((tx) => (request = new Request(sql, tx, redactor, opts, errors, warnings)).run(source), {
      small: opts.small,
    });
    return answer(outcomes);
  } catch (e) {
    if (e instanceof FatalIngest) return answer([]);
    throw e;
  }
}

class Request {
  private readonly runs = new Map<string, RunCtx>();
  private readonly closed = new Set<string>();
  private readonly results: RunOutcome[] = [];
  private readonly now = Date.now();
  private readonly finisher: RowFinisher;
  private total = 0;
  private nextProgress = PROGRESS_EVERY;
  /** An error that names no run (or breaks the request's terms): nothing is committed. */
  private fatal = false;
  // Rows waiting for the database, across runs: a file of many small runs must not hold
  // every row until the end.
  private pendingRows = 0;
  /** Lines the reader could not take (ReaderItem errors). */
  private invalidLines = 0;
  /** Why reading stopped before the end (too many invalid lines): nothing is stored. */
  stopped: string | undefined;
  /** The workflows' latest attached policies, read once, when a run without its run.start opens. */
  private policyLookup: PolicyLookup | undefined;

  constructor(
    private readonly sql: SqlExec,
    private readonly tx: SqlTx,
    private readonly redactor: Redactor,
    private readonly opts: IngestOptions,
    private readonly errors: IssueList,
    private readonly warnings: IssueList,
  ) {
    this.finisher = finisherFor(tx, opts.writerBacklog ?? WRITER_BACKLOG);
  }

  async run(source: IngestSource): Promise<RunOutcome[]> {
    const { tx, opts } = this;
    for (const id of opts.lockRuns ?? []) await lockRun(tx, this.sql.dialect, id, opts, this.now);
    const items = typeof source === "function" ? await source(tx) : source;
    // leaving the loop early ends the source (and stops reading the body)
    reading: for await (const batch of items) {
      if (this.runs.size > 0) {
        await prefetchResends(
          tx,
          batch,
          (id) => {
            const ctx = this.runs.get(id);
            return ctx && !ctx.rejected ? ctx.resends : undefined;
          },
          [...this.runs.values()].map((c) => c.resends),
        );
      }
      for (const item of batch) {
        if (item.kind === "error" && item.run !== undefined && this.closed.has(item.run)) {
          this.fail({
            line: item.line,
            run: item.run,
            seq: item.seq,
            message: `${item.message}; and ${appearsAgain(item.run, opts.contiguousRuns === true)}`,
          });
          continue;
        }
        if (item.kind === "error") {
          if (++this.invalidLines > MAX_INVALID_LINES) {
            this.fatal = true;
            this.stopped = `reading stopped at line ${item.line} after ${MAX_INVALID_LINES} invalid lines; nothing was stored`;
            break reading;
          }
          const ctx = item.run
            ? (this.runs.get(item.run) ?? (opts.onlyRun === item.run || !opts.onlyRun ? await this.openRunSafe(item.run) : undefined))
            : undefined;
          if (!item.run) this.fatal = true;
          this.reject(ctx, { line: item.line, run: item.run, seq: item.seq, message: item.message, kind: "invalid" });
          continue;
        }
        const ev = item.event;
        if (opts.onlyRun !== undefined && ev.run !== opts.onlyRun) {
          this.fail({
            line: item.line,
            run: ev.run,
            seq: ev.seq,
            message: `event belongs to run "${safeId(ev.run)}", not to "${opts.onlyRun}" named in the URL`,
          });
          continue;
        }
        let ctx = this.runs.get(ev.run);
        if (!ctx && this.closed.has(ev.run)) {
          this.fail({ line: item.line, run: ev.run, seq: ev.seq, message: appearsAgain(ev.run, opts.contiguousRuns === true) });
          continue;
        }
        if (!ctx && opts.contiguousRuns) {
          // Runs come one after another: the previous one is complete, so finish it now and
          // let its maps go (memory stays that of one run, whatever the file holds).
          for (const prev of this.runs.values()) {
            await this.closeRun(prev);
            this.closed.add(prev.id);
          }
          this.runs.clear();
        } else if (!ctx && this.runs.size >= MAX_OPEN_RUNS) {
          // A run's state costs kilobytes: a body of many small runs keeps MAX_OPEN_RUNS
          // open at most, finishing the one begun first (written in this transaction, so
          // still all or nothing with the request); an event of it after that is refused.
          const first = this.runs.values().next().value!;
          await this.closeRun(first);
          this.closed.add(first.id);
          this.runs.delete(first.id);
        }
        if (!ctx) {
          if (looksSecret(this.redactor, ev.run)) {
            this.fail({ line: item.line, seq: ev.seq, message: "the run id looks like a secret; choose an id that is not one" });
            continue;
          }
          ctx = await this.openRun(ev.run);
          if (ctx.foreign) {
            this.reject(ctx, {
              line: item.line,
              run: ev.run,
              seq: ev.seq,
              kind: "conflict",
              message: `run id "${safeId(ev.run)}" is taken in another project; choose another run id`,
            });
          } else if (isBundleRunId(ev.run) !== (opts.source === "bundle") || (opts.source === "bundle" && !ctx.isNew)) {
            // a run opened from an audit bundle is read-only evidence: nothing is appended to it
            this.reject(ctx, {
              line: item.line,
              run: ev.run,
              seq: ev.seq,
              kind: "conflict",
              message: isBundleRunId(ev.run)
                ? `run "${safeId(ev.run)}" was opened from an audit bundle and is read-only`
                : "only an audit bundle's journal may be opened as a bundle run",
            });
          } else if (ctx.summary.row.payloadsDroppedAt !== null) {
            // what is kept of it is a summary: new events would be judged against payloads that are gone
            this.reject(ctx, {
              line: item.line,
              run: ev.run,
              seq: ev.seq,
              kind: "conflict",
              message: `run "${safeId(ev.run)}": its payloads were dropped by the retention policy on ${new Date(ctx.summary.row.payloadsDroppedAt).toISOString().slice(0, 10)}; nothing more can be added to it`,
            });
          }
        }
        if (ctx.rejected) continue;
        this.total++;

        const p = pendingOf(item);
        redactArrival(p, item.mayHoldSecret, this.redactor, opts.redactedBefore === true);
        const s = ev.seq as number;
        // awaited only for a resend: an await per event costs more than the work it waits for
        if (!ctx.resends.take(s, item.line)) {
          const resend = await ctx.resends.classify(tx, s, storedText(p), item.line, ctx.inRequest);
          if (resend === "duplicate") ctx.duplicates++;
          else this.reject(ctx, resend);
          continue;
        }
        if (ctx.summary.row.eventCount + ctx.reorder.size + 1 > opts.maxEventsPerRun) {
          this.reject(ctx, {
            line: item.line,
            run: ctx.id,
            seq: s,
            kind: "limit",
            message: `run "${ctx.id}" would hold more than ${opts.maxEventsPerRun} events (RETRACE_MAX_EVENTS_PER_RUN)`,
          });
          continue;
        }
        ctx.reorder.offer(s, p, ctx.emit);
        if (this.pendingRows >= tx.batchRows) await this.flushAll();
      }
      this.progress();
    }

    if (this.fatal || ((opts.replaceRuns || opts.atomic) && this.errors.total > 0)) throw new FatalIngest();
    for (const ctx of this.runs.values()) await this.closeRun(ctx);
    if (this.results.length > 0 && this.results.every((r) => r.status === "rejected")) throw new FatalIngest();
    return this.results;
  }

  /**
   * Reports progress every PROGRESS_EVERY events, at the end of the batch that reaches it.
   * Per batch and out of line, not per event: a call the event loop reaches only every
   * few thousand events deoptimised this function there, and it was compiled again.
   */
  private progress() {
    if (this.opts.onProgress && this.total >= this.nextProgress) {
      this.nextProgress = (Math.floor(this.total / PROGRESS_EVERY) + 1) * PROGRESS_EVERY;
      this.opts.onProgress(this.total);
    }
  }

  /** An error that rejects the whole request. */
  private fail(e: Omit<IngestError, "kind">) {
    this.fatal = true;
    this.errors.push({ ...e, kind: "invalid" });
  }

  private reject(ctx: RunCtx | undefined, e: IngestError) {
    this.errors.push(e);
    if (ctx) {
      ctx.rejected = true;
      ctx.built = null;
      ctx.reorder.clear();
      this.pendingRows -= ctx.rows.length;
      ctx.rows = [];
    }
  }

  private async openRun(id: string): Promise<RunCtx> {
    const existing = this.runs.get(id);
    if (existing) return existing;
    const { row, isNew, stored, foreign } = await loadRun(this.tx, this.sql.dialect, id, this.opts, this.now);
    // retrace import --policy: the run is judged by that policy, not by the one it recorded
    if (isNew && this.opts.policy !== undefined) {
      row.attachedPolicy = this.opts.policy;
      row.policyVersion = null;
    }
    // a run whose run.start is still to come may get its workflow's attached policy
    if (row.attachedPolicy === null && row.startedAt === null) this.policyLookup ??= await latestWorkflowPolicies(this.tx);
    const analysis = new RunAnalysis(row, row.attachedPolicy === null ? this.policyLookup : undefined);
    const ctx: RunCtx = {
      id,
      foreign,
      summary: new RunSummary(row, analysis.failuresBefore),
      isNew,
      stored,
      resends: new RunResends(id, stored),
      reorder: new ReorderBuffer<Pending>(row.nextSeq, (seq) => stored.has(seq)),
      chain: runChainOf(row),
      analysis,
      inserted: [],
      rows: [],
      accepted: 0,
      duplicates: 0,
      rejected: false,
      toolOfCall: new Map(),
      emit: (p) => this.process(ctx, p),
      inRequest: (seq) => earlierInRequest(ctx, seq),
      // A new run's rows are processed in seq order and never changed later in the request
      // (no gap is filled behind them): the rows as written are the rows a read-back gives.
      // Not where the writer thread finishes rows: their chain verdicts are known only there.
      built: this.opts.onSummary && isNew && !this.tx.finishesRows ? new SummaryBinaryBuilder(id, 256) : null,
    };
    this.runs.set(id, ctx);
    return ctx;
  }

  private async openRunSafe(id: string): Promise<RunCtx | undefined> {
    try {
      return /^[A-Za-z0-9._:-]{1,128}$/.test(id) && !looksSecret(this.redactor, id) ? await this.openRun(id) : undefined;
    } catch {
      return undefined;
    }
  }

  // Synchronous on purpose: an await per event costs more than the work it waits for.
  private process(ctx: RunCtx, p: Pending) {
    const s = p.raw.seq as number;
    const prevRecorded = ctx.stored.get(s - 1) ?? undefined;
    const recordedHash = typeof p.raw.hash === "string" ? p.raw.hash : null;
    const f = finishRow(this.finisher, ctx.chain, p, s, prevRecorded);
    // A redacted event before its predecessor: the text its link needs is never stored,
    // so it waits in memory for the gap to be filled (pending-links.ts).
    if (recordedHash !== null && p.canonicalStored !== null && s > 0 && !ctx.stored.has(s - 1)) {
      holdLink(ctx.id, s, recordedHash, rawText(p), p.canonicalStored);
    }
    ctx.analysis.push(withStoredIds(p), s, f.chain, p.secrets);

    // Every column is derived from the stored (redacted) event: a tool.result's name is
    // its call's tool as stored, never the raw name (a secret in it reached the column,
    // the run summary and bundles).
    const ev = p.stored;
    if (ev.type === "tool.call" && typeof ev.data.call === "string" && typeof ev.data.tool === "string") {
      ctx.toolOfCall.set(ev.data.call, ev.data.tool);
    }
    const cols = textColumns(eventColumns(ev, (c) => ctx.toolOfCall.get(c)));
    const tsMs = msOf(p.raw.ts);
    this.pendingRows++;
    const row: IngestRow = {
      runId: ctx.id,
      seq: s,
      ts: p.raw.ts,
      tsMs,
      type: ev.type,
      step: typeof ev.step === "string" ? storableText(ev.step) : null,
      parent: typeof ev.parent === "number" ? ev.parent : null,
      ...cols,
      bytes: p.bytes,
      body: f.body,
      recordedHash,
      chain: f.chain,
      hash: f.hash,
      redactions: p.redactions,
      work: f.work,
      prevHash: f.prevHash,
      chainSeed: f.chainSeed,
    };
    ctx.rows.push(row);
    // a new run is removed whole on rejection; an existing one loses what was added
    if (!ctx.isNew) ctx.inserted.push(s);
    ctx.stored.set(s, recordedHash);
    ctx.accepted++;
    ctx.summary.add(ev, s, tsMs, cols);
    // row.chain is set: rows finished on this thread (finishesRows false)
    if (ctx.built !== null)
      ctx.built.push(
        s,
        Math.round(tsMs),
        row.type,
        row.step,
        row.parent,
        row.call,
        row.name,
        row.status,
        row.latencyMs,
        row.tokens,
        row.chain!,
        row.redactions,
      );
  }

  private async flushRows(ctx: RunCtx) {
    if (ctx.rows.length === 0) return;
    await this.tx.insertEvents(ctx.rows);
    this.pendingRows -= ctx.rows.length;
    ctx.rows = [];
    this.finisher.flushed(this.tx);
  }

  private async flushAll() {
    for (const c of this.runs.values()) await this.flushRows(c);
  }

  /** Ends a run's part of the request: what follows a gap, then stored or rejected. */
  private async closeRun(ctx: RunCtx) {
    const { tx } = this;
    if (!ctx.rejected && ctx.reorder.size > 0) {
      // What is left follows a gap: process it in seq order; the gap is reported.
      let prev = ctx.reorder.expected - 1;
      for (const { seq: s, item: p } of ctx.reorder.takeRest()) {
        if (s > prev + 1) {
          this.warnings.push({
            line: p.line,
            run: ctx.id,
            seq: s,
            kind: "invalid",
            message: `seq jumps from ${prev} to ${s}: ${s - prev - 1} event(s) missing (stored; reported as journal.gap)`,
          });
        }
        this.process(ctx, p);
        if (this.pendingRows >= tx.batchRows) await this.flushAll();
        prev = s;
      }
    }
    const row = ctx.summary.row;
    if (ctx.rejected) {
      if (ctx.isNew) await tx.run(`DELETE FROM "Run" WHERE "id" = ?`, [ctx.id]);
      else await deleteSeqs(tx, ctx.id, ctx.inserted);
      this.results.push({ run: ctx.id, status: "rejected", accepted: 0, duplicates: 0, nextSeq: row.nextSeq, findings: row.findingCount });
      return;
    }
    await this.flushRows(ctx);
    // links the writer thread found broken become journal.chain findings
    for (const seq of await this.finisher.settle(tx, ctx.chain)) ctx.analysis.chainFailed(seq);
    // the first missing seq from 0
    let next = row.nextSeq;
    while (ctx.stored.has(next)) next++;
    row.nextSeq = next;
    settleOrDefer(ctx, this.opts.deferSettle === true);
    await concludeChain(tx, row, ctx.chain, ctx.stored, ctx.isNew);
    ctx.summary.conclude();
    await ctx.analysis.store(tx, this.redactor, ctx.summary);
    await writeRunRow(tx, row);
    if (ctx.built !== null && ctx.built.n === row.eventCount && ctx.chain.rechainFrom === null) {
      const bytes = ctx.built.finish();
      this.opts.onSummary?.(ctx.id, { bytes, updatedAt: row.updatedAt, eventCount: row.eventCount, droppedAt: row.payloadsDroppedAt ?? 0 });
    }
    ctx.built = null;
    this.results.push({
      run: ctx.id,
      status: "stored",
      accepted: ctx.accepted,
      duplicates: ctx.duplicates,
      nextSeq: row.nextSeq,
      findings: row.findingCount,
    });
  }
}

/**
 * A gap filled late: the server chain after it, the chain verdict and the analysis are
 * recomputed over the stored run. A request that may defer (IngestOptions.deferSettle)
 * leaves that to a later settle (settle.ts) and marks where it starts; any other request
 * settles what earlier ones left too.
 */
function settleOrDefer(ctx: RunCtx, defer: boolean) {
  const row = ctx.summary.row;
  const late = ctx.chain.rechainFrom;
  if (defer) {
    if (late === null) return;
    row.settleFrom = Math.min(row.settleFrom ?? late, late);
    ctx.chain.rechainFrom = null;
    ctx.analysis.defer();
  } else if (row.settleFrom !== null) {
    ctx.chain.rechainFrom = Math.min(late ?? row.settleFrom, row.settleFrom);
    ctx.analysis.markStale();
    row.settleFrom = null;
  }
}

/** The stored text of the event this request took at `seq` and has not handed to the database yet. */
function earlierInRequest(ctx: RunCtx, seq: number): string | undefined {
  const waiting = ctx.reorder.get(seq);
  if (waiting) return storedText(waiting);
  for (const r of ctx.rows) if (r.seq === seq) return storedTextOfRow(r);
  return undefined;
}

/**
 * The event's text columns as both databases store them (storable-text.ts): event rows go
 * out by COPY and the SQLite writer, not as SQL parameters.
 */
function textColumns(cols: EventColumns): EventColumns {
  const { call, name, status } = cols;
  if (storableOrNull(call) === call && storableOrNull(name) === name && storableOrNull(status) === status) return cols;
  return { ...cols, call: storableOrNull(call), name: storableOrNull(name), status: storableOrNull(status) };
}

function safeId(id: string): string {
  return id.length > 128 ? id.slice(0, 128) + "…" : id;
}

/** The fields that name things the analysis matches across events (calls, approvals, steps, checkpoints, operations). */
const ID_FIELDS = ["call", "approval", "step", "id", "idempotencyKey", "externalId"] as const;

/**
 * The raw event, with its ids as stored when redaction changed them: the analysis matches a
 * result to its call by id, and the snapshot it continues from (and a re-fold, and the
 * viewer) hold the stored ids. A secret in a call id otherwise left the call's result
 * unmatched after the next request. Values (arguments, state) stay raw: hashes need them.
 */
function withStoredIds(p: Pending): JournalEvent {
  const raw = p.raw;
  if (p.stored === raw) return raw;
  let data: JournalEvent["data"] | null = null;
  for (const k of ID_FIELDS) {
    const v = p.stored.data[k];
    if (typeof v === "string" && v !== raw.data[k]) (data ??= { ...raw.data })[k] = v;
  }
  const step = p.stored.step !== raw.step && typeof p.stored.step === "string" ? p.stored.step : undefined;
  if (data === null && step === undefined) return raw;
  return { ...raw, ...(data ? { data } : {}), ...(step !== undefined ? { step } : {}) };
}
