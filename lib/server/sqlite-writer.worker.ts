// The SQLite write connection, on its own thread (started by sql.ts). Bundled by esbuild
// into generated/sqlite-writer.worker.mjs (scripts/build-sqlite-writer.mjs), because a
// worker thread loads JavaScript files as they are. The main thread sends operations in
// order; each is answered in order. Inserts are sent without waiting for their answer, so
// parsing, hashing and analysis on the main thread overlap with the B-tree writes here; an
// insert that fails poisons the transaction until its rollback.
import fs from "node:fs";
import { setImmediate } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { createWriterChains } from "./ingest/finish-on-writer";
import { useNativeSha256 } from "./native-sha256";
import { eventInserter, statementCache } from "./sqlite-statements";
import { unpackRows } from "./sqlite-rows";
import type { WriterData, WriterRequest } from "./sql";

useNativeSha256();
const data = workerData as WriterData;
const port = parentPort!;

const db = new Database(data.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
// Blocking here blocks only this thread, never the server's event loop.
db.pragma("busy_timeout = 30000");
db.pragma("foreign_keys = ON");
// 64 MiB: a 100,000-event transaction does not spill pages to the WAL before its commit.
db.pragma("cache_size = -65536");
// Checkpoints (copying the WAL into the database file) run after a commit is answered,
// not inside it, so an upload's response does not wait for them. The next operation on
// this thread waits instead, which it would anyway. Like SQLite's own auto-checkpoint, it
// waits for about 1000 pages of WAL (estimated from what was written) so that small live
// appends do not each pay for one.
db.pragma("wal_autocheckpoint = 0");
// A WAL that was reset is cut back to this size (without it, the file keeps its largest size).
db.pragma(`journal_size_limit = ${data.walSizeLimit}`);
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
let writtenSinceCheckpoint = 0;
let writtenSinceTruncate = 0;
let lastTruncate = 0;
const walFile = `${data.file}-wal`;
/** The WAL file's size: statements that update rows in place (a settle) are not counted above. */
function walBytes(): number {
  try {
    return fs.statSync(walFile).size;
  } catch {
    return 0;
  }
}
function checkpointSoon() {
  idleSoon();
  const wal = walBytes();
  const large = wal >= data.walSizeLimit || writtenSinceTruncate >= data.walSizeLimit;
  if (writtenSinceCheckpoint < CHECKPOINT_BYTES && !large) return;
  setImmediate(() => {
    if (!db.open || db.inTransaction) return; // the next commit asks again
    try {
      // After a large write the WAL is emptied at once (tried once a second at most while
      // readers keep it busy); otherwise copied, and emptied when idle.
      if (large && Date.now() - lastTruncate >= 1000) {
        lastTruncate = Date.now();
        truncateWal();
      } else db.pragma("wal_checkpoint(PASSIVE)");
      writtenSinceCheckpoint = 0;
    } catch {
      // a failed checkpoint loses nothing (the WAL keeps the data); the next commit retries
    }
  });
}

/**
 * A passive checkpoint never shrinks the WAL, and while readers keep it in use the WAL is
 * never restarted either: it grew to gigabytes under steady load. A truncating checkpoint
 * empties it; it waits for readers briefly at most (the next commit or idle period retries).
 */
function truncateWal() {
  db.pragma("busy_timeout = 200");
  try {
    const [r] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    if (r?.busy === 0) writtenSinceTruncate = 0;
  } finally {
    db.pragma("busy_timeout = 30000");
  }
}

let idleTimer: ReturnType<typeof setTimeout> | null = null;
/** Once nothing was written for WAL_IDLE_MS, the WAL is emptied. */
function idleSoon() {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (!db.open || db.inTransaction) return idleSoon();
    try {
      truncateWal();
      writtenSinceCheckpoint = 0;
    } catch {
      // as above: retried after the next write
    }
  }, data.walIdleMs);
  idleTimer.unref();
}

const insert = eventInserter(db);
const prep = statementCache(db);

let failed: Error | null = null;
// Finishing rows (ingest/finish-on-writer.ts): per run, in the open transaction.
const chains = createWriterChains();

port.on("message", (msg: WriterRequest & { id: number }) => {
  const { id, op } = msg;
  try {
    let result: unknown = null;
    if (op === "begin") {
      failed = null;
      chains.reset();
      db.exec("BEGIN IMMEDIATE");
    } else if (op === "rollback") {
      failed = null;
      chains.reset();
      if (db.inTransaction) db.exec("ROLLBACK");
    } else if (failed) {
      throw failed;
    } else if (msg.op === "chain") {
      result = chains.results(msg.runId);
    } else if (op === "commit") {
      db.exec("COMMIT");
      chains.reset();
      writtenSinceCheckpoint += 4096;
      writtenSinceTruncate += 4096;
      checkpointSoon();
    } else if (msg.op === "insert") {
      insert(unpackRows(msg, chains.finish), msg.n);
      writtenSinceCheckpoint += msg.text.length * 2;
      writtenSinceTruncate += msg.text.length * 2;
    } else if (msg.op === "written") {
      // committed by the request's thread (sql.ts, small transactions): checkpointed from here
      writtenSinceCheckpoint += msg.bytes;
      writtenSinceTruncate += msg.bytes;
      checkpointSoon();
    } else if (msg.op === "all") {
      const st = prep(msg.sql);
      result = st.reader ? st.all(...msg.params) : (st.run(...msg.params), []);
    } else if (msg.op === "run") {
      result = prep(msg.sql).run(...msg.params).changes;
    } else if (op === "close") {
      if (idleTimer !== null) clearTimeout(idleTimer);
      db.close();
    }
    port.postMessage({ id, ok: true, result });
  } catch (e) {
    const error = {
      message: e instanceof Error ? e.message : String(e),
      code: e && typeof e === "object" && "code" in e ? (e as { code: unknown }).code : undefined,
    };
    if (op === "insert" || op === "run" || op === "all") failed = Object.assign(new Error(error.message), { code: error.code });
    port.postMessage({ id, ok: false, error });
  } finally {
    // every batch taken counts, failed or not (SqliteWriter.backlog in sql.ts reads this)
    if (op === "insert") Atomics.add(data.taken, 0, 1);
  }
});
