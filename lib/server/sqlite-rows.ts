import "server-only";
/**
 * Event rows as ingest hands them to a database, and their packed form for the SQLite
 * writer thread: both sides of the crossing (packRows on the request's thread, unpackRows
 * on the writer's) live here, so their layouts cannot drift apart.
 */
import type { SummaryRow } from "../graph/summary";

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
 * ingest/finish-on-writer.ts): derive the stored text from the raw line, verify the
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
/** Where prevHash sits among a packed row's strings. */
const PREV_HASH = STRING_COLUMNS.length;

/** The INSERT of `n` rows of EVENT_COLUMNS (the writer thread's and the in-thread transaction's). */
export const insertEventsSql = (n: number) =>
  `INSERT INTO "Event" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES ${Array.from({ length: n }, () => `(${EVENT_COLUMNS.map(() => "?").join(", ")})`).join(", ")}`;

/** Finished rows (`work` 0) as EVENT_COLUMNS values, row after row. */
export function flatRows(rows: IngestRow[]): FlatValue[] {
  const flat = new Array<FlatValue>(rows.length * EVENT_COLUMNS.length);
  let k = 0;
  for (const r of rows) for (const c of EVENT_COLUMNS) flat[k++] = (r[c] as FlatValue | undefined) ?? null;
  return flat;
}

/** Where each stored column sits in an unpacked row (unpackRows). */
export const COLUMN = {
  runId: EVENT_COLUMNS.indexOf("runId"),
  body: EVENT_COLUMNS.indexOf("body"),
  recordedHash: EVENT_COLUMNS.indexOf("recordedHash"),
  chain: EVENT_COLUMNS.indexOf("chain"),
  hash: EVENT_COLUMNS.indexOf("hash"),
  seq: EVENT_COLUMNS.indexOf("seq"),
} as const;

/**
 * Rows for the writer thread in a form that is cheap to post: structured clone costs per
 * value, so every string of the batch travels as one string (with lengths) and every
 * number in one Float64Array (NaN for null), instead of 18 values a row. Two strings that
 * almost every row repeats are not sent again: the run id (the batch's) and the
 * predecessor's recorded hash when it is the previous row's (lengths from PACKED).
 */
export interface PackedRows {
  op: "insert";
  n: number;
  runId: string;
  text: string;
  lengths: Int32Array<ArrayBuffer>;
  numbers: Float64Array<ArrayBuffer>;
}

// string lengths that stand for a string not sent
const PACKED = { nullString: -1, sameRun: -2, previousHash: -3 } as const;

export function packRows(rows: IngestRow[]): PackedRows {
  const n = rows.length;
  const runId = rows[0].runId;
  const sw = STRING_COLUMNS.length + WORK_STRINGS.length;
  const lengths = new Int32Array(n * sw);
  const numbers = new Float64Array(n * (NUMBER_COLUMNS.length + WORK_NUMBERS.length));
  // joined once at the end: `+=` would make a rope of a million pieces per 100,000 rows
  const parts: string[] = [];
  // One row's strings, field by field in the order of STRING_COLUMNS + WORK_STRINGS (the
  // stored-columns test fails on a mismatch; a loop over column names would make every
  // access keyed), then one loop packs them: written out per field, the packing made
  // this function the costliest of the ingest path to compile.
  const row: Array<string | null> = new Array<string | null>(sw).fill(null);
  let li = 0;
  let ni = 0;
  let previousHash: string | null = null;
  for (const r of rows) {
    row[0] = r.runId;
    row[1] = r.ts;
    row[2] = r.type;
    row[3] = r.step;
    row[4] = r.call;
    row[5] = r.name;
    row[6] = r.status;
    row[7] = r.body;
    row[8] = r.recordedHash;
    row[9] = r.chain;
    row[10] = r.hash;
    row[11] = r.prevHash;
    row[12] = r.chainSeed;
    for (let c = 0; c < sw; c++) {
      const v = row[c];
      if (v === null) lengths[li++] = PACKED.nullString;
      else if (c === 0 && v === runId) lengths[li++] = PACKED.sameRun;
      else if (c === PREV_HASH && v === previousHash) lengths[li++] = PACKED.previousHash;
      else {
        lengths[li++] = v.length;
        parts.push(v);
      }
    }
    numbers[ni++] = r.seq ?? NaN;
    numbers[ni++] = r.tsMs ?? NaN;
    numbers[ni++] = r.parent ?? NaN;
    numbers[ni++] = r.latencyMs ?? NaN;
    numbers[ni++] = r.tokens ?? NaN;
    numbers[ni++] = r.bytes ?? NaN;
    numbers[ni++] = r.redactions ?? NaN;
    numbers[ni++] = r.work ?? NaN;
    previousHash = r.recordedHash;
  }
  return { op: "insert", n, runId, text: parts.join(""), lengths, numbers };
}

export type FlatValue = string | number | null;

/** Finishes one unpacked row in place (the writer's side of ROW_WORK). */
export type FinishFlatRow = (flat: FlatValue[], base: number, work: number, prevHash: string | null, chainSeed: string | null) => void;

/**
 * The flat parameter list of a packed batch, rows finished: each row's stored columns in
 * the order of EVENT_COLUMNS, what only the writer reads handed to `finish` for each row
 * with work to do (or no verdict yet).
 */
export function unpackRows({ n, runId, text, lengths, numbers }: PackedRows, finish: FinishFlatRow): FlatValue[] {
  const strings = STRING_COLUMNS.length;
  const nums = NUMBER_COLUMNS.length;
  const sw = strings + WORK_STRINGS.length;
  const nw = nums + WORK_NUMBERS.length;
  const flat = new Array<FlatValue>(n * EVENT_COLUMNS.length);
  let pos = 0;
  let k = 0;
  let previousHash: string | null = null;
  const str = (i: number): string | null => {
    const len = lengths[i];
    if (len >= 0) {
      pos += len;
      return text.slice(pos - len, pos);
    }
    return len === PACKED.sameRun ? runId : len === PACKED.previousHash ? previousHash : null;
  };
  for (let r = 0; r < n; r++) {
    const base = k;
    let i = r * sw;
    for (const end = i + strings; i < end; i++) flat[k++] = str(i);
    const prevHash = str(i++);
    const chainSeed = str(i++);
    let j = r * nw;
    for (const end = j + nums; j < end; j++) {
      const v = numbers[j];
      flat[k++] = Number.isNaN(v) ? null : v;
    }
    const work = numbers[j];
    previousHash = flat[base + COLUMN.recordedHash] as string | null;
    if (work !== 0 || flat[base + COLUMN.chain] === null) finish(flat, base, work, prevHash, chainSeed);
  }
  return flat;
}
