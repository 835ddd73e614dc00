import "server-only";
/**
 * Reads for the run viewer: the columnar summary of a run's events (never a payload),
 * one event with the events that belong with it and the run state at it, a payload
 * search, and a stream of "this run changed" for live runs.
 */
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { encodeSummaryColumns, type SummaryColumns } from "../graph/summary";
import { SummaryBinaryBuilder } from "../graph/summary-binary";
import { bigintAsDigits } from "../journal/exact-json";
import { parseJsonExact } from "../journal/parse-line";
import type { JournalEvent } from "../journal/types";
import { INITIAL_STATE_FOLD, stepState, UNKNOWN_HASH, type StateFold } from "../semantics/state";
import { EMPTY_STATE, stateHash, type RunState } from "../state";
import type { FindingItem, RunChange, RunStatus, SearchAnswer, StateAt } from "../view/api-types";
import { subscribeRunChanges } from "./changes";
import type { Db } from "./db";
import type { BuiltSummary } from "./ingest/types";
import { inspectVerdicts } from "./inspect-verdicts";
import { findingsOf, isRunId, queryText, runVersion } from "./queries";

export const summaryQuery = z.object({
  after: z.coerce.number().int().min(-1).default(-1),
  /** `binary`: the packed columns of lib/graph/summary-binary.ts, which the run page reads */
  format: z.enum(["json", "binary"]).default("json"),
});

export const inspectQuery = z.object({
  seq: z.coerce.number().int().min(0),
  state: z.enum(["0", "1"]).default("0"),
});

export const searchQuery = z.object({
  q: queryText(200).pipe(z.string().trim().min(1)),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** the page after this seq (the previous page's `next`) */
  after: z.coerce.number().int().min(-1).default(-1),
});

async function runExists(db: Db, runId: string): Promise<boolean> {
  if (!isRunId(runId)) return false;
  const r = await runVersion(db, runId);
  return !!r && r.eventCount > 0;
}

const SUMMARY_COLUMNS = [
  "seq",
  "tsMs",
  "type",
  "step",
  "parent",
  "call",
  "name",
  "status",
  "latencyMs",
  "tokens",
  "chain",
  "redactions",
] as const;

/**
 * Every event's columns after `after`, in seq order, as the JSON text of a SummaryDto
 * (lib/graph/summary.ts); null when the run does not exist. The database builds each
 * column as one JSON array (json_group_array / json_agg), about twice as fast for
 * 100,000 events as reading 100,000 row objects; they are then dictionary-encoded, which
 * makes the answer a third smaller and quicker to compress and to parse.
 */
export async function getRunSummaryText(db: Db, runId: string, after: number): Promise<string | null> {
  if (!isRunId(runId)) return null;
  const pg = db.sql.dialect === "postgres";
  const agg = (c: string) =>
    pg ? `COALESCE(json_agg("${c}" ORDER BY "seq"), '[]'::json)::text AS "${c}"` : `json_group_array("${c}") AS "${c}"`;
  // SQLite aggregates in the order of the ordered subquery; PostgreSQL is told the order
  const from = pg
    ? `FROM "Event" WHERE "runId" = ? AND "seq" > ?`
    : `FROM (SELECT * FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq")`;
  const rows = await db.sql.all<Record<(typeof SUMMARY_COLUMNS)[number], string>>(`SELECT ${SUMMARY_COLUMNS.map(agg).join(", ")} ${from}`, [
    runId,
    after,
  ]);
  const r = rows[0];
  const cols = Object.fromEntries(SUMMARY_COLUMNS.map((c) => [c, JSON.parse(r?.[c] ?? "[]") as unknown[]])) as unknown as SummaryColumns;
  if (cols.seq.length === 0 && !(await runExists(db, runId))) return null;
  // PostgreSQL hands Float columns to JSON as they are; ms are whole numbers on the wire
  cols.tsMs = cols.tsMs.map((t) => Math.round(Number(t)));
  return JSON.stringify(encodeSummaryColumns(runId, cols));
}

/**
 * The same columns in the binary form (lib/graph/summary-binary.ts), which the run page
 * reads. On SQLite the rows are read as arrays straight into the packed columns (no JSON
 * built or parsed, no object per row); on PostgreSQL a page of rows at a time.
 */
export async function getRunSummaryBinary(db: Db, runId: string, after: number, expected = 4096): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!isRunId(runId)) return null;
  const each = db.sql.eachRow;
  if (db.sql.dialect === "sqlite" && each) {
    const b = new SummaryBinaryBuilder(runId, expected);
    each.call(
      db.sql,
      `SELECT ${SUMMARY_COLUMNS.map((c) => `"${c}"`).join(", ")} FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq"`,
      [runId, after],
      (r) =>
        b.push(
          Number(r[0]),
          Number(r[1]),
          r[2] as string,
          r[3] as string | null,
          r[4] === null ? null : Number(r[4]),
          r[5] as string | null,
          r[6] as string | null,
          r[7] as string | null,
          r[8] === null ? null : Number(r[8]),
          r[9] === null ? null : Number(r[9]),
          r[10] as string,
          Number(r[11]),
        ),
    );
    if (b.n === 0 && !(await runExists(db, runId))) return null;
    return b.finish();
  }
  // PostgreSQL: pages of rows by seq range, so no more than a page of row objects is held.
  // Ranges, not LIMIT: right after an import the planner's statistics are stale and a
  // `seq > ? ORDER BY seq LIMIT` page sorted every later row (a million rows: 31 s).
  const b = new SummaryBinaryBuilder(runId, expected);
  const cols = SUMMARY_COLUMNS.map((c) => `"${c}"`).join(", ");
  for (let lo = after; ;) {
    const rows = await db.sql.all<SummaryRowOf>(
      `SELECT ${cols} FROM "Event" WHERE "runId" = ? AND "seq" > ? AND "seq" <= ? ORDER BY "seq"`,
      [runId, lo, lo + PG_SUMMARY_PAGE],
    );
    for (const r of rows)
      b.push(
        Number(r.seq),
        Math.round(Number(r.tsMs)),
        r.type,
        r.step,
        r.parent === null ? null : Number(r.parent),
        r.call,
        r.name,
        r.status,
        r.latencyMs === null ? null : Number(r.latencyMs),
        r.tokens === null ? null : Number(r.tokens),
        r.chain,
        Number(r.redactions),
      );
    if (rows.length > 0) {
      lo += PG_SUMMARY_PAGE;
      continue;
    }
    // an empty range: skip the gap to the next stored seq, if any
    const next = await db.sql.all<{ seq: number | string | null }>(
      `SELECT MIN("seq") AS "seq" FROM "Event" WHERE "runId" = ? AND "seq" > ?`,
      [runId, lo],
    );
    if (next[0]?.seq === null || next[0]?.seq === undefined) break;
    lo = Number(next[0].seq) - 1;
  }
  if (b.n === 0 && !(await runExists(db, runId))) return null;
  return b.finish();
}

const PG_SUMMARY_PAGE = 20_000;
interface SummaryRowOf {
  seq: number | string;
  tsMs: number | string;
  type: string;
  step: string | null;
  parent: number | string | null;
  call: string | null;
  name: string | null;
  status: string | null;
  latencyMs: number | string | null;
  tokens: number | string | null;
  chain: string;
  redactions: number | string;
}

export interface PackedSummary {
  gzip: Uint8Array<ArrayBuffer>;
}

/** Runs at least this long keep their built summary in the database (RunSummaryBlob). */
export const STORED_SUMMARY_EVENTS = 5000;

interface CachedSummary {
  key: string;
  body: Promise<string | PackedSummary | null>;
}
const summaryCache: CachedSummary[] = [];
const SUMMARY_CACHE_SIZE = 8;

const versionOf = (run: { updatedAt: number; eventCount: number; droppedAt: number }) =>
  `${run.updatedAt}|${run.eventCount}|${run.droppedAt}`;

function pack(bytes: Uint8Array<ArrayBuffer>): PackedSummary {
  // level 1: a million events' columns (~32 MB) shrink about 7× in a third of a second
  return { gzip: new Uint8Array(gzipSync(bytes, { level: 1 })) };
}

/**
 * The packed binary summary of a whole run at `version`: the stored one when it was built
 * at that version, else built from the events (and stored, for long runs). Building reads
 * every event row of the run (seconds at a million); reading the stored one, one blob.
 */
async function packedSummary(db: Db, runId: string, version: string, eventCount: number): Promise<PackedSummary | null> {
  const stored = await db.sql.all<{ version: string; bytes: Uint8Array }>(
    `SELECT "version", "bytes" FROM "RunSummaryBlob" WHERE "runId" = ?`,
    [runId],
  );
  if (stored[0] && stored[0].version === version) {
    return { gzip: new Uint8Array(stored[0].bytes) };
  }
  // sized for the run at once: no column grown by copying
  const bytes = await getRunSummaryBinary(db, runId, -1, eventCount);
  if (bytes === null) return null;
  const packed = pack(bytes);
  // a summary built from rows newer than `version` is stored under the older version:
  // it is then rebuilt once more, never served for a version it does not match
  if (eventCount >= STORED_SUMMARY_EVENTS) await storeSummaryBlob(db, runId, version, packed);
  return packed;
}

async function storeSummaryBlob(db: Db, runId: string, version: string, packed: PackedSummary): Promise<void> {
  await db.sql
    .transaction((tx) =>
      tx.run(
        `INSERT INTO "RunSummaryBlob" ("runId", "version", "bytes") VALUES (?, ?, ?) ON CONFLICT ("runId") DO UPDATE SET "version" = excluded."version", "bytes" = excluded."bytes"`,
        [runId, version, packed.gzip],
      ),
    )
    .catch(() => undefined); // the run was deleted meanwhile, or the database is read-only: serve it anyway
}

/**
 * Stores (for long runs) and caches the summary ingest built as it wrote a new run
 * (IngestOptions.onSummary), at the version the run had when that transaction committed,
 * instead of reading every row back: a later change to the run makes it stale, as any
 * stored summary. False when the run is too short to keep one.
 */
export async function storeBuiltSummary(db: Db, runId: string, built: BuiltSummary): Promise<boolean> {
  if (built.eventCount < STORED_SUMMARY_EVENTS) return false;
  const version = versionOf(built);
  const packed = pack(built.bytes);
  await storeSummaryBlob(db, runId, version, packed);
  const key = `${runId}|binary|${version}`;
  const old = summaryCache.findIndex((c) => c.key.startsWith(`${runId}|binary|`));
  if (old >= 0) summaryCache.splice(old, 1);
  summaryCache.push({ key, body: Promise.resolve(packed) });
  if (summaryCache.length > SUMMARY_CACHE_SIZE) summaryCache.shift();
  return true;
}

/**
 * Builds and stores the run's summary now when the run is long enough to keep one (after
 * an import, so its first opening reads one blob); false when it is not.
 */
export async function prepareStoredSummary(db: Db, runId: string): Promise<boolean> {
  const run = await runVersion(db, runId);
  if (!run || run.eventCount < STORED_SUMMARY_EVENTS) return false;
  return (await getRunSummaryCached(db, runId, -1, "binary")) !== null;
}

/**
 * The summary, and for whole runs cached per process until the run changes: a run looked
 * at again is served without reading its events, and a request that comes while the same
 * summary is being built waits for that build instead of starting another. JSON text
 * (`next start` compresses it) or the packed binary form; `after` reads only later events.
 */
export function getRunSummaryCached(db: Db, runId: string, after: number): Promise<string | null>;
export function getRunSummaryCached(db: Db, runId: string, after: number, format: "binary"): Promise<PackedSummary | null>;
export async function getRunSummaryCached(
  db: Db,
  runId: string,
  after: number,
  format: "json" | "binary" = "json",
): Promise<string | PackedSummary | null> {
  if (!isRunId(runId)) return null;
  const run = await runVersion(db, runId);
  if (!run || run.eventCount === 0) return null;
  if (after >= 0) {
    if (format === "json") return getRunSummaryText(db, runId, after);
    const bytes = await getRunSummaryBinary(db, runId, after);
    return bytes && pack(bytes);
  }
  // a payload drop leaves updatedAt as it was (retention counts from it): its time is in the version
  const version = versionOf(run);
  const key = `${runId}|${format}|${version}`;
  const hit = summaryCache.find((c) => c.key === key);
  if (hit) return hit.body;
  const old = summaryCache.findIndex((c) => c.key.startsWith(`${runId}|${format}|`));
  if (old >= 0) summaryCache.splice(old, 1);
  const entry: CachedSummary = {
    key,
    body: format === "json" ? getRunSummaryText(db, runId, -1) : packedSummary(db, runId, version, run.eventCount),
  };
  summaryCache.push(entry);
  if (summaryCache.length > SUMMARY_CACHE_SIZE) summaryCache.shift();
  // a failed build is not kept
  entry.body.catch(() => {
    const i = summaryCache.indexOf(entry);
    if (i >= 0) summaryCache.splice(i, 1);
  });
  return entry.body;
}

interface BodyRow {
  seq: number;
  type: string;
  call: string | null;
  name: string | null;
  parent: number | null;
  body: string;
  hash: string | null;
  recordedHash: string | null;
  chain: string;
  redactions: number;
}

const BODY_COLUMNS = `"seq", "type", "call", "name", "parent", "body", "hash", "recordedHash", "chain", "redactions"`;

/**
 * One StoredEvent (lib/view/api-types.ts) as JSON text, for the events and inspect routes:
 * stored bodies are exact JSON (integers beyond 2^53 included) and are never re-parsed
 * here. The server chain hash is added as the event's `hash`.
 */
export function storedEventJson(r: Pick<BodyRow, "seq" | "body" | "hash" | "recordedHash" | "chain" | "redactions">): string {
  const body = r.hash ? `${r.body.slice(0, -1)},"hash":${JSON.stringify(r.hash)}}` : r.body;
  return `{"seq":${Number(r.seq)},"chain":${JSON.stringify(r.chain)},"recordedHash":${JSON.stringify(r.recordedHash)},"redactions":${Number(r.redactions)},"event":${body}}`;
}

const MAX_RELATED = 24;

function dataOf(r: BodyRow): Record<string, unknown> {
  try {
    const e = JSON.parse(r.body) as { data?: Record<string, unknown> };
    return e.data ?? {};
  } catch {
    return {};
  }
}

/**
 * Which events belong with this one: the other side of a call (by `call`), the approval's
 * request or decisions and the call it gates, the context a model request sent, the parent.
 */
async function relatedSeqs(db: Db, runId: string, row: BodyRow): Promise<number[]> {
  const seqs = new Set<number>();
  const calls = new Set<string>();
  if (row.call) calls.add(row.call);
  if (row.parent !== null) seqs.add(Number(row.parent));
  if (row.type.startsWith("approval.") && row.name) {
    const pair = await db.sql.all<{ seq: number; call: string | null }>(
      `SELECT "seq", "call" FROM "Event" WHERE "runId" = ? AND "name" = ? AND "type" IN ('approval.request', 'approval.decision') ORDER BY "seq" LIMIT ?`,
      [runId, row.name, MAX_RELATED],
    );
    for (const p of pair) {
      seqs.add(Number(p.seq));
      if (p.call) calls.add(p.call);
    }
  }
  for (const call of calls) {
    const same = await db.sql.all<{ seq: number; type: string; name: string | null }>(
      `SELECT "seq", "type", "name" FROM "Event" WHERE "runId" = ? AND "call" = ? ORDER BY "seq" LIMIT ?`,
      [runId, call, MAX_RELATED],
    );
    for (const s of same) {
      seqs.add(Number(s.seq));
      // a gated tool call: bring its approval's decisions too
      if (s.type === "approval.request" && s.name && !row.type.startsWith("approval.")) {
        const decisions = await db.sql.all<{ seq: number }>(
          `SELECT "seq" FROM "Event" WHERE "runId" = ? AND "name" = ? AND "type" = 'approval.decision' ORDER BY "seq" LIMIT ?`,
          [runId, s.name, MAX_RELATED],
        );
        for (const d of decisions) seqs.add(Number(d.seq));
      }
    }
  }
  // the context a model request sent (for a response: the one its request sent)
  if (row.type === "model.request" || row.type === "model.response") {
    const request = row.type === "model.request" ? row : null;
    let ctx = request ? dataOf(request).context : undefined;
    if (ctx === undefined && row.call) {
      const req = await db.sql.all<BodyRow>(
        `SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "call" = ? AND "type" = 'model.request' LIMIT 1`,
        [runId, row.call],
      );
      if (req[0]) ctx = dataOf(req[0]).context;
    }
    if (typeof ctx === "number" && Number.isInteger(ctx)) seqs.add(ctx);
  }
  seqs.delete(Number(row.seq));
  return [...seqs].sort((a, b) => a - b).slice(0, MAX_RELATED);
}

/**
 * Rebuilds the run state at `seq` from the last checkpoint at or before it, with the run
 * semantics' state fold (lib/semantics/state.ts), so `hashAtSeq` is the hash in force that
 * analysis compares an approver's state with (for a `state` event without a recorded hash,
 * the rebuilt state's hash).
 */
export async function stateAt(db: Db, rawRunId: string, seq: number): Promise<StateAt> {
  const runId = isRunId(rawRunId) ? rawRunId : ""; // names no run: the state of nothing
  const cp = await db.sql.all<{ seq: number | null }>(
    `SELECT MAX("seq") AS "seq" FROM "Event" WHERE "runId" = ? AND "type" = 'checkpoint' AND "seq" <= ?`,
    [runId, seq],
  );
  const fromCheckpoint = cp[0]?.seq === null || cp[0]?.seq === undefined ? null : Number(cp[0].seq);
  const rows = await db.sql.all<{ seq: number; body: string; redactions: number }>(
    `SELECT "seq", "body", "redactions" FROM "Event" WHERE "runId" = ? AND "type" IN ('state', 'checkpoint') AND "seq" >= ? AND "seq" <= ? ORDER BY "seq"`,
    [runId, fromCheckpoint ?? -1, seq],
  );
  let fold: StateFold = INITIAL_STATE_FOLD;
  let before: RunState = EMPTY_STATE;
  let changedAt: number | null = null;
  let recordedHash: string | null = null;
  let error: string | null = null;
  for (const r of rows) {
    const event = parseJsonExact(r.body) as JournalEvent;
    // a secret replaced at ingest: the state is not the one the recorder hashed until an
    // unredacted set or checkpoint replaces it whole
    const { next, verdict } = stepState(fold, event, Number(r.redactions) > 0);
    before = fold.state;
    fold = next;
    changedAt = Number(r.seq);
    recordedHash = verdict.recorded;
    error = verdict.error;
  }
  const rebuiltHash = stateHash(fold.state);
  return {
    before,
    after: fold.state,
    changedAt,
    fromCheckpoint,
    recordedHash,
    rebuiltHash,
    hashAtSeq: fold.hashInForce === UNKNOWN_HASH ? (recordedHash ?? rebuiltHash) : fold.hashInForce,
    error,
    redacted: fold.redacted,
  };
}

/**
 * One event with what the inspector shows beside it, as JSON text. The run state is
 * rebuilt for state, checkpoint and approval events, and for any event when asked.
 */
export async function inspectEvent(db: Db, runId: string, seq: number, withState: boolean): Promise<string | null> {
  if (!isRunId(runId)) return null;
  const rows = await db.sql.all<BodyRow>(`SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [runId, seq]);
  const row = rows[0];
  if (!row) return null;
  const related = await relatedSeqs(db, runId, row);
  const relatedRows = related.length
    ? await db.sql.all<BodyRow>(
        `SELECT ${BODY_COLUMNS} FROM "Event" WHERE "runId" = ? AND "seq" IN (${related.map(() => "?").join(", ")}) ORDER BY "seq"`,
        [runId, ...related],
      )
    : [];
  const needsState = withState || row.type === "state" || row.type === "checkpoint" || row.type.startsWith("approval.");
  const state = needsState ? await stateAt(db, runId, seq) : null;
  const findingItems: FindingItem[] = await findingsOf(db, runId, seq);
  // the verdicts the panes show (lib/server/inspect-verdicts.ts); a document id may be any JSON
  const verdicts = JSON.stringify(await inspectVerdicts(db, runId, seq, row.type), bigintAsDigits);
  return `{"seq":${seq},"event":${storedEventJson(row)},"related":[${relatedRows.map(storedEventJson).join(",")}],"state":${state ? JSON.stringify(state, bigintAsDigits) : "null"},"findings":${JSON.stringify(findingItems)},"verdicts":${verdicts}}`;
}

/**
 * Seqs after `after` of events whose stored (redacted) text contains `q`,
 * case-insensitively: a page of at most `limit` in seq order, and the cursor of the next
 * page. The key (runId, seq) orders the scan, so a page reads from its cursor on, never
 * the pages before it.
 */
export async function searchEvents(db: Db, runId: string, q: string, limit: number, after = -1): Promise<SearchAnswer> {
  if (!isRunId(runId) || q.includes("\u0000")) return { seqs: [], truncated: false, next: null };
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const like = db.sql.dialect === "postgres" ? "ILIKE" : "LIKE";
  const rows = await db.sql.all<{ seq: number }>(
    `SELECT "seq" FROM "Event" WHERE "runId" = ? AND "seq" > ? AND "body" ${like} ? ESCAPE '\\' ORDER BY "seq" LIMIT ?`,
    [runId, after, pattern, limit + 1],
  );
  const seqs = rows.slice(0, limit).map((r) => Number(r.seq));
  const truncated = rows.length > limit;
  return { seqs, truncated, next: truncated ? seqs[seqs.length - 1] : null };
}

async function runChange(db: Db, runId: string): Promise<RunChange | null> {
  if (!isRunId(runId)) return null;
  const rows = await db.sql.all<{
    eventCount: number | string;
    maxSeq: number | string;
    nextSeq: number | string;
    status: string;
    live: boolean | number;
    updatedAt: number | string;
  }>(`SELECT "eventCount", "maxSeq", "nextSeq", "status", "live", "updatedAt" FROM "Run" WHERE "id" = ?`, [runId]);
  const r = rows[0];
  return r
    ? {
        eventCount: Number(r.eventCount),
        maxSeq: Number(r.maxSeq),
        nextSeq: Number(r.nextSeq),
        status: r.status as RunStatus,
        live: Boolean(r.live),
        updatedAt: Number(r.updatedAt),
      }
    : null;
}

const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events for one run: `change` with the run's counters whenever any server
 * instance stores events for it (changes.ts: NOTIFY on PostgreSQL, polling on SQLite),
 * and a comment line now and then so proxies keep the connection open.
 */
export function runChangesStream(db: Db, runId: string, signal: AbortSignal): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let unsubscribe: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    unsubscribe?.();
    if (heartbeat) clearInterval(heartbeat);
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(enc.encode(text));
        } catch {
          stop();
        }
      };
      const sendChange = async () => {
        const change = await runChange(db, runId).catch(() => null);
        if (change) send(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
      };
      signal.addEventListener("abort", () => {
        stop();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      });
      send(`retry: 2000\n\n`);
      unsubscribe = await subscribeRunChanges(db, (ids) => {
        if (ids === null || ids.includes(runId)) void sendChange();
      });
      if (closed) unsubscribe();
      heartbeat = setInterval(() => send(`: keep-alive\n\n`), HEARTBEAT_MS);
      // the state now, so a client that missed changes while reconnecting catches up
      await sendChange();
    },
    cancel() {
      stop();
    },
  });
}
