import "server-only";
/**
 * A small SQL executor over the raw drivers, for the hot paths Prisma is too slow for
 * (bulk event inserts, event windows). Prisma still owns the schema and migrations; SQL
 * here uses Prisma's table and column names, double-quoted, with `?` placeholders.
 */
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { sqliteFileFromUrl } from "../../prisma/urls";
import type { SummaryRow } from "../graph/summary";

export type SqlParam = string | number | bigint | boolean | null;

/** An Event table row: the summary columns the viewer reads, plus what only storage needs. */
export interface EventRow extends SummaryRow {
  runId: string;
  ts: string;
  bytes: number;
  body: string;
  recordedHash: string | null;
  hash: string | null;
}

/**
 * A row as ingest hands it over. On SQLite the writer thread may finish it (`work`, see
 * sqlite-writer.worker.mjs): derive the stored text from the raw line, verify the
 * recorder's link (`chain` null) and extend the server's chain (`hash`), which balances
 * the per-event work across the two threads of a two-core machine. PostgreSQL gets rows
 * finished on the request's thread (`work` 0).
 */
export interface IngestRow extends Omit<EventRow, "chain"> {
  /** null: the writer verifies the recorder's link against `prevHash` (the stored text is what arrived). */
  chain: string | null;
  /** ROW_WORK flags. */
  work: number;
  /** The recorded hash of seq − 1 ("" at seq 0, null when unknown), for verifying and the shared link. */
  prevHash: string | null;
  /** Where the server's chain starts in this transaction (set on a run's first row that extends it). */
  chainSeed: string | null;
}

export const ROW_WORK = {
  /** `body` is the raw line: the stored text is the canonical JSON of its event without `hash`. */
  rawLine: 1,
  /** ...whose keys are already in canonical order (JSON.stringify writes it). */
  sortedKeys: 2,
  /** The row extends the server's chain: the writer computes its `hash`. */
  extendsChain: 4,
  /** Nothing was redacted: the stored text is the one the recorder hashed. */
  storedIsRaw: 8,
} as const;

/** The server chain the writer extended in this transaction, per run (SqlTx.chainResults). */
export interface WriterChain {
  /** The last server hash computed, null when no row extended the chain. */
  tail: string | null;
  /** Seqs whose recorder link the writer found broken. */
  fails: number[];
  /** Whether every link the writer verified was ok. */
  allOk: boolean;
}

// Packing order for the writer thread (packRows): every string column, then every number
// column, each followed by what only the writer reads. Column order means nothing to
// INSERT or COPY, so the stored columns' order is the table's too.
const STRING_COLUMNS = [
  "runId",
  "ts",
  "type",
  "step",
  "call",
  "name",
  "status",
  "body",
  "recordedHash",
  "chain",
  "hash",
] as const satisfies ReadonlyArray<keyof EventRow>;
const NUMBER_COLUMNS = ["seq", "tsMs", "parent", "latencyMs", "tokens", "bytes", "redactions"] as const satisfies ReadonlyArray<
  keyof EventRow
>;
export const EVENT_COLUMNS = [...STRING_COLUMNS, ...NUMBER_COLUMNS];
const WORK_STRINGS = ["prevHash", "chainSeed"] as const satisfies ReadonlyArray<keyof IngestRow>;
const WORK_NUMBERS = ["work"] as const satisfies ReadonlyArray<keyof IngestRow>;

export interface SqlTx {
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  run(sql: string, params?: SqlParam[]): Promise<number>;
  insertEvents(rows: IngestRow[]): Promise<void>;
  /** Whether insertEvents finishes rows itself (`work`); false: every row must come finished. */
  readonly finishesRows: boolean;
  /** What the writer found and computed for a run's rows in this transaction (finishesRows only). */
  chainResults(runId: string): Promise<WriterChain>;
  /** Row batches handed to insertEvents that the database has not taken yet. */
  backlog(): number;
  /** How many rows ingest hands to insertEvents at a time. */
  readonly batchRows: number;
}

export interface SqlExec {
  dialect: "sqlite" | "postgres";
  /** Reads committed data (never sees another request's open transaction). */
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const sqliteParam = (p: SqlParam) => (typeof p === "boolean" ? (p ? 1 : 0) : p);

export function openSqlite(url: string): SqlExec {
  const file = sqliteFileFromUrl(url);
  const reader = new Database(file);
  reader.pragma("journal_mode = WAL");
  reader.pragma("busy_timeout = 5000");
  const cache = new Map<string, Database.Statement>();
  const prep = (sql: string) => {
    let st = cache.get(sql);
    if (!st) {
      st = reader.prepare(sql);
      cache.set(sql, st);
    }
    return st;
  };
  const writer = new SqliteWriter(file);
  // One write connection per process; requests take turns (SQLite has one writer anyway).
  let queue: Promise<unknown> = Promise.resolve();
  const tx: SqlTx = {
    all: <T>(sql: string, params: SqlParam[] = []) => writer.call<T[]>({ op: "all", sql, params: params.map(sqliteParam) }),
    run: (sql: string, params: SqlParam[] = []) => writer.call<number>({ op: "run", sql, params: params.map(sqliteParam) }),
    finishesRows: true,
    backlog: () => writer.backlog(),
    // 150 rows of a typical event pack into ~100 KB: under V8's large-object size, so
    // neither thread maps fresh pages for every batch (page faults of a 100,000-event
    // import 92k → 56k)
    batchRows: 150,
    chainResults: (runId: string) => writer.call<WriterChain>({ op: "chain", runId }),
    async insertEvents(rows: IngestRow[]) {
      if (rows.length === 0) return;
      // The writer thread inserts while this thread prepares the next rows; at most a few
      // batches wait for it (backpressure), and a failure fails the next awaited call.
      await writer.sendBounded(packRows(rows));
    },
  };
  return {
    dialect: "sqlite",
    async all<T>(sql: string, params: SqlParam[] = []) {
      const st = prep(sql);
      return (st.reader ? st.all(...params.map(sqliteParam)) : (st.run(...params.map(sqliteParam)), [])) as T[];
    },
    transaction<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      const next = queue.then(async () => {
        await writer.call({ op: "begin" });
        try {
          const result = await fn(tx);
          await writer.call({ op: "commit" });
          return result;
        } catch (e) {
          await writer.call({ op: "rollback" }).catch(() => undefined);
          throw e;
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue.catch(() => undefined);
      await writer.close();
      reader.close();
    },
  };
}

type WriterRequest =
  | { op: "begin" | "commit" | "rollback" | "close" }
  | { op: "all" | "run"; sql: string; params: SqlParam[] }
  | { op: "chain"; runId: string }
  | PackedRows;

/**
 * Rows for the writer thread in a form that is cheap to post: structured clone costs per
 * value, so every string of the batch travels as one string (with lengths) and every
 * number in one Float64Array (NaN for null), instead of 18 values a row. Two strings that
 * almost every row repeats are not sent again: the run id (the batch's) and the
 * predecessor's recorded hash when it is the previous row's (lengths from PACKED).
 */
interface PackedRows {
  op: "insert";
  n: number;
  runId: string;
  text: string;
  lengths: Int32Array<ArrayBuffer>;
  numbers: Float64Array<ArrayBuffer>;
}

// string lengths that stand for a string not sent (the worker reads them from workerData)
const PACKED = { nullString: -1, sameRun: -2, previousHash: -3 } as const;

function packRows(rows: IngestRow[]): PackedRows {
  const n = rows.length;
  const runId = rows[0].runId;
  const lengths = new Int32Array(n * (STRING_COLUMNS.length + WORK_STRINGS.length));
  const numbers = new Float64Array(n * (NUMBER_COLUMNS.length + WORK_NUMBERS.length));
  // joined once at the end: `+=` would make a rope of a million pieces per 100,000 rows
  const parts: string[] = [];
  let li = 0;
  let ni = 0;
  const str = (v: string | null) => {
    if (v === null) lengths[li++] = PACKED.nullString;
    else {
      lengths[li++] = v.length;
      parts.push(v);
    }
  };
  const num = (v: number | null) => {
    numbers[ni++] = v === null ? NaN : v;
  };
  // Field by field in the order of STRING_COLUMNS + WORK_STRINGS and NUMBER_COLUMNS +
  // WORK_NUMBERS (the stored-columns test fails on a mismatch): a loop over column names
  // would make every access keyed.
  let previous: IngestRow | null = null;
  for (const r of rows) {
    if (r.runId === runId) lengths[li++] = PACKED.sameRun;
    else str(r.runId);
    str(r.ts);
    str(r.type);
    str(r.step);
    str(r.call);
    str(r.name);
    str(r.status);
    str(r.body);
    str(r.recordedHash);
    str(r.chain);
    str(r.hash);
    if (r.prevHash !== null && previous !== null && r.prevHash === previous.recordedHash) lengths[li++] = PACKED.previousHash;
    else str(r.prevHash);
    str(r.chainSeed);
    num(r.seq);
    num(r.tsMs);
    num(r.parent);
    num(r.latencyMs);
    num(r.tokens);
    num(r.bytes);
    num(r.redactions);
    num(r.work);
    previous = r;
  }
  return { op: "insert", n, runId, text: parts.join(""), lengths, numbers };
}

/** The main-thread side of lib/server/sqlite-writer.worker.mjs. */
class SqliteWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private closed = false;
  /** [0]: row batches the writer has taken (inserted or failed), shared with it. */
  private readonly taken = new Int32Array(new SharedArrayBuffer(4));

  constructor(file: string) {
    this.worker = new Worker(new URL("./sqlite-writer.worker.mjs", import.meta.url), {
      workerData: {
        file,
        eventColumns: EVENT_COLUMNS,
        stringCount: STRING_COLUMNS.length,
        workStrings: WORK_STRINGS.length,
        workNumbers: WORK_NUMBERS.length,
        rowWork: ROW_WORK,
        packed: PACKED,
        taken: this.taken,
      },
    });
    this.worker.unref();
    this.worker.on("message", (m: { id: number; ok: boolean; result?: unknown; error?: { message: string; code?: string } }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.result);
      else w.reject(Object.assign(new Error(m.error?.message ?? "SQLite write failed"), { code: m.error?.code }));
    });
    this.worker.on("error", (e) => {
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    });
  }

  private inflight: Promise<unknown>[] = [];
  private static readonly MAX_INFLIGHT = 16;
  private sent = 0;

  /**
   * Row batches sent and not yet taken by the writer, read from a counter the writer
   * increments: its answers would only tell once this thread turns to its event loop,
   * which a busy ingest seldom does (it awaits microtasks), so counting answers saw a
   * backlog where the writer had long been idle and kept the work on this thread.
   */
  backlog(): number {
    return this.sent - Atomics.load(this.taken, 0);
  }

  /** Sends without waiting for the answer unless MAX_INFLIGHT requests are still unanswered. */
  async sendBounded(req: WriterRequest): Promise<void> {
    if (req.op === "insert") this.sent++;
    const answered = this.call(req).catch(() => undefined);
    this.inflight.push(answered);
    while (this.inflight.length > SqliteWriter.MAX_INFLIGHT) await this.inflight.shift();
  }

  call<T = unknown>(req: WriterRequest): Promise<T> {
    if (this.closed) return Promise.reject(new Error("database is closed"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (req.op === "insert") this.worker.postMessage({ id, ...req }, [req.lengths.buffer, req.numbers.buffer]);
      else this.worker.postMessage({ id, ...req });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.call({ op: "close" }).catch(() => undefined);
    this.closed = true;
    await this.worker.terminate();
  }
}

/**
 * A SqlExec whose driver loads on first use: a process that only ever talks to SQLite (the
 * CLI, the embedded default) never loads pg, and one that does pays for it once.
 */
export function lazySqlExec(dialect: SqlExec["dialect"], open: () => Promise<SqlExec>): SqlExec {
  let opened: Promise<SqlExec> | null = null;
  const exec = () => (opened ??= open());
  return {
    dialect,
    all: async <T>(sql: string, params?: SqlParam[]) => (await exec()).all<T>(sql, params),
    transaction: async <T>(fn: (tx: SqlTx) => Promise<T>) => (await exec()).transaction(fn),
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
