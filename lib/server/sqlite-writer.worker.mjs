// The SQLite write connection, on its own thread. Plain JavaScript on purpose: it loads
// as it is under Next's server bundle, tsx (the CLI) and vitest. The main thread sends
// operations in order; each is answered in order. Inserts are sent without waiting for
// their answer, so parsing, hashing and analysis on the main thread overlap with the
// B-tree writes here; an insert that fails poisons the transaction until its rollback.
import { hash as digest } from "node:crypto";
import { setImmediate } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { configure } from "safe-stable-stringify";

const db = new Database(workerData.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
// Blocking here blocks only this thread, never the server's event loop.
db.pragma("busy_timeout = 30000");
db.pragma("foreign_keys = ON");
// 64 MiB: a 100,000-event transaction no longer spills pages to the WAL before its commit
// (WAL writes 113k → 80k)
db.pragma("cache_size = -65536");
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

// Finishing rows (see IngestRow in sql.ts): the same constructions as lib/canonical and
// lib/journal/chain, which the storage tests check by storing one journal on SQLite
// (finished here) and on PostgreSQL (finished by ingest) and comparing every column.
const { rawLine: RAW_LINE, sortedKeys: SORTED_KEYS, extendsChain: EXTENDS_CHAIN, storedIsRaw: STORED_IS_RAW } = workerData.rowWork;
const { sameRun: SAME_RUN, previousHash: PREVIOUS_HASH } = workerData.packed;
// RFC 8785 for any key order: lib/canonical's configuration, exactly.
const canonical = configure({ bigint: true, deterministic: true, circularValue: TypeError, strict: true });
const chainHashOf = (prev, text) => "sha256:" + digest("sha256", prev + "\n" + text, "hex");

/** The canonical text of a raw line's event without its envelope `hash`. */
function storedTextOf(line, sorted) {
  let event = JSON.parse(line);
  if (Object.hasOwn(event, "hash")) {
    const { hash: _recorded, ...rest } = event;
    event = rest;
  }
  return sorted ? JSON.stringify(event) : canonical(event);
}

/** Per run, in this transaction: the server chain's tail, and the recorder links found broken. */
let chains = new Map();
function chainOf(runId) {
  let c = chains.get(runId);
  if (!c) {
    c = { tail: "", extended: false, fails: [], allOk: true };
    chains.set(runId, c);
  }
  return c;
}

const STRINGS = workerData.stringCount;
const NUMBERS = columns.length - STRINGS;
const at = (name) => columns.indexOf(name);
const RUN = at("runId");
const BODY = at("body");
const RECORDED = at("recordedHash");
const CHAIN = at("chain");
const HASH = at("hash");
const SEQ = at("seq");

function finish(flat, base, work, prevHash, chainSeed) {
  let body = flat[base + BODY];
  if (work & RAW_LINE) {
    body = storedTextOf(body, (work & SORTED_KEYS) !== 0);
    flat[base + BODY] = body;
  }
  const recorded = flat[base + RECORDED];
  let chain = flat[base + CHAIN];
  const c = chainOf(flat[base + RUN]);
  if (chain === null) {
    chain = recorded !== null && prevHash !== null ? (chainHashOf(prevHash, body) === recorded ? "ok" : "fail") : "none";
    flat[base + CHAIN] = chain;
    if (chain === "fail") c.fails.push(flat[base + SEQ]);
    if (chain !== "ok") c.allOk = false;
  }
  if (work & EXTENDS_CHAIN) {
    if (chainSeed !== null) c.tail = chainSeed;
    // Both chains have one construction: where the stored event is what arrived and the
    // chains agree so far, the server's link is the recorder's verified one.
    c.tail = chain === "ok" && work & STORED_IS_RAW && c.tail === prevHash ? recorded : chainHashOf(c.tail, body);
    c.extended = true;
    flat[base + HASH] = c.tail;
  }
}

/**
 * The flat parameter list of a packed batch (see packRows in sql.ts), rows finished: each
 * row's strings then its numbers (NaN for null), the order of eventColumns, with what only
 * this thread reads after each group.
 */
function unpack({ n, runId, text, lengths, numbers }) {
  const sw = STRINGS + workerData.workStrings;
  const nw = NUMBERS + workerData.workNumbers;
  const flat = new Array(n * columns.length);
  let pos = 0;
  let k = 0;
  let previousHash = null;
  // lengths below zero stand for strings not sent again (packRows in sql.ts)
  const str = (i) => {
    const len = lengths[i];
    if (len >= 0) {
      pos += len;
      return text.slice(pos - len, pos);
    }
    return len === SAME_RUN ? runId : len === PREVIOUS_HASH ? previousHash : null;
  };
  for (let r = 0; r < n; r++) {
    const base = k;
    let i = r * sw;
    for (const end = i + STRINGS; i < end; i++) flat[k++] = str(i);
    const prevHash = str(i++);
    const chainSeed = str(i++);
    let j = r * nw;
    for (const end = j + NUMBERS; j < end; j++) {
      const v = numbers[j];
      flat[k++] = Number.isNaN(v) ? null : v;
    }
    const work = numbers[j];
    previousHash = flat[base + RECORDED];
    if (work !== 0 || flat[base + CHAIN] === null) finish(flat, base, work, prevHash, chainSeed);
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
      chains = new Map();
      db.exec("BEGIN IMMEDIATE");
    } else if (op === "rollback") {
      failed = null;
      chains = new Map();
      if (db.inTransaction) db.exec("ROLLBACK");
    } else if (failed) {
      throw failed;
    } else if (op === "chain") {
      const c = chains.get(msg.runId);
      result = c ? { tail: c.extended ? c.tail : null, fails: c.fails, allOk: c.allOk } : { tail: null, fails: [], allOk: true };
    } else if (op === "commit") {
      db.exec("COMMIT");
      chains = new Map();
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
    const error = {
      message: e instanceof Error ? e.message : String(e),
      code: e && typeof e === "object" && "code" in e ? e.code : undefined,
    };
    if (op === "insert" || op === "run" || op === "all") failed = Object.assign(new Error(error.message), { code: error.code });
    parentPort.postMessage({ id, ok: false, error });
  } finally {
    // every batch taken counts, failed or not (SqliteWriter.backlog in sql.ts reads this)
    if (op === "insert") Atomics.add(workerData.taken, 0, 1);
  }
});
