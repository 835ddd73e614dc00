import "server-only";
/**
 * The PostgreSQL side of sql.ts, in its own module so that only a process configured for
 * PostgreSQL loads pg (db.ts opens it through lazySqlExec).
 */
import pg from "pg";
import { once } from "node:events";
import { finished } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { pgConnectionFromUrl } from "../../prisma/urls";
import { storableText } from "./storable-text";
import { EVENT_COLUMNS, type IngestRow, type SqlExec, type SqlParam, type SqlTx } from "./sql";

/** PostgreSQL: `?` → `$n`. SQL text in this project never holds a literal `?`. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

/** COPY text format: backslash, tab, newline and carriage return escaped. */
function esc(v: string): string {
  return /[\\\t\n\r]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r") : v;
}
/**
 * The stored body is canonical JSON, which writes every control character as an escape:
 * of COPY's special characters only the backslash can occur in it.
 */
const escBody = (v: string) => (v.includes("\\") ? v.replace(/\\/g, "\\\\") : v);
/** A nullable text column: \N is NULL. */
const escN = (v: string | null) => (v === null ? "\\N" : esc(v));
/** A nullable number column (JS's shortest round-trip text, which float8in reads back exactly). */
const numN = (v: number | null) => (v === null ? "\\N" : String(v));

/**
 * Finished rows as COPY text, one buffer: each column written out by name in
 * EVENT_COLUMNS' order (COPY_COLUMNS, checked against it when this module loads), since a
 * loop over column names made every property read a keyed one.
 */
function copyText(rows: IngestRow[]): Buffer {
  let text = "";
  for (const r of rows) {
    if (r.work !== 0 || r.chain === null)
      throw new Error("an unfinished row reached PostgreSQL (ingest finishes rows when finishesRows is false)");
    text +=
      esc(r.runId) +
      "\t" +
      esc(r.ts) +
      "\t" +
      esc(r.type) +
      "\t" +
      escN(r.step) +
      "\t" +
      escN(r.call) +
      "\t" +
      escN(r.name) +
      "\t" +
      escN(r.status) +
      "\t" +
      escBody(r.body) +
      "\t" +
      escN(r.recordedHash) +
      "\t" +
      // this process's own: a verdict word and hex digits
      r.chain +
      "\t" +
      (r.hash ?? "\\N") +
      "\t" +
      r.seq +
      "\t" +
      r.tsMs +
      "\t" +
      numN(r.parent) +
      "\t" +
      numN(r.latencyMs) +
      "\t" +
      numN(r.tokens) +
      "\t" +
      r.bytes +
      "\t" +
      r.redactions +
      "\n";
  }
  return Buffer.from(text, "utf8");
}
const COPY_COLUMNS = "runId ts type step call name status body recordedHash chain hash seq tsMs parent latencyMs tokens bytes redactions";
if (EVENT_COLUMNS.join(" ") !== COPY_COLUMNS) throw new Error("sql-postgres.ts: copyText no longer writes EVENT_COLUMNS in order");

/** The COPY open on a transaction's connection; `failed` once the server refused it. */
interface Copy {
  stream: ReturnType<typeof copyFrom>;
  done: Promise<void>;
  failed: Error | null;
  batches: number;
  rows: number;
}

/**
 * Rows one COPY statement takes at most. Event's run check is per statement (migration
 * 20261213000000_event_run_set_check) over the statement's transition table, which the
 * server keeps in work_mem and past it in a temporary file: a COPY of a whole
 * million-event import would write about 600 MB there (and fail where temp_file_limit is
 * set); 65,536 rows is about 40 MB, for one more round trip per 65,536 rows.
 */
export const COPY_MAX_ROWS = 65_536;

function openCopy(client: pg.PoolClient, sql: string): Copy {
  const stream = client.query(copyFrom(sql));
  const c: Copy = { stream, done: finished(stream), failed: null, batches: 0, rows: 0 };
  c.done.catch((e: unknown) => {
    c.failed = e instanceof Error ? e : new Error(String(e));
  });
  return c;
}

export function openPostgres(url: string): SqlExec {
  const pool = new pg.Pool(pgConnectionFromUrl(url));
  // An idle connection the server closed (restart, failover, an admin terminating it) is
  // already dropped by the pool and the next query opens a new one; without a listener
  // the 'error' event would take the whole process down.
  pool.on("error", (e) => console.warn(`retrace: an idle PostgreSQL connection was closed (${e.message}); the next query reconnects`));
  // a NUL in text is refused by PostgreSQL: stored as U+FFFD, as SQLite stores it (storable-text.ts)
  const toPg = (p: SqlParam) => (typeof p === "bigint" ? p.toString() : typeof p === "string" ? storableText(p) : p);
  const copySql = `COPY "Event" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) FROM STDIN`;
  return {
    dialect: "postgres",
    async all<T>(sql: string, params: SqlParam[] = []) {
      const r = await pool.query(numbered(sql), params.map(toPg));
      return r.rows as T[];
    },
    async transaction<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // Event rows go out on one COPY that stays open across batches (and runs) until
      // another statement needs the connection or it took COPY_MAX_ROWS: one round trip
      // per 65,536 rows instead of one per batch, and the server parses and inserts while
      // this side makes the next rows. A batch is written to the socket at once; when the server falls behind, the
      // socket's buffer fills and insertEvents waits for it to drain, so at most about one
      // batch waits in this process (a million-event import held 2.5 GB when nothing did).
      let copy: Copy | null = null;
      const endCopy = async () => {
        if (!copy) return;
        const c = copy;
        copy = null;
        if (c.failed) throw c.failed;
        c.stream.end();
        await c.done;
      };
      const tx: SqlTx = {
        async all<R>(sql: string, params: SqlParam[] = []) {
          await endCopy();
          return (await client.query(numbered(sql), params.map(toPg))).rows as R[];
        },
        async run(sql: string, params: SqlParam[] = []) {
          await endCopy();
          return (await client.query(numbered(sql), params.map(toPg))).rowCount ?? 0;
        },
        finishesRows: false,
        backlog: () => 0,
        // rows written to the socket soon after they are made: fewer of them outlive a
        // young-generation collection than at 1,000 (2% fewer instructions an import)
        batchRows: 250,
        chainResults: () => Promise.reject(new Error("PostgreSQL rows are finished by ingest")),
        async insertEvents(rows: IngestRow[]) {
          if (rows.length === 0) return;
          const text = copyText(rows);
          if (copy?.failed) throw copy.failed;
          if (copy && copy.rows >= COPY_MAX_ROWS) await endCopy();
          const c = (copy ??= openCopy(client, copySql));
          c.rows += rows.length;
          if (!c.stream.write(text)) await Promise.race([once(c.stream, "drain"), c.done]);
          // The server's answers are read on the event loop, which a source read
          // synchronously (the CLI's file) never reaches while the socket keeps draining: a
          // refused row would surface only after the whole input. A turn now and then.
          if (++c.batches % 64 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        },
      };
      try {
        await client.query("BEGIN");
        const result = await fn(tx);
        await endCopy();
        await client.query("COMMIT");
        return result;
      } catch (e) {
        if (copy) {
          // CopyFail: the server ends the COPY with an error, then the transaction rolls back
          const c: Copy = copy;
          copy = null;
          c.stream.destroy();
          await c.done.catch(() => undefined);
        }
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
