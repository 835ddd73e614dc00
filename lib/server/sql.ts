import "server-only";
/**
 * A small SQL executor over the raw drivers, for the hot paths Prisma is too slow for
 * (bulk event inserts, event windows). Prisma still owns the schema and migrations; SQL
 * here uses Prisma's table and column names, double-quoted, with `?` placeholders.
 */
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { sqliteFileFromUrl } from "../../prisma/urls";
import { flatRows, packRows, type IngestRow, type PackedRows } from "./sqlite-rows";
import { storableText } from "./storable-text";
import { eventInserter, statementCache } from "./sqlite-statements";

export { EVENT_COLUMNS, ROW_WORK, type EventRow, type IngestRow } from "./sqlite-rows";

export type SqlParam = string | number | bigint | boolean | null | Uint8Array;

/** The server chain the writer extended in this transaction, per run (SqlTx.chainResults). */
export interface WriterChain {
  /** The last server hash computed, null when no row extended the chain. */
  tail: string | null;
  /** Seqs whose recorder link the writer found broken. */
  fails: number[];
  /** Whether every link the writer verified was ok. */
  allOk: boolean;
}

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

export interface TransactionOptions {
  /**
   * The request is small and already in memory (a live append): on SQLite, run it on this
   * thread's own write connection, synchronously, instead of one writer-thread round trip
   * per statement. Ignored elsewhere.
   */
  small?: boolean;
}

export interface SqlExec {
  dialect: "sqlite" | "postgres";
  /** Reads committed data (never sees another request's open transaction). */
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  transaction<T>(fn: (tx: SqlTx) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * SQLite only: each result row as an array, without an object per row (a million-row
   * read builds its answer as it goes: the run summary).
   */
  eachRow?(sql: string, params: SqlParam[], fn: (row: unknown[]) => void): void;
  close(): Promise<void>;
}

const sqliteParam = (p: SqlParam) =>
  typeof p === "string"
    ? storableText(p)
    : typeof p === "boolean"
      ? p
        ? 1
        : 0
      : p instanceof Uint8Array && !Buffer.isBuffer(p)
        ? Buffer.from(p.buffer, p.byteOffset, p.byteLength)
        : p;

export function openSqlite(url: string, opts: { walIdleMs?: number } = {}): SqlExec {
  const file = sqliteFileFromUrl(url);
  const reader = new Database(file);
  reader.pragma("journal_mode = WAL");
  reader.pragma("busy_timeout = 5000");
  const prep = statementCache(reader);
  const rawStatements = new Map<string, Database.Statement>();
  const writer = new SqliteWriter(file, opts.walIdleMs ?? WAL_IDLE_MS);
  let small: SmallWriter | undefined;
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
    eachRow(sql: string, params: SqlParam[], fn: (row: unknown[]) => void) {
      // a statement of its own: raw mode would change what the cached one answers
      const st = (rawStatements.get(sql) ?? rawStatements.set(sql, reader.prepare(sql).raw(true)).get(sql))!;
      for (const row of st.iterate(...params.map(sqliteParam))) fn(row as unknown[]);
    },
    transaction<T>(fn: (t: SqlTx) => Promise<T>, opts?: TransactionOptions): Promise<T> {
      const next = queue.then(async () => {
        if (opts?.small) {
          const own = (small ??= smallWriter(file, writer));
          if (own.begin()) return own.run(fn);
          // another process holds the write lock: wait for it on the writer thread, whose
          // busy timeout blocks only that thread
        }
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
      small?.close();
      reader.close();
    },
  };
}

/**
 * Small transactions on the request's thread: a second write connection, used only inside
 * the process's transaction queue (so never at the same time as the writer thread's). A
 * live append is a handful of statements; on the writer thread each is a round trip that
 * waits for this thread's event loop, so under load an append held the queue for tens of
 * milliseconds and the appends behind it waited for every one of them (`bench:load`).
 * Rows are finished here (`finishesRows` false). Its busy timeout is 0: when another
 * process holds the write lock, `begin` says so and the writer thread waits instead.
 */
interface SmallWriter {
  begin(): boolean;
  run<T>(fn: (t: SqlTx) => Promise<T>): Promise<T>;
  close(): void;
}

function smallWriter(file: string, writer: SqliteWriter): SmallWriter {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 0");
  db.pragma("foreign_keys = ON");
  // the writer thread checkpoints, told what was written here
  db.pragma("wal_autocheckpoint = 0");
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  const prep = statementCache(db);
  const insert = eventInserter(db);
  let written = 0;
  const tx: SqlTx = {
    all: async <T>(sql: string, params: SqlParam[] = []) => {
      const st = prep(sql);
      return (st.reader ? st.all(...params.map(sqliteParam)) : (st.run(...params.map(sqliteParam)), [])) as T[];
    },
    run: async (sql: string, params: SqlParam[] = []) => prep(sql).run(...params.map(sqliteParam)).changes,
    finishesRows: false,
    backlog: () => 0,
    batchRows: 150,
    chainResults: () => Promise.reject(new Error("rows of a small transaction are finished on the request's thread")),
    async insertEvents(rows: IngestRow[]) {
      if (rows.length === 0) return;
      insert(flatRows(rows), rows.length);
      for (const r of rows) written += r.body.length * 2;
    },
  };
  return {
    begin() {
      try {
        db.exec("BEGIN IMMEDIATE");
        return true;
      } catch (e) {
        if (e && typeof e === "object" && "code" in e && String(e.code).startsWith("SQLITE_BUSY")) return false;
        throw e;
      }
    },
    async run<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      written = 4096;
      try {
        const result = await fn(tx);
        db.exec("COMMIT");
        writer.written(written);
        return result;
      } catch (e) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw e;
      }
    },
    close: () => db.close(),
  };
}

export type WriterRequest =
  | { op: "begin" | "commit" | "rollback" | "close" }
  | { op: "all" | "run"; sql: string; params: SqlParam[] }
  | { op: "chain"; runId: string }
  | { op: "written"; bytes: number }
  | PackedRows;

/** What the writer thread is started with. */
export interface WriterData {
  file: string;
  /** [0]: row batches the writer has taken (inserted or failed). */
  taken: Int32Array<SharedArrayBuffer>;
  /** SQLite's journal_size_limit, and the bytes written after which a checkpoint empties the WAL. */
  walSizeLimit: number;
  /** Quiet time after a write before the WAL is emptied (a truncating checkpoint). */
  walIdleMs: number;
}

/** The WAL is cut back to this size when it is reset, and emptied once this much was written. */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** Quiet time after a write before the writer thread empties the WAL (config walIdleMs, RETRACE_WAL_IDLE_MS). */
export const WAL_IDLE_MS = 2000;

/** The main-thread side of sqlite-writer.worker.ts. */
class SqliteWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private closed = false;
  /** [0]: row batches the writer has taken (inserted or failed), shared with it. */
  private readonly taken = new Int32Array(new SharedArrayBuffer(4));

  constructor(file: string, walIdleMs: number) {
    const workerData: WriterData = { file, taken: this.taken, walSizeLimit: WAL_SIZE_LIMIT, walIdleMs };
    // sqlite-writer.worker.ts bundled (scripts/build-sqlite-writer.mjs: run by postinstall,
    // next.config.js and the test setup; the CLI bundles it beside itself). Written inline:
    // Next's bundler follows `new Worker(new URL(…))` and bundles the thread's code.
    this.worker = new Worker(new URL("./generated/sqlite-writer.worker.mjs", import.meta.url), { workerData });
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

  /** Bytes committed by another connection of this process: the writer checkpoints them. */
  written(bytes: number): void {
    this.call({ op: "written", bytes }).catch(() => undefined);
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
    transaction: async <T>(fn: (tx: SqlTx) => Promise<T>, opts?: TransactionOptions) => (await exec()).transaction(fn, opts),
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
