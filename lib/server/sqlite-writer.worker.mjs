// The SQLite write connection, on its own thread. Plain JavaScript on purpose: it loads
// as it is under Next's server bundle, tsx (the CLI) and vitest. The main thread sends
// operations in order; each is answered in order. Inserts are sent without waiting for
// their answer, so parsing, hashing and analysis on the main thread overlap with the
// B-tree writes here; an insert that fails poisons the transaction until its rollback.
import { setImmediate } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const db = new Database(workerData.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
// Blocking here blocks only this thread, never the server's event loop.
db.pragma("busy_timeout = 30000");
db.pragma("foreign_keys = ON");
// Checkpoints (copying the WAL into the database file: about 0.15 s after a 100,000-event
// upload) run after a commit is answered, not inside it, so an upload's response does not
// wait for them. The next operation on this thread waits instead, which it would anyway.
// Like SQLite's own auto-checkpoint, it waits for about 1000 pages of WAL (estimated from
// what was written) so that small live appends do not each pay for one.
db.pragma("wal_autocheckpoint = 0");
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
let writtenSinceCheckpoint = 0;
function checkpointSoon() {
  if (writtenSinceCheckpoint < CHECKPOINT_BYTES) return;
  setImmediate(() => {
    if (!db.open || db.inTransaction) return; // the next commit asks again
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
      writtenSinceCheckpoint = 0;
    } catch {
      // a failed checkpoint loses nothing (the WAL keeps the data); the next commit retries
    }
  });
}

const columns = workerData.eventColumns;
const MULTI = 64;
const insertSql = (n) =>
  `INSERT INTO "Event" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${Array.from({ length: n }, () => `(${columns.map(() => "?").join(", ")})`).join(", ")}`;
const insertOne = db.prepare(insertSql(1));
const insertMany = db.prepare(insertSql(MULTI));
const cache = new Map();
const prep = (sql) => {
  let st = cache.get(sql);
  if (!st) {
    st = db.prepare(sql);
    cache.set(sql, st);
  }
  return st;
};

let failed = null;

/**
 * The flat parameter list of a packed batch (see packRows in sql.ts): each row's strings
 * (-1 length for null) then its numbers (NaN for null), the order of eventColumns.
 */
function unpack({ n, text, lengths, numbers }) {
  const sw = workerData.stringCount;
  const nw = columns.length - sw;
  const flat = new Array(n * columns.length);
  let pos = 0;
  let k = 0;
  for (let r = 0; r < n; r++) {
    for (let i = r * sw, end = i + sw; i < end; i++) {
      const len = lengths[i];
      if (len < 0) flat[k++] = null;
      else {
        flat[k++] = text.slice(pos, pos + len);
        pos += len;
      }
    }
    for (let i = r * nw, end = i + nw; i < end; i++) {
      const v = numbers[i];
      flat[k++] = Number.isNaN(v) ? null : v;
    }
  }
  return flat;
}

function insert(flat, n) {
  const width = columns.length;
  let i = 0;
  for (; i + MULTI <= n; i += MULTI) insertMany.run(flat.slice(i * width, (i + MULTI) * width));
  for (; i < n; i++) insertOne.run(flat.slice(i * width, (i + 1) * width));
}

parentPort.on("message", (msg) => {
  const { id, op } = msg;
  try {
    let result = null;
    if (op === "begin") {
      failed = null;
      db.exec("BEGIN IMMEDIATE");
    } else if (op === "rollback") {
      failed = null;
      if (db.inTransaction) db.exec("ROLLBACK");
    } else if (failed) {
      throw failed;
    } else if (op === "commit") {
      db.exec("COMMIT");
      writtenSinceCheckpoint += 4096;
      checkpointSoon();
    } else if (op === "insert") {
      insert(unpack(msg), msg.n);
      writtenSinceCheckpoint += msg.text.length * 2;
    } else if (op === "all") {
      const st = prep(msg.sql);
      result = st.reader ? st.all(...msg.params) : (st.run(...msg.params), []);
    } else if (op === "run") {
      result = prep(msg.sql).run(...msg.params).changes;
    } else if (op === "close") {
      db.close();
    }
    parentPort.postMessage({ id, ok: true, result });
  } catch (e) {
    const error = { message: e instanceof Error ? e.message : String(e), code: e && typeof e === "object" && "code" in e ? e.code : undefined };
    if (op === "insert" || op === "run" || op === "all") failed = Object.assign(new Error(error.message), { code: error.code });
    parentPort.postMessage({ id, ok: false, error });
  }
});
