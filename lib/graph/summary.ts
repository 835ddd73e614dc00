/**
 * The compact, columnar summary of a run's events that the server sends to the viewer:
 * every per-event column the graph, timeline and event list need, no payloads.
 *
 * On the wire (`SummaryDto`) strings are dictionary-encoded and times are offsets from
 * `t0`, so 100,000 events stay a few MB of plain numbers that JSON.parse reads quickly.
 * Decoded (`RunSummary`) numbers live in typed arrays and strings are shared references
 * into the dictionaries. Times are epoch milliseconds throughout (`EpochMs`).
 */
import type { EventColumns } from "../journal/summary";
import type { DictColumn, StrColumn, SummaryDto } from "../view/api-types";

// The wire form is an API answer: its one definition is the zod schema in lib/view/api-types.ts.
export type { DictColumn, StrColumn, SummaryDto } from "../view/api-types";

export interface RunSummary {
  run: string;
  n: number;
  seq: Int32Array;
  /** Epoch ms. */
  tsMs: Float64Array;
  type: string[];
  step: (string | null)[];
  /** Seq of the causing event, -1 for none. */
  parent: Int32Array;
  call: (string | null)[];
  name: (string | null)[];
  status: (string | null)[];
  /** NaN for none. */
  latencyMs: Float64Array;
  /** NaN for none. */
  tokens: Float64Array;
  chain: string[];
  redactions: Int32Array;
  /**
   * The step and call columns as dictionary codes (0: null, k: the k-th distinct value), when
   * the decoder had them (the binary form): the index then looks steps and calls up by
   * number instead of by string. Dropped when summaries are appended (their codes differ).
   */
  codes?: { step: Int32Array; steps: number; call: Int32Array; calls: number };
}

/** Encodes rows (as the server reads them) into the wire form. */
export interface SummaryRow extends EventColumns {
  seq: number;
  tsMs: number;
  type: string;
  step: string | null;
  parent: number | null;
  chain: string;
  redactions: number;
}

function dictEncoder() {
  const dict: string[] = [];
  const index = new Map<string, number>();
  const idx: number[] = [];
  return {
    push(v: string | null) {
      if (v === null) {
        idx.push(-1);
        return;
      }
      let i = index.get(v);
      if (i === undefined) {
        i = dict.length;
        dict.push(v);
        index.set(v, i);
      }
      idx.push(i);
    },
    done: (): DictColumn => ({ dict, idx }),
  };
}

export function encodeSummary(run: string, rows: readonly SummaryRow[]): SummaryDto {
  const t0 = rows.length > 0 ? rows[0].tsMs : 0;
  const seqFrom = rows.length > 0 ? rows[0].seq : 0;
  let contiguous = true;
  const seq: number[] = [];
  const t: number[] = [];
  const parent: number[] = [];
  const latencyMs: number[] = [];
  const tokens: number[] = [];
  const redactions: number[] = [];
  const type = dictEncoder();
  const step = dictEncoder();
  const call = dictEncoder();
  const name = dictEncoder();
  const status = dictEncoder();
  const chain = dictEncoder();
  let prevT = t0;
  rows.forEach((r, i) => {
    if (r.seq !== seqFrom + i) contiguous = false;
    seq.push(r.seq);
    t.push(r.tsMs - prevT);
    prevT = r.tsMs;
    type.push(r.type);
    step.push(r.step);
    parent.push(r.parent ?? -1);
    call.push(r.call);
    name.push(r.name);
    status.push(r.status);
    latencyMs.push(r.latencyMs ?? -1);
    tokens.push(r.tokens ?? -1);
    chain.push(r.chain);
    redactions.push(r.redactions);
  });
  return {
    run,
    count: rows.length,
    t0,
    seq: contiguous ? null : seq,
    seqFrom,
    t,
    type: type.done(),
    step: step.done(),
    parent,
    call: call.done(),
    name: name.done(),
    status: status.done(),
    latencyMs,
    tokens,
    chain: chain.done(),
    redactions,
  };
}

/** The per-event columns as plain arrays (as the database aggregates them). */
export interface SummaryColumns {
  seq: number[];
  tsMs: number[];
  type: (string | null)[];
  step: (string | null)[];
  parent: (number | null)[];
  call: (string | null)[];
  name: (string | null)[];
  status: (string | null)[];
  latencyMs: (number | null)[];
  tokens: (number | null)[];
  chain: (string | null)[];
  redactions: number[];
}

/** Encodes whole columns: strings to dictionaries, nulls to -1, times to deltas. */
export function encodeSummaryColumns(run: string, c: SummaryColumns): SummaryDto {
  const n = c.seq.length;
  const dict = (col: (string | null)[]): DictColumn => {
    const d = dictEncoder();
    for (const v of col) d.push(v);
    return d.done();
  };
  const orMinus = (col: (number | null)[]) => col.map((v) => (v === null ? -1 : v));
  const t0 = n > 0 ? c.tsMs[0] : 0;
  const t = new Array<number>(n);
  let contiguous = true;
  for (let i = 0; i < n; i++) {
    t[i] = c.tsMs[i] - (i === 0 ? t0 : c.tsMs[i - 1]);
    if (c.seq[i] !== c.seq[0] + i) contiguous = false;
  }
  return {
    run,
    count: n,
    t0,
    seq: contiguous ? null : c.seq,
    seqFrom: n > 0 ? c.seq[0] : 0,
    t,
    type: dict(c.type),
    step: dict(c.step),
    parent: orMinus(c.parent),
    call: dict(c.call),
    name: dict(c.name),
    status: dict(c.status),
    latencyMs: orMinus(c.latencyMs),
    tokens: orMinus(c.tokens),
    chain: dict(c.chain),
    redactions: c.redactions,
  };
}

const decodeDict = (c: StrColumn): (string | null)[] => (Array.isArray(c) ? c : c.idx.map((i) => (i < 0 ? null : (c.dict[i] ?? null))));
const orNaN = (v: number | null) => (v === null || v < 0 ? NaN : v);

export function decodeSummary(dto: SummaryDto): RunSummary {
  const n = dto.count;
  const seq = new Int32Array(n);
  const tsMs = new Float64Array(n);
  const latencyMs = new Float64Array(n);
  const tokens = new Float64Array(n);
  let t = dto.t0;
  for (let i = 0; i < n; i++) {
    seq[i] = dto.seq ? dto.seq[i] : dto.seqFrom + i;
    t += dto.t[i];
    tsMs[i] = t;
    latencyMs[i] = orNaN(dto.latencyMs[i]);
    tokens[i] = orNaN(dto.tokens[i]);
  }
  return {
    run: dto.run,
    n,
    seq,
    tsMs,
    type: decodeDict(dto.type).map((s) => s ?? "?"),
    step: decodeDict(dto.step),
    parent: Int32Array.from(dto.parent, (p) => p ?? -1),
    call: decodeDict(dto.call),
    name: decodeDict(dto.name),
    status: decodeDict(dto.status),
    latencyMs,
    tokens,
    chain: decodeDict(dto.chain).map((s) => s ?? "none"),
    redactions: Int32Array.from(dto.redactions),
  };
}

function concatTyped<T extends Int32Array | Float64Array>(a: T, b: T, make: (n: number) => T): T {
  const out = make(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Appends rows that arrived later (a live run). Rows whose seq is not above the last one
 * held are dropped: the caller refetches the whole summary when a gap is filled.
 */
export function appendSummary(a: RunSummary, more: RunSummary): RunSummary {
  const last = a.n > 0 ? a.seq[a.n - 1] : -1;
  let start = 0;
  while (start < more.n && more.seq[start] <= last) start++;
  if (start >= more.n) return a;
  const b = start === 0 ? more : sliceSummary(more, start);
  return {
    run: a.run,
    n: a.n + b.n,
    seq: concatTyped(a.seq, b.seq, (n) => new Int32Array(n)),
    tsMs: concatTyped(a.tsMs, b.tsMs, (n) => new Float64Array(n)),
    type: a.type.concat(b.type),
    step: a.step.concat(b.step),
    parent: concatTyped(a.parent, b.parent, (n) => new Int32Array(n)),
    call: a.call.concat(b.call),
    name: a.name.concat(b.name),
    status: a.status.concat(b.status),
    latencyMs: concatTyped(a.latencyMs, b.latencyMs, (n) => new Float64Array(n)),
    tokens: concatTyped(a.tokens, b.tokens, (n) => new Float64Array(n)),
    chain: a.chain.concat(b.chain),
    redactions: concatTyped(a.redactions, b.redactions, (n) => new Int32Array(n)),
  };
}

function sliceSummary(s: RunSummary, from: number): RunSummary {
  return {
    run: s.run,
    n: s.n - from,
    seq: s.seq.slice(from),
    tsMs: s.tsMs.slice(from),
    type: s.type.slice(from),
    step: s.step.slice(from),
    parent: s.parent.slice(from),
    call: s.call.slice(from),
    name: s.name.slice(from),
    status: s.status.slice(from),
    latencyMs: s.latencyMs.slice(from),
    tokens: s.tokens.slice(from),
    chain: s.chain.slice(from),
    redactions: s.redactions.slice(from),
  };
}
