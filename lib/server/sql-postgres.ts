import "server-only";
/**
 * The PostgreSQL side of sql.ts, in its own module so that only a process configured for
 * PostgreSQL loads pg (db.ts opens it through lazySqlExec).
 */
import pg from "pg";
import { finished } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { pgConnectionFromUrl } from "../../prisma/urls";
import { EVENT_COLUMNS, type IngestRow, type SqlExec, type SqlParam, type SqlTx } from "./sql";

/** PostgreSQL: `?` → `$n`. SQL text in this project never holds a literal `?`. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

/** COPY text format: backslash, tab, newline and carriage return escaped; \N is NULL. */
function copyValue(v: SqlParam): string {
  if (v === null) return "\\N";
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v !== "string") return String(v);
  return /[\\\t\n\r]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r") : v;
}

export function openPostgres(url: string): SqlExec {
  const pool = new pg.Pool(pgConnectionFromUrl(url));
  // An idle connection the server closed (restart, failover, an admin terminating it) is
  // already dropped by the pool and the next query opens a new one; without a listener
  // the 'error' event would take the whole process down.
  pool.on("error", (e) => console.warn(`retrace: an idle PostgreSQL connection was closed (${e.message}); the next query reconnects`));
  const toPg = (p: SqlParam) => (typeof p === "bigint" ? p.toString() : p);
  /** COPY batches sent and not yet done, at most (each up to batchRows rows of text). */
  const COPIES_IN_FLIGHT = 4;
  const copySql = `COPY "Event" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) FROM STDIN`;
  return {
    dialect: "postgres",
    async all<T>(sql: string, params: SqlParam[] = []) {
      const r = await pool.query(numbered(sql), params.map(toPg));
      return r.rows as T[];
    },
    async transaction<T>(fn: (t: SqlTx) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // Event batches go out as COPY without this side waiting for each: they run one after
      // another on the connection (a chain, so pg never sees two queries at once), and the
      // next awaited statement waits for the chain and surfaces any failure.
      let chain: Promise<unknown> = Promise.resolve();
      const inFlight: Array<Promise<unknown>> = [];
      const settle = async () => {
        await chain;
      };
      const tx: SqlTx = {
        async all<R>(sql: string, params: SqlParam[] = []) {
          await settle();
          return (await client.query(numbered(sql), params.map(toPg))).rows as R[];
        },
        async run(sql: string, params: SqlParam[] = []) {
          await settle();
          return (await client.query(numbered(sql), params.map(toPg))).rowCount ?? 0;
        },
        finishesRows: false,
        backlog: () => 0,
        // one COPY a batch: each is a round trip
        batchRows: 1000,
        chainResults: () => Promise.reject(new Error("PostgreSQL rows are finished by ingest")),
        async insertEvents(rows: IngestRow[]) {
          if (rows.length === 0) return;
          let text = "";
          for (const r of rows) {
            if (r.work !== 0 || r.chain === null)
              throw new Error("an unfinished row reached PostgreSQL (ingest finishes rows when finishesRows is false)");
            let line = "";
            for (let i = 0; i < EVENT_COLUMNS.length; i++) line += (i ? "\t" : "") + copyValue(r[EVENT_COLUMNS[i]]);
            text += line + "\n";
          }
          chain = chain.then(() => {
            const stream = client.query(copyFrom(copySql));
            const done = finished(stream);
            stream.end(text);
            return done;
          });
          chain.catch(() => undefined);
          // Bounded: when the server copies slower than ingest makes rows, unawaited batches
          // (their text) piled up for the whole import (2.5 GB at a million events).
          inFlight.push(chain);
          while (inFlight.length > COPIES_IN_FLIGHT) await inFlight.shift()!.catch(() => undefined);
        },
      };
      try {
        await client.query("BEGIN");
        const result = await fn(tx);
        await settle();
        await client.query("COMMIT");
        return result;
      } catch (e) {
        await chain.catch(() => undefined);
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
