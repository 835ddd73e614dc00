import "server-only";
/**
 * A small SQL executor over the raw drivers, for the hot paths Prisma is too slow for
 * (bulk event inserts, event windows). Prisma still owns the schema and migrations; SQL
 * here uses Prisma's table and column names, double-quoted, with `?` placeholders.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { sqliteFileFromUrl, pgConfigFromUrl } from "../../prisma/adapters";

export type SqlParam = string | number | bigint | boolean | null;

export interface EventRow {
  runId: string;
  seq: number;
  ts: string;
  tsMs: number;
  type: string;
  step: string | null;
  parent: number | null;
  call: string | null;
  name: string | null;
  status: string | null;
  latencyMs: number | null;
  tokens: number | null;
  bytes: number;
  body: string;
  recordedHash: string | null;
  chain: string;
  hash: string | null;
  redactions: number;
}

const EVENT_COLUMNS = [
  "runId", "seq", "ts", "tsMs", "type", "step", "parent", "call", "name", "status",
  "latencyMs", "tokens", "bytes", "body", "recordedHash", "chain", "hash", "redactions",
] as const satisfies ReadonlyArray<keyof EventRow>;

export interface SqlTx {
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  run(sql: string, params?: SqlParam[]): Promise<number>;
  insertEvents(rows: EventRow[]): Promise<void>;
}

export interface SqlExec {
  dialect: "sqlite" | "postgres";
  /** Reads committed data (never sees another request's open transaction). */
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL: `?` → `$n`. SQL text in this project never holds a literal `?`. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

/**
 * Takes the write lock without blocking the event loop: SQLite's own busy handler sleeps
 * the thread, which would freeze every request in this process (and deadlock against a
 * second connection in the same process). Another process may hold the lock: retry.
 */
async function beginImmediate(db: Database.Database, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      db.exec("BEGIN IMMEDIATE");
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || Date.now() - start > timeoutMs) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

const sqliteParam = (p: SqlParam) => (typeof p === "boolean" ? (p ? 1 : 0) : p);

export function openSqlite(url: string): SqlExec {
  const file = sqliteFileFromUrl(url);
  const open = () => {
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // short: the write lock is awaited asynchronously in beginImmediate
    db.pragma("busy_timeout = 50");
    db.pragma("foreign_keys = ON");
    return db;
  };
  const writer = open();
  const reader = open();
  // Multi-row INSERTs: one call into the driver per 64 rows instead of per row.
  const MULTI = 64;
  const insertSql = (n: number) =>
    `INSERT INTO "Event" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES ${Array.from({ length: n }, () => `(${EVENT_COLUMNS.map(() => "?").join(", ")})`).join(", ")}`;
  const insertOne = writer.prepare(insertSql(1));
  const insertMany = writer.prepare(insertSql(MULTI));
  const cache = new Map<string, Database.Statement>();
  const prep = (db: Database.Database, sql: string) => {
    const key = (db === writer ? "w" : "r") + sql;
    let st = cache.get(key);
    if (!st) {
      st = db.prepare(sql);
      cache.set(key, st);
    }
    return st;
  };
  // One connection writes; requests in this process take turns (SQLite has one writer anyway).
  let queue: Promise<unknown> = Promise.resolve();
  const tx: SqlTx = {
    async all<T>(sql: string, params: SqlParam[] = []) {
      return prep(writer, sql).all(...params.map(sqliteParam)) as T[];
    },
    async run(sql: string, params: SqlParam[] = []) {
      return prep(writer, sql).run(...params.map(sqliteParam)).changes;
    },
    async insertEvents(rows: EventRow[]) {
      let i = 0;
      const params: SqlParam[] = new Array(MULTI * EVENT_COLUMNS.length);
      for (; i + MULTI <= rows.length; i += MULTI) {
        let k = 0;
        for (let j = i; j < i + MULTI; j++) {
          const r = rows[j];
          for (const c of EVENT_COLUMNS) params[k++] = sqliteParam(r[c]);
        }
        insertMany.run(params);
      }
      for (; i < rows.length; i++) insertOne.run(EVENT_COLUMNS.map((c) => sqliteParam(rows[i][c])));
    },
  };
  return {
    dialect: "sqlite",
    async all<T>(sql: string, params: SqlParam[] = []) {
      const st = prep(reader, sql);
      return (st.reader ? st.all(...params.map(sqliteParam)) : (st.run(...params.map(sqliteParam)), [])) as T[];
    },
    transaction<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      const next = queue.then(async () => {
        await beginImmediate(writer);
        try {
          const result = await fn(tx);
          writer.exec("COMMIT");
          return result;
        } catch (e) {
          if (writer.inTransaction) writer.exec("ROLLBACK");
          throw e;
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      writer.close();
      reader.close();
    },
  };
}

const PG_BATCH = 500;

export function openPostgres(url: string): SqlExec {
  const { Client: _client, ...config } = pgConfigFromUrl(url);
  void _client;
  const pool = new pg.Pool(config);
  const toPg = (p: SqlParam) => (typeof p === "bigint" ? p.toString() : p);
  const insertSql = new Map<number, string>();
  const insertFor = (n: number) => {
    let s = insertSql.get(n);
    if (!s) {
      const cols = EVENT_COLUMNS.length;
      const values: string[] = [];
      for (let r = 0; r < n; r++) values.push(`(${EVENT_COLUMNS.map((_, c) => `$${r * cols + c + 1}`).join(", ")})`);
      s = `INSERT INTO "Event" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES ${values.join(", ")}`;
      insertSql.set(n, s);
    }
    return s;
  };
  return {
    dialect: "postgres",
    async all<T>(sql: string, params: SqlParam[] = []) {
      const r = await pool.query(numbered(sql), params.map(toPg));
      return r.rows as T[];
    },
    async transaction<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const tx: SqlTx = {
        async all<R>(sql: string, params: SqlParam[] = []) {
          return (await client.query(numbered(sql), params.map(toPg))).rows as R[];
        },
        async run(sql: string, params: SqlParam[] = []) {
          return (await client.query(numbered(sql), params.map(toPg))).rowCount ?? 0;
        },
        async insertEvents(rows: EventRow[]) {
          for (let i = 0; i < rows.length; i += PG_BATCH) {
            const batch = rows.slice(i, i + PG_BATCH);
            const params: SqlParam[] = [];
            for (const r of batch) for (const c of EVENT_COLUMNS) params.push(r[c]);
            await client.query({ text: insertFor(batch.length), values: params.map(toPg) });
          }
        },
      };
      try {
        await client.query("BEGIN");
        const result = await fn(tx);
        await client.query("COMMIT");
        return result;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
