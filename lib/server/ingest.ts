import "server-only";
/**
 * Ingest: validated events in, durable runs out. See lib/server/README.md for the flow.
 *
 * One request is one transaction. Events are deduplicated by seq (an identical resend is
 * a duplicate, a different event at a taken seq is a conflict), redacted, and processed
 * in seq order through a small reorder buffer: the recorder's chain is verified on what
 * arrived, the server's own chain is computed over what is stored, the analyzer folds
 * the raw (pre-redaction) events, and rows go to the database in batches. A run with any
 * error is rejected whole (its rows from this request are removed before commit); an
 * error that names no run rejects the whole request.
 */
import { canonicalJson } from "../canonical";
import { createAnalyzer, type Analyzer, type AnalyzerSnapshot } from "../analyze/analyzer";
import { canonicalWithoutHash, chainHashOf, verifyEvent, withoutHash, type ChainVerdict } from "../journal/chain";
import { parseJsonExact } from "../journal/parse-line";
import { SeqMap } from "../journal/seq-map";
import { msOf } from "../journal/epoch-ms";
import type { ReaderItem } from "../journal/reader";
import { eventColumns, isErrorEvent, runHeaderFromStart, type RunIdentity } from "../journal/summary";
import type { Fidelity, Finding, JournalEvent, JsonObject } from "../journal/types";
import { findPlaceholders, hasSecret, type Redactor, type SecretHit } from "../redact";
import { ROW_WORK, type IngestRow, type SqlExec, type SqlTx } from "./sql";

export interface IngestOptions {
  /** `upload`: whole journals; `stream`: live append to one run. */
  mode: "upload" | "stream";
  /** Live append: every event must belong to this run. */
  onlyRun?: string;
  source: "upload" | "stream" | "import" | "otlp";
  /** Forced fidelity (imports from trace formats are `trace`). */
  fidelity?: Fidelity;
  maxEventsPerRun: number;
  onProgress?: (events: number) => void;
  /** Runs to lock before reading the source (a source that reads the database inside the transaction). */
  lockRuns?: string[];
  /** Replace these runs' stored events with what the source gives (runs derived from spans). */
  replaceRuns?: boolean;
  /** The source gives each run's events together (converted imports): a run is finished as soon as the next begins. */
  contiguousRuns?: boolean;
  /**
   * The source was redacted on an earlier arrival (spans received over OTLP): its
   * placeholders stand for secrets found then, and are reported as such.
   */
  redactedBefore?: boolean;
  /**
   * Row batches the SQLite writer may have queued and still be handed raw lines to derive
   * stored texts from (default WRITER_BACKLOG; -1: this thread derives every one).
   */
  writerBacklog?: number;
}

export interface IngestError {
  line?: number;
  run?: string;
  seq?: number;
  message: string;
  kind: "invalid" | "conflict" | "limit";
}

export interface RunOutcome {
  run: string;
  status: "stored" | "rejected";
  accepted: number;
  duplicates: number;
  nextSeq: number;
  findings: number;
}

export interface IngestResult {
  runs: RunOutcome[];
  errors: IngestError[];
  warnings: IngestError[];
  /** Whether anything was committed. */
  committed: boolean;
}

interface Pending {
  raw: JournalEvent;
  line: number;
  bytes: number;
  /** The line's text, when the writer may derive the stored text from it (ReaderItem.text). */
  text: string | null;
  keysSorted: boolean;
  /** Canonical text of the event without its hash; computed when first needed (rawText). */
  canonicalRaw: string | null;
  stored: JournalEvent;
  /** Canonical text of the stored (redacted) event; null: nothing was redacted, the stored text is the raw one. */
  canonicalStored: string | null;
  redactions: number;
  secrets: SecretHit[];
}

function rawText(p: Pending): string {
  return (p.canonicalRaw ??= canonicalWithoutHash(p.raw, p.keysSorted));
}

function storedText(p: Pending): string {
  return p.canonicalStored ?? rawText(p);
}

/** The stored text of a row handed over before the writer finished it (a resend compares with it). */
function storedTextOfRow(r: IngestRow): string {
  if (!(r.work & ROW_WORK.rawLine)) return r.body;
  return canonicalWithoutHash(JSON.parse(r.body) as JournalEvent, (r.work & ROW_WORK.sortedKeys) !== 0);
}

interface RunRowState extends RunIdentity {
  id: string;
  status: string;
  live: boolean;
  startedAt: string | null;
  startedMs: number | null;
  endedAt: string | null;
  endedMs: number | null;
  lastEventMs: number | null;
  eventCount: number;
  errorCount: number;
  findingCount: number;
  fidelity: string;
  chainStatus: string;
  chainBrokenAt: number | null;
  recorderLastHash: string | null;
  serverLastHash: string | null;
  nextSeq: number;
  maxSeq: number;
  header: string;
  searchText: string;
  tags: string;
  source: string;
  analysis: string | null;
  analyzedSeq: number;
  createdAt: number;
  updatedAt: number;
}

const RUN_COLUMNS = [
  "id",
  "workflow",
  "workflowVersion",
  "agent",
  "agentVersion",
  "environment",
  "initiator",
  "status",
  "live",
  "startedAt",
  "startedMs",
  "endedAt",
  "endedMs",
  "lastEventMs",
  "eventCount",
  "errorCount",
  "findingCount",
  "fidelity",
  "chainStatus",
  "chainBrokenAt",
  "recorderLastHash",
  "serverLastHash",
  "nextSeq",
  "maxSeq",
  "header",
  "searchText",
  "tags",
  "source",
  "analysis",
  "analyzedSeq",
  "createdAt",
  "updatedAt",
] as const satisfies ReadonlyArray<keyof RunRowState>;

interface RunCtx {
  id: string;
  row: RunRowState;
  isNew: boolean;
  /** Every seq stored (before or in this request) → its recorder hash. */
  stored: SeqMap<string | null>;
  /** Stored bodies of the resends in the current input batch (prefetchBodies). */
  storedBodies: Map<number, string>;
  seen: SeqMap<number>;
  inserted: number[];
  buffer: Map<number, Pending>;
  expect: number;
  tailSeq: number;
  tailServerHash: string;
  /** The writer has been given where this run's server chain starts (ROW_WORK.extendsChain). */
  chainSeeded: boolean;
  rechainFrom: number | null;
  reanalyze: boolean;
  analyzer: Analyzer;
  rows: IngestRow[];
  accepted: number;
  duplicates: number;
  rejected: boolean;
  newChainFail: number | null;
  allNewOk: boolean;
  toolOfCall: Map<string, string>;
  terms: Set<string>;
  hasStateEvents: boolean;
  hasVersions: boolean;
}

const FINDINGS_PER_INSERT = 500;
/** Row batches the writer may have queued and still be given raw lines (see writerKeepsUp). */
const WRITER_BACKLOG = 2;
const NO_HITS: SecretHit[] = [];

class FatalIngest extends Error {}

function emptyRow(id: string, opts: IngestOptions, now: number): RunRowState {
  return {
    id,
    workflow: null,
    workflowVersion: null,
    agent: null,
    agentVersion: null,
    environment: null,
    initiator: null,
    status: "incomplete",
    live: opts.mode === "stream",
    startedAt: null,
    startedMs: null,
    endedAt: null,
    endedMs: null,
    lastEventMs: null,
    eventCount: 0,
    errorCount: 0,
    findingCount: 0,
    fidelity: opts.fidelity ?? "partial",
    chainStatus: "unverified",
    chainBrokenAt: null,
    recorderLastHash: null,
    serverLastHash: null,
    nextSeq: 0,
    maxSeq: -1,
    header: "{}",
    searchText: "",
    tags: "",
    source: opts.source,
    analysis: null,
    analyzedSeq: -1,
    createdAt: now,
    updatedAt: now,
  };
}

/** Batches of reader items, or a function giving them once the transaction has begun. */
export type IngestSource =
  AsyncIterable<ReaderItem[]> | ((tx: SqlTx) => AsyncIterable<ReaderItem[]> | Promise<AsyncIterable<ReaderItem[]>>);

export async function ingest(sql: SqlExec, redactor: Redactor, source: IngestSource, opts: IngestOptions): Promise<IngestResult> {
  const errors: IngestError[] = [];
  const warnings: IngestError[] = [];
  let outcomes: RunOutcome[] = [];
  let fatal = false;
  try {
    outcomes = await sql.transaction(async (tx) => {
      const finishesRows = tx.finishesRows;
      const runs = new Map<string, RunCtx>();
      const now = Date.now();
      let total = 0;

      // Rows waiting for the database, across runs: a file of many small runs must not hold
      // every row until the end.
      let pendingRows = 0;

      const reject = (ctx: RunCtx | undefined, e: IngestError) => {
        errors.push(e);
        if (ctx) {
          ctx.rejected = true;
          ctx.buffer.clear();
          pendingRows -= ctx.rows.length;
          ctx.rows = [];
        }
      };

      const openRun = async (id: string): Promise<RunCtx> => {
        let ctx = runs.get(id);
        if (ctx) return ctx;
        if (opts.replaceRuns) {
          await tx.run(`DELETE FROM "Event" WHERE "runId" = ?`, [id]);
          await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [id]);
          await tx.run(
            `UPDATE "Run" SET "eventCount" = 0, "analysis" = NULL, "analyzedSeq" = -1, "nextSeq" = 0, "maxSeq" = -1 WHERE "id" = ?`,
            [id],
          );
        }
        if (sql.dialect === "postgres") {
          // Serialises writers of one run across requests and server instances.
          await tx.run(
            `INSERT INTO "Run" ("id", "createdAt", "updatedAt", "source", "live") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`,
            [id, now, now, opts.source, opts.mode === "stream"],
          );
        }
        const lock = sql.dialect === "postgres" ? " FOR UPDATE" : "";
        const existing = await tx.all<RunRowState>(`SELECT * FROM "Run" WHERE "id" = ?${lock}`, [id]);
        let row: RunRowState;
        let isNew: boolean;
        const stored = new SeqMap<string | null>();
        if (existing.length > 0 && Number(existing[0].eventCount) > 0) {
          row = normaliseRow(existing[0]);
          isNew = false;
          const rows = await tx.all<{ seq: number; recordedHash: string | null }>(
            `SELECT "seq", "recordedHash" FROM "Event" WHERE "runId" = ?`,
            [id],
          );
          for (const r of rows) stored.set(Number(r.seq), r.recordedHash);
        } else {
          row = existing.length > 0 ? { ...emptyRow(id, opts, now), createdAt: Number(existing[0].createdAt) } : emptyRow(id, opts, now);
          isNew = true;
          if (sql.dialect === "sqlite") {
            await tx.run(
              `INSERT INTO "Run" ("id", "createdAt", "updatedAt", "source", "live") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`,
              [id, now, now, opts.source, opts.mode === "stream"],
            );
          }
        }
        let snapshot: AnalyzerSnapshot | undefined;
        if (row.analysis) snapshot = parseJsonExact(row.analysis) as AnalyzerSnapshot;
        ctx = {
          id,
          row,
          isNew,
          stored,
          storedBodies: new Map(),
          seen: new SeqMap(),
          inserted: [],
          buffer: new Map(),
          expect: row.nextSeq,
          tailSeq: row.maxSeq,
          tailServerHash: row.serverLastHash ?? "",
          chainSeeded: false,
          rechainFrom: null,
          reanalyze: false,
          analyzer: createAnalyzer(snapshot),
          rows: [],
          accepted: 0,
          duplicates: 0,
          rejected: false,
          newChainFail: null,
          allNewOk: true,
          toolOfCall: new Map(),
          terms: new Set(row.searchText ? row.searchText.split(" ") : []),
          hasStateEvents: row.fidelity === "replayable",
          hasVersions: row.fidelity === "replayable",
        };
        runs.set(id, ctx);
        return ctx;
      };

      // Whether the writer thread takes on deriving stored texts from raw lines (the costliest
      // work it can do for this thread: a JSON.parse and a canonicalisation an event). Decided
      // per batch by its backlog, so the two threads share the work whatever the machine.
      const backlogLimit = opts.writerBacklog ?? WRITER_BACKLOG;
      let writerKeepsUp = backlogLimit >= 0;
      const flushRows = async (ctx: RunCtx) => {
        if (ctx.rows.length === 0) return;
        await tx.insertEvents(ctx.rows);
        pendingRows -= ctx.rows.length;
        ctx.rows = [];
        writerKeepsUp = tx.backlog() <= backlogLimit;
      };
      const flushAll = async () => {
        for (const c of runs.values()) await flushRows(c);
      };
      const results: RunOutcome[] = [];
      const closed = new Set<string>();

      /** Ends a run's part of the request: what follows a gap, then stored or rejected. */
      const closeRun = async (ctx: RunCtx) => {
        if (!ctx.rejected && ctx.buffer.size > 0) {
          // What is left follows a gap: process it in seq order; the gap is reported.
          const rest = [...ctx.buffer.values()].sort((a, b) => (a.raw.seq as number) - (b.raw.seq as number));
          ctx.buffer.clear();
          let prev = ctx.expect - 1;
          for (const p of rest) {
            const s = p.raw.seq as number;
            if (s > prev + 1) {
              warnings.push({
                line: p.line,
                run: ctx.id,
                seq: s,
                kind: "invalid",
                message: `seq jumps from ${prev} to ${s}: ${s - prev - 1} event(s) missing (stored; reported as journal.gap)`,
              });
            }
            process(ctx, p);
            if (pendingRows >= tx.batchRows) await flushAll();
            prev = s;
          }
        }
        if (ctx.rejected) {
          if (ctx.isNew) await tx.run(`DELETE FROM "Run" WHERE "id" = ?`, [ctx.id]);
          else await deleteSeqs(tx, ctx.id, ctx.inserted);
          results.push({
            run: ctx.id,
            status: "rejected",
            accepted: 0,
            duplicates: 0,
            nextSeq: ctx.row.nextSeq,
            findings: ctx.row.findingCount,
          });
          return;
        }
        await flushRows(ctx);
        await finishRun(tx, ctx, redactor);
        results.push({
          run: ctx.id,
          status: "stored",
          accepted: ctx.accepted,
          duplicates: ctx.duplicates,
          nextSeq: ctx.row.nextSeq,
          findings: ctx.row.findingCount,
        });
      };

      // Synchronous on purpose: an await per event costs more than the work it waits for.
      const process = (ctx: RunCtx, p: Pending) => {
        const s = p.raw.seq as number;
        const prevRecorded = ctx.stored.get(s - 1) ?? undefined;
        const recordedHash = typeof p.raw.hash === "string" ? p.raw.hash : null;
        // On SQLite the writer thread finishes what needs no parsed event (see IngestRow):
        // the stored text, the recorder's link, the server's chain. `verdict` null: the
        // writer verifies, and ingest hears of failures at finishRun.
        let verdict: ChainVerdict | null;
        let body: string;
        let work = 0;
        if (!finishesRows) {
          verdict = verifyEvent(prevRecorded, p.raw, rawText(p));
          body = storedText(p);
        } else if (p.canonicalStored === null) {
          work |= ROW_WORK.storedIsRaw;
          verdict = recordedHash === null || (s !== 0 && prevRecorded === undefined) ? "none" : null;
          if (p.canonicalRaw === null && p.text !== null && writerKeepsUp) {
            body = p.text;
            work |= ROW_WORK.rawLine | (p.keysSorted ? ROW_WORK.sortedKeys : 0);
          } else {
            body = rawText(p);
          }
        } else {
          verdict = verifyEvent(prevRecorded, p.raw, rawText(p));
          body = storedText(p);
        }

        let serverHash: string | null = null;
        let chainSeed: string | null = null;
        if (s > ctx.tailSeq) {
          if (finishesRows) {
            work |= ROW_WORK.extendsChain;
            if (!ctx.chainSeeded) {
              chainSeed = ctx.tailServerHash;
              ctx.chainSeeded = true;
            }
          } else {
            // Both chains have one construction: where the stored event is what arrived and
            // the chains agree so far, the server's link is the recorder's verified one.
            const sameLink = verdict === "ok" && p.canonicalStored === null && ctx.tailServerHash === (s === 0 ? "" : prevRecorded);
            serverHash = sameLink ? (p.raw.hash as string) : chainHashOf(ctx.tailServerHash, body);
            ctx.tailServerHash = serverHash;
          }
          ctx.tailSeq = s;
        } else {
          // A gap filled late: the chain after it is recomputed at the end of the request.
          ctx.rechainFrom = Math.min(ctx.rechainFrom ?? s, s);
        }

        if (s > ctx.row.analyzedSeq) {
          ctx.analyzer.push(p.raw, { chain: verdict ?? "none", secrets: p.secrets });
          ctx.row.analyzedSeq = s;
        } else {
          ctx.reanalyze = true;
        }

        if (verdict === "fail") ctx.newChainFail = Math.min(ctx.newChainFail ?? s, s);
        if (verdict !== null && verdict !== "ok") ctx.allNewOk = false;

        const ev = p.raw;
        if (ev.type === "tool.call" && typeof ev.data.call === "string" && typeof ev.data.tool === "string") {
          ctx.toolOfCall.set(ev.data.call, ev.data.tool);
        }
        const cols = eventColumns(p.stored, (c) => ctx.toolOfCall.get(c));
        const tsMs = msOf(ev.ts);
        pendingRows++;
        ctx.rows.push({
          runId: ctx.id,
          seq: s,
          ts: ev.ts,
          tsMs,
          type: ev.type,
          step: typeof p.stored.step === "string" ? p.stored.step : null,
          parent: typeof ev.parent === "number" ? ev.parent : null,
          ...cols,
          bytes: p.bytes,
          body,
          recordedHash,
          chain: verdict,
          hash: serverHash,
          redactions: p.redactions,
          work,
          prevHash: work === 0 ? null : s === 0 ? "" : (prevRecorded ?? null),
          chainSeed,
        });
        // a new run is removed whole on rejection; an existing one loses what was added
        if (!ctx.isNew) ctx.inserted.push(s);
        ctx.stored.set(s, recordedHash);
        ctx.accepted++;
        updateSummary(ctx, p, tsMs, cols.name);
      };

      /** The stored form of the event already taken at seq s (this request or the database). */
      const earlierBody = async (ctx: RunCtx, s: number): Promise<string | null> => {
        const pending = ctx.buffer.get(s);
        if (pending) return storedText(pending);
        for (const r of ctx.rows) if (r.seq === s) return storedTextOfRow(r);
        const body = ctx.storedBodies.get(s);
        if (body !== undefined) return body;
        const rows = await tx.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [ctx.id, s]);
        return rows[0]?.body ?? null;
      };

      /**
       * Reads, in one query per run, the stored bodies of the events in this input batch
       * that are resends (a whole journal sent again took one query per event: 12 s for
       * 100,000), in whatever order they come.
       */
      const prefetchBodies = async (batch: ReaderItem[]) => {
        const wanted = new Map<RunCtx, number[]>();
        for (const item of batch) {
          if (item.kind !== "event") continue;
          const ctx = runs.get(item.event.run);
          if (!ctx || ctx.rejected || !ctx.stored.has(item.event.seq)) continue;
          let seqs = wanted.get(ctx);
          if (!seqs) wanted.set(ctx, (seqs = []));
          seqs.push(item.event.seq);
        }
        for (const ctx of runs.values()) ctx.storedBodies.clear();
        for (const [ctx, seqs] of wanted) {
          // Ranges, not an IN list: PostgreSQL, before it has statistics for a table just
          // filled, plans a long IN list as a scan of the whole run (17 ms a query at
          // 100,000 events) but a range as an index range. Seqs far apart get ranges of
          // their own, so a shuffled batch never reads much more than it asked for.
          seqs.sort((a, b) => a - b);
          for (let i = 0; i < seqs.length;) {
            let j = i;
            while (j + 1 < seqs.length && seqs[j + 1] - seqs[j] <= 64) j++;
            const rows = await tx.all<{ seq: number; body: string }>(
              `SELECT "seq", "body" FROM "Event" WHERE "runId" = ? AND "seq" >= ? AND "seq" <= ?`,
              [ctx.id, seqs[i], seqs[j]],
            );
            i = j + 1;
            for (const r of rows) ctx.storedBodies.set(Number(r.seq), r.body);
          }
        }
      };

      const drain = (ctx: RunCtx) => {
        for (;;) {
          const p = ctx.buffer.get(ctx.expect);
          if (!p) return;
          ctx.buffer.delete(ctx.expect);
          process(ctx, p);
          ctx.expect++;
          while (ctx.stored.has(ctx.expect)) ctx.expect++;
        }
      };

      for (const id of opts.lockRuns ?? []) await lockRun(tx, sql.dialect, id, now, opts);
      const items = typeof source === "function" ? await source(tx) : source;
      for await (const batch of items) {
        if (runs.size > 0) await prefetchBodies(batch);
        for (const item of batch) {
          if (item.kind === "error") {
            const ctx = item.run
              ? (runs.get(item.run) ?? (opts.onlyRun === item.run || !opts.onlyRun ? await openRunSafe(item.run) : undefined))
              : undefined;
            if (!item.run) fatal = true;
            reject(ctx, { line: item.line, run: item.run, seq: item.seq, message: item.message, kind: "invalid" });
            continue;
          }
          const ev = item.event;
          if (opts.onlyRun !== undefined && ev.run !== opts.onlyRun) {
            fatal = true;
            errors.push({
              line: item.line,
              run: ev.run,
              seq: ev.seq,
              message: `event belongs to run "${safeId(ev.run)}", not to "${opts.onlyRun}" named in the URL`,
              kind: "invalid",
            });
            continue;
          }
          let ctx = runs.get(ev.run);
          if (!ctx && opts.contiguousRuns) {
            // Runs come one after another: the previous one is complete, so finish it now and
            // let its maps go (memory stays that of one run, whatever the file holds).
            if (closed.has(ev.run)) {
              fatal = true;
              errors.push({
                line: item.line,
                run: ev.run,
                seq: ev.seq,
                message: `run "${safeId(ev.run)}" appears again after other runs`,
                kind: "invalid",
              });
              continue;
            }
            for (const prev of runs.values()) {
              await closeRun(prev);
              closed.add(prev.id);
            }
            runs.clear();
          }
          if (!ctx) {
            if (hasSecret(ev.run)) {
              fatal = true;
              errors.push({
                line: item.line,
                seq: ev.seq,
                message: "the run id looks like a secret; choose an id that is not one",
                kind: "invalid",
              });
              continue;
            }
            ctx = await openRun(ev.run);
          }
          if (ctx.rejected) continue;
          total++;
          if (opts.onProgress && total % 5000 === 0) opts.onProgress(total);

          const p: Pending = {
            raw: ev,
            line: item.line,
            bytes: item.bytes,
            text: item.text,
            keysSorted: item.keysSorted,
            canonicalRaw: null,
            stored: ev,
            canonicalStored: null,
            redactions: 0,
            secrets: NO_HITS,
          };
          if (item.mayHoldSecret) {
            const red = redactor.redact(withoutHash(ev));
            if (red.count > 0) {
              p.stored = red.value as JournalEvent;
              p.canonicalStored = canonicalJson(red.value);
              p.redactions = red.count;
              p.secrets = red.hits;
            }
          }
          if (opts.redactedBefore && rawText(p).includes("[redacted:")) {
            const earlier = findPlaceholders(withoutHash(ev));
            p.redactions += earlier.length;
            p.secrets = [...p.secrets, ...earlier];
          }
          const s = ev.seq as number;

          const seenHere = ctx.seen.get(s);
          if (seenHere !== undefined || ctx.stored.has(s)) {
            // A resend: identical (duplicate) or not (conflict), compared on the stored form.
            const same = (await earlierBody(ctx, s)) === storedText(p);
            if (same) {
              ctx.duplicates++;
              continue;
            }
            reject(ctx, {
              line: item.line,
              run: ctx.id,
              seq: s,
              kind: "conflict",
              message:
                seenHere !== undefined
                  ? `seq ${s} was already sent at line ${seenHere} with different content`
                  : `seq ${s} is already stored for run "${ctx.id}" with different content`,
            });
            continue;
          }
          ctx.seen.set(s, item.line);
          if (ctx.row.eventCount + ctx.buffer.size + 1 > opts.maxEventsPerRun) {
            reject(ctx, {
              line: item.line,
              run: ctx.id,
              seq: s,
              kind: "limit",
              message: `run "${ctx.id}" would hold more than ${opts.maxEventsPerRun} events (RETRACE_MAX_EVENTS_PER_RUN)`,
            });
            continue;
          }
          if (s === ctx.expect && ctx.buffer.size === 0) {
            // in order, nothing waiting: the common case skips the reorder buffer
            process(ctx, p);
            ctx.expect++;
            while (ctx.stored.has(ctx.expect)) ctx.expect++;
          } else {
            ctx.buffer.set(s, p);
            if (s === ctx.expect) drain(ctx);
          }
          if (pendingRows >= tx.batchRows) await flushAll();
        }
      }

      async function openRunSafe(id: string): Promise<RunCtx | undefined> {
        try {
          return /^[A-Za-z0-9._:-]{1,128}$/.test(id) && !hasSecret(id) ? await openRun(id) : undefined;
        } catch {
          return undefined;
        }
      }

      if (fatal || (opts.replaceRuns && errors.length > 0)) throw new FatalIngest();

      for (const ctx of runs.values()) await closeRun(ctx);
      if (results.length > 0 && results.every((r) => r.status === "rejected")) throw new FatalIngest();
      return results;
    });
    return { runs: outcomes, errors, warnings, committed: outcomes.some((r) => r.status === "stored") };
  } catch (e) {
    if (e instanceof FatalIngest) {
      return { runs: [], errors, warnings, committed: false };
    }
    throw e;
  }
}

async function lockRun(tx: SqlTx, dialect: SqlExec["dialect"], id: string, now: number, opts: IngestOptions) {
  await tx.run(
    `INSERT INTO "Run" ("id", "createdAt", "updatedAt", "source", "live") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`,
    [id, now, now, opts.source, opts.mode === "stream"],
  );
  if (dialect === "postgres") await tx.all(`SELECT "id" FROM "Run" WHERE "id" = ? FOR UPDATE`, [id]);
}

function safeId(id: string): string {
  return id.length > 128 ? id.slice(0, 128) + "…" : id;
}

async function deleteSeqs(tx: SqlTx, runId: string, seqs: number[]) {
  for (let i = 0; i < seqs.length; i += 500) {
    const chunk = seqs.slice(i, i + 500);
    await tx.run(`DELETE FROM "Event" WHERE "runId" = ? AND "seq" IN (${chunk.map(() => "?").join(", ")})`, [runId, ...chunk]);
  }
}

function normaliseRow(r: RunRowState): RunRowState {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...r,
    live: Boolean(r.live),
    startedMs: n(r.startedMs),
    endedMs: n(r.endedMs),
    lastEventMs: n(r.lastEventMs),
    eventCount: Number(r.eventCount),
    errorCount: Number(r.errorCount),
    findingCount: Number(r.findingCount),
    chainBrokenAt: n(r.chainBrokenAt),
    nextSeq: Number(r.nextSeq),
    maxSeq: Number(r.maxSeq),
    analyzedSeq: Number(r.analyzedSeq),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function updateSummary(ctx: RunCtx, p: Pending, tsMs: number, name: string | null) {
  const row = ctx.row;
  const ev = p.stored;
  const s = ev.seq as number;
  row.eventCount++;
  if (isErrorEvent(ev)) row.errorCount++;
  if (s > row.maxSeq) row.maxSeq = s;
  if (row.lastEventMs === null || tsMs > row.lastEventMs) row.lastEventMs = tsMs;
  if (ev.type === "run.start") {
    const h = runHeaderFromStart(ev);
    row.workflow = h.workflow;
    row.workflowVersion = h.workflowVersion;
    row.agent = h.agent;
    row.agentVersion = h.agentVersion;
    row.environment = h.environment;
    row.initiator = h.initiator;
    row.tags = h.tags.length > 0 ? ` ${h.tags.join(" ")} ` : "";
    row.header = canonicalJson(h.header);
    row.startedAt = ev.ts;
    row.startedMs = tsMs;
    const versions = (ev.data as JsonObject).versions;
    ctx.hasVersions = versions !== undefined && versions !== null && typeof versions === "object";
    if (row.status === "incomplete" && row.live) row.status = "running";
  } else if (row.startedMs === null || (row.startedAt === null && tsMs < row.startedMs)) {
    row.startedMs = tsMs;
  }
  if (ev.type === "run.end") {
    row.status = typeof ev.data.status === "string" ? ev.data.status : "incomplete";
    row.endedAt = ev.ts;
    row.endedMs = tsMs;
    row.live = false;
  } else if (row.live && row.status === "incomplete") {
    row.status = "running";
  }
  if (ev.type === "state") ctx.hasStateEvents = true;
  if (name && (ev.type === "tool.call" || ev.type === "model.request")) ctx.terms.add(name);
}

async function finishRun(tx: SqlTx, ctx: RunCtx, redactor: Redactor) {
  const row = ctx.row;
  if (tx.finishesRows) {
    // what the writer thread found while finishing this run's rows (see process)
    const w = await tx.chainResults(ctx.id);
    for (const seq of w.fails) {
      ctx.analyzer.chainFailed(seq);
      ctx.newChainFail = Math.min(ctx.newChainFail ?? seq, seq);
    }
    if (!w.allOk) ctx.allNewOk = false;
    if (w.tail !== null) ctx.tailServerHash = w.tail;
  }
  // the first missing seq from 0
  let next = row.nextSeq;
  while (ctx.stored.has(next)) next++;
  row.nextSeq = next;

  if (ctx.rechainFrom !== null) await rechain(tx, ctx, ctx.rechainFrom);
  else row.serverLastHash = ctx.tailServerHash || row.serverLastHash;
  row.recorderLastHash = ctx.stored.get(row.maxSeq) ?? row.recorderLastHash;

  if (ctx.rechainFrom !== null) {
    const agg = await tx.all<{ ok: number | string | null; broken: number | string | null }>(
      `SELECT SUM(CASE WHEN "chain" = 'ok' THEN 1 ELSE 0 END) AS ok, MIN(CASE WHEN "chain" = 'fail' THEN "seq" END) AS broken FROM "Event" WHERE "runId" = ?`,
      [ctx.id],
    );
    const ok = Number(agg[0]?.ok ?? 0);
    const broken = agg[0]?.broken === null || agg[0]?.broken === undefined ? null : Number(agg[0].broken);
    row.chainBrokenAt = broken;
    row.chainStatus = broken !== null ? "broken" : ok === row.eventCount && next === row.maxSeq + 1 ? "verified" : "unverified";
  } else {
    const wasVerifiedOrNew = ctx.isNew || row.chainStatus === "verified";
    if (ctx.newChainFail !== null) {
      row.chainBrokenAt = row.chainBrokenAt === null ? ctx.newChainFail : Math.min(row.chainBrokenAt, ctx.newChainFail);
    }
    row.chainStatus =
      row.chainBrokenAt !== null ? "broken" : wasVerifiedOrNew && ctx.allNewOk && next === row.maxSeq + 1 ? "verified" : "unverified";
  }

  if (row.fidelity !== "trace") row.fidelity = ctx.hasVersions && ctx.hasStateEvents ? "replayable" : "partial";
  row.searchText = [...ctx.terms].filter(Boolean).join(" ");

  let findings: Finding[];
  if (ctx.reanalyze) findings = await reanalyze(tx, ctx);
  else findings = ctx.analyzer.findings();
  // The analyzer holds raw values (the rebuilt state, write-call arguments): redact before
  // storing. A state that held a secret is marked, so that analysis continued from it does
  // not check hashes against placeholders (AnalyzerSnapshot.stateRedacted).
  const snapshot = ctx.analyzer.snapshot();
  if (redactor.redact(snapshot.state).count > 0) snapshot.stateRedacted = true;
  row.analysis = canonicalJson(redactor.redact(snapshot).value);
  row.findingCount = findings.length;
  await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [ctx.id]);
  // Many rows a statement: a journal broken at every event has a finding an event, and one
  // statement each took 10.7 s for 100,000 (5 parameters a row stays under SQLite's limit).
  for (let i = 0; i < findings.length; i += FINDINGS_PER_INSERT) {
    const chunk = findings.slice(i, i + FINDINGS_PER_INSERT);
    const params: Array<string | number> = [];
    for (const f of chunk) params.push(ctx.id, f.rule, f.seq, f.severity, redactor.redactString(f.message));
    await tx.run(
      `INSERT INTO "Finding" ("runId", "rule", "seq", "severity", "message") VALUES ${chunk.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
      params,
    );
  }
  row.updatedAt = Date.now();
  const cols = RUN_COLUMNS.filter((c) => c !== "id");
  await tx.run(`UPDATE "Run" SET ${cols.map((c) => `"${c}" = ?`).join(", ")} WHERE "id" = ?`, [...cols.map((c) => row[c]), ctx.id]);
}

/** Recomputes the server chain (and the recorder verdicts it can) from `from` on. */
async function rechain(tx: SqlTx, ctx: RunCtx, from: number) {
  const prev = await tx.all<{ hash: string | null; recordedHash: string | null; seq: number }>(
    `SELECT "hash", "recordedHash", "seq" FROM "Event" WHERE "runId" = ? AND "seq" < ? ORDER BY "seq" DESC LIMIT 1`,
    [ctx.id, from],
  );
  let hash = prev[0]?.hash ?? "";
  let prevSeq = prev.length > 0 ? Number(prev[0].seq) : -1;
  let prevRecorded: string | null = prev[0]?.recordedHash ?? null;
  const rows = await tx.all<{ seq: number; body: string; recordedHash: string | null; chain: string; redactions: number }>(
    `SELECT "seq", "body", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? AND "seq" >= ? ORDER BY "seq"`,
    [ctx.id, from],
  );
  for (const r of rows) {
    const seq = Number(r.seq);
    hash = chainHashOf(hash, r.body);
    let chain = r.chain;
    // A verdict of "none" for want of a predecessor can be given now, if the stored body
    // is what arrived (nothing was redacted from it).
    if (chain === "none" && r.recordedHash && Number(r.redactions) === 0) {
      const p = seq === 0 ? "" : prevSeq === seq - 1 ? prevRecorded : null;
      if (p !== null) chain = chainHashOf(p, r.body) === r.recordedHash ? "ok" : "fail";
    }
    await tx.run(`UPDATE "Event" SET "hash" = ?, "chain" = ? WHERE "runId" = ? AND "seq" = ?`, [hash, chain, ctx.id, seq]);
    prevSeq = seq;
    prevRecorded = r.recordedHash;
  }
  ctx.row.serverLastHash = hash;
}

/**
 * Re-folds the whole stored run (after a gap was filled late). Stored events are
 * redacted, so secret findings come from what redaction replaced at ingest.
 */
async function reanalyze(tx: SqlTx, ctx: RunCtx): Promise<Finding[]> {
  const analyzer = createAnalyzer();
  const rows = await tx.all<{ seq: number; body: string; recordedHash: string | null; chain: string; redactions: number }>(
    `SELECT "seq", "body", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
    [ctx.id],
  );
  const secretSeqs = new Set<number>();
  let last = -1;
  for (const r of rows) {
    const ev = parseJsonExact(r.body) as JournalEvent;
    if (r.recordedHash) ev.hash = r.recordedHash;
    // stored events are redacted: one that held a secret is not what the recorder hashed
    analyzer.push(ev, { chain: r.chain === "ok" || r.chain === "fail" ? r.chain : "none", redacted: Number(r.redactions) > 0 });
    if (Number(r.redactions) > 0) secretSeqs.add(Number(r.seq));
    last = Number(r.seq);
  }
  ctx.analyzer = analyzer;
  ctx.row.analyzedSeq = last;
  const findings = analyzer.findings().filter((f) => f.rule !== "secret.exposed");
  for (const seq of secretSeqs) {
    findings.push({
      rule: "secret.exposed",
      seq: seq as Finding["seq"],
      severity: "error",
      message: "a secret was found in this event and redacted at ingest",
    });
  }
  return findings.sort((a, b) => a.seq - b.seq || a.rule.localeCompare(b.rule));
}
