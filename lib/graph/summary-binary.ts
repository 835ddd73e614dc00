/**
 * The run summary as bytes (`GET /api/runs/{run}/summary?format=binary`): the same columns
 * as the JSON wire form (summary.ts), each packed into the narrowest typed array that holds
 * it, so the viewer reads a million events as a few views over one buffer instead of
 * parsing twelve million JSON numbers.
 *
 *   "RTS1" · u32 header length · header (UTF-8 JSON) · zero padding to 8 · columns
 *
 * The header holds the run id, the row count, the string columns' dictionaries (JSON, so
 * any string travels as it is) and, per column, its element type, whether it holds deltas
 * from the previous row, and its byte offset (a multiple of 8, so every column is a
 * typed-array view of the buffer). Numbers are little-endian. Numeric columns with no value
 * carry -1 (parent, latency, tokens, as on the JSON wire); dictionary columns carry the
 * dictionary index + 1, 0 for null.
 */
import type { RunSummary, SummaryColumns } from "./summary";

const MAGIC = 0x31535452; // "RTS1" read little-endian
const ELEMENT = ["u8", "i8", "u16", "i16", "u32", "i32", "f64"] as const;
type Element = (typeof ELEMENT)[number];
const BYTES: Record<Element, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, f64: 8 };
const RANGE: Record<Exclude<Element, "f64">, [number, number]> = {
  u8: [0, 0xff],
  i8: [-0x80, 0x7f],
  u16: [0, 0xffff],
  i16: [-0x8000, 0x7fff],
  u32: [0, 0xffff_ffff],
  i32: [-0x8000_0000, 0x7fff_ffff],
};

const NUMERIC = ["seq", "tsMs", "parent", "latencyMs", "tokens", "redactions"] as const;
const STRINGS = ["type", "step", "call", "name", "status", "chain"] as const;
type NumericName = (typeof NUMERIC)[number];
type StringName = (typeof STRINGS)[number];

interface ColumnHead {
  el: Element;
  delta: boolean;
  offset: number;
}

interface Header {
  run: string;
  n: number;
  cols: Record<NumericName | StringName, ColumnHead>;
  dicts: Record<StringName, string[]>;
}

/** One column's values, growable, as doubles (every value the summary holds fits one exactly). */
class NumberColumn {
  values: Float64Array;
  n = 0;
  constructor(capacity: number) {
    this.values = new Float64Array(Math.max(16, capacity));
  }
  push(v: number) {
    if (this.n === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.n++] = v;
  }
}

class DictColumn {
  readonly dict: string[] = [];
  private readonly index = new Map<string, number>();
  readonly codes: NumberColumn;
  constructor(capacity: number) {
    this.codes = new NumberColumn(capacity);
  }
  push(v: string | null) {
    if (v === null) return this.codes.push(0);
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.dict.length;
      this.dict.push(v);
      this.index.set(v, i);
    }
    this.codes.push(i + 1);
  }
}

/** The narrowest element type for integers in [min, max], null when none holds them. */
function intElement(min: number, max: number): Element | null {
  for (const el of ["u8", "i8", "u16", "i16", "u32", "i32"] as const) {
    const [lo, hi] = RANGE[el];
    if (min >= lo && max <= hi) return el;
  }
  return null;
}

/**
 * How to pack a column: as it is or as deltas, whichever needs the narrower integer type
 * (a contiguous seq is all 1s, times are small steps), and doubles when the values are not
 * all integers or need more than 32 bits either way.
 */
function choosePacking(v: Float64Array, n: number): { el: Element; delta: boolean } {
  let min = Infinity;
  let max = -Infinity;
  let dmin = Infinity;
  let dmax = -Infinity;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (!Number.isSafeInteger(x)) return { el: "f64", delta: false };
    if (x < min) min = x;
    if (x > max) max = x;
    const d = x - prev;
    if (d < dmin) dmin = d;
    if (d > dmax) dmax = d;
    prev = x;
  }
  if (n === 0) return { el: "u8", delta: false };
  const raw = intElement(min, max);
  const delta = Number.isSafeInteger(dmin) && Number.isSafeInteger(dmax) ? intElement(dmin, dmax) : null;
  if (delta !== null && (raw === null || BYTES[delta] < BYTES[raw])) return { el: delta, delta: true };
  return raw === null ? { el: "f64", delta: false } : { el: raw, delta: false };
}

function view(el: Element, buf: ArrayBuffer, offset: number, n: number) {
  switch (el) {
    case "u8":
      return new Uint8Array(buf, offset, n);
    case "i8":
      return new Int8Array(buf, offset, n);
    case "u16":
      return new Uint16Array(buf, offset, n);
    case "i16":
      return new Int16Array(buf, offset, n);
    case "u32":
      return new Uint32Array(buf, offset, n);
    case "i32":
      return new Int32Array(buf, offset, n);
    case "f64":
      return new Float64Array(buf, offset, n);
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const align8 = (x: number) => (x + 7) & ~7;

/**
 * Builds the binary summary a row at a time (the server reads rows straight into it), so
 * no per-row object is kept: twelve growable columns and the string dictionaries.
 */
export class SummaryBinaryBuilder {
  private readonly num: Record<NumericName, NumberColumn>;
  private readonly str: Record<StringName, DictColumn>;
  n = 0;
  constructor(
    readonly run: string,
    capacity = 1024,
  ) {
    this.num = Object.fromEntries(NUMERIC.map((c) => [c, new NumberColumn(capacity)])) as Record<NumericName, NumberColumn>;
    this.str = Object.fromEntries(STRINGS.map((c) => [c, new DictColumn(capacity)])) as Record<StringName, DictColumn>;
  }

  push(
    seq: number,
    tsMs: number,
    type: string,
    step: string | null,
    parent: number | null,
    call: string | null,
    name: string | null,
    status: string | null,
    latencyMs: number | null,
    tokens: number | null,
    chain: string,
    redactions: number,
  ): void {
    const { num, str } = this;
    num.seq.push(seq);
    num.tsMs.push(tsMs);
    num.parent.push(parent ?? -1);
    num.latencyMs.push(latencyMs ?? -1);
    num.tokens.push(tokens ?? -1);
    num.redactions.push(redactions);
    str.type.push(type);
    str.step.push(step);
    str.call.push(call);
    str.name.push(name);
    str.status.push(status);
    str.chain.push(chain);
    this.n++;
  }

  finish(): Uint8Array<ArrayBuffer> {
    const n = this.n;
    const packs = [...NUMERIC.map((c) => [c, this.num[c]] as const), ...STRINGS.map((c) => [c, this.str[c].codes] as const)].map(
      ([name, col]) => ({ name, col, ...choosePacking(col.values, n) }),
    );
    // offsets are relative to the data start, which follows the header: fixed first
    let at = 0;
    const cols = {} as Header["cols"];
    for (const p of packs) {
      cols[p.name] = { el: p.el, delta: p.delta, offset: at };
      at = align8(at + BYTES[p.el] * n);
    }
    const dicts = Object.fromEntries(STRINGS.map((c) => [c, this.str[c].dict])) as Header["dicts"];
    const headText = new TextEncoder().encode(JSON.stringify({ run: this.run, n, cols, dicts } satisfies Header));
    const dataStart = align8(8 + headText.length);
    const out = new Uint8Array(dataStart + at);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, headText.length, true);
    out.set(headText, 8);
    for (const p of packs) {
      const off = dataStart + cols[p.name].offset;
      const v = p.col.values;
      if (LITTLE_ENDIAN) {
        const dst = view(p.el, out.buffer, off, n);
        if (p.delta) {
          let prev = 0;
          for (let i = 0; i < n; i++) {
            dst[i] = v[i] - prev;
            prev = v[i];
          }
        } else dst.set(v.subarray(0, n));
      } else {
        let prev = 0;
        for (let i = 0; i < n; i++) {
          writeOne(dv, p.el, off + i * BYTES[p.el], p.delta ? v[i] - prev : v[i]);
          prev = v[i];
        }
      }
    }
    return out;
  }
}

function writeOne(dv: DataView, el: Element, at: number, x: number) {
  if (el === "u8") dv.setUint8(at, x);
  else if (el === "i8") dv.setInt8(at, x);
  else if (el === "u16") dv.setUint16(at, x, true);
  else if (el === "i16") dv.setInt16(at, x, true);
  else if (el === "u32") dv.setUint32(at, x, true);
  else if (el === "i32") dv.setInt32(at, x, true);
  else dv.setFloat64(at, x, true);
}

function readOne(dv: DataView, el: Element, at: number): number {
  if (el === "u8") return dv.getUint8(at);
  if (el === "i8") return dv.getInt8(at);
  if (el === "u16") return dv.getUint16(at, true);
  if (el === "i16") return dv.getInt16(at, true);
  if (el === "u32") return dv.getUint32(at, true);
  if (el === "i32") return dv.getInt32(at, true);
  return dv.getFloat64(at, true);
}

/** Whole columns (as the JSON encoder takes them) in the binary form. */
export function encodeSummaryBinary(run: string, c: SummaryColumns): Uint8Array<ArrayBuffer> {
  const n = c.seq.length;
  const b = new SummaryBinaryBuilder(run, n);
  for (let i = 0; i < n; i++)
    b.push(
      c.seq[i],
      c.tsMs[i],
      c.type[i] ?? "?",
      c.step[i],
      c.parent[i],
      c.call[i],
      c.name[i],
      c.status[i],
      c.latencyMs[i],
      c.tokens[i],
      c.chain[i] ?? "none",
      c.redactions[i],
    );
  return b.finish();
}

export class SummaryFormatError extends Error {}

/**
 * Decodes the binary summary into the viewer's columns. `mapText` is applied once per
 * distinct string of the type, step, call, name and status columns (the viewer makes
 * invisible characters visible there, visibleText of lib/view/text.ts).
 */
export function decodeSummaryBinary(bytes: ArrayBuffer | Uint8Array, mapText: (s: string) => string = (s) => s): RunSummary {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.length < 8) throw new SummaryFormatError("summary too short");
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) throw new SummaryFormatError("not a binary run summary");
  const headLen = dv.getUint32(4, true);
  if (8 + headLen > u8.length) throw new SummaryFormatError("summary header cut short");
  const head = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + headLen))) as Header;
  const n = head.n;
  const dataStart = align8(8 + headLen);
  // views need their offset aligned to the element size within an ArrayBuffer of their own
  const own = u8.byteOffset % 8 === 0 ? u8 : u8.slice();
  const buf = own.buffer as ArrayBuffer;
  const base = own.byteOffset + dataStart;
  const limit = own.byteOffset + own.byteLength;

  /** The column's values, deltas summed, into `out`. */
  const read = <T extends Float64Array | Int32Array>(name: NumericName | StringName, out: T): T => {
    const c = head.cols[name];
    if (!c || !ELEMENT.includes(c.el) || base + c.offset + BYTES[c.el] * n > limit)
      throw new SummaryFormatError(`summary column ${name} is missing or cut short`);
    if (LITTLE_ENDIAN) {
      const src = view(c.el, buf, base + c.offset, n);
      if (c.delta) {
        let acc = 0;
        for (let i = 0; i < n; i++) out[i] = acc += src[i];
      } else out.set(src);
    } else {
      const at = dataStart + c.offset;
      let acc = 0;
      for (let i = 0; i < n; i++) {
        const x = readOne(dv, c.el, at + i * BYTES[c.el]);
        out[i] = c.delta ? (acc += x) : x;
      }
    }
    return out;
  };
  const orNaN = (a: Float64Array) => {
    for (let i = 0; i < n; i++) if (a[i] < 0) a[i] = NaN;
    return a;
  };
  const codesOf: Partial<Record<StringName, Int32Array>> = {};
  const strings = (name: StringName, map: boolean, missing: string | null): (string | null)[] => {
    const dict = (head.dicts?.[name] ?? []).map((s) => (map ? mapText(s) : s));
    const codes = (codesOf[name] = read(name, new Int32Array(n)));
    for (let i = 0; i < n; i++)
      if (codes[i] < 0 || codes[i] > dict.length) throw new SummaryFormatError(`summary column ${name} names no string`);
    const out = new Array<string | null>(n);
    for (let i = 0; i < n; i++) {
      const k = codes[i];
      out[i] = k === 0 ? missing : (dict[k - 1] ?? missing);
    }
    return out;
  };
  const summary: RunSummary = {
    run: head.run,
    n,
    seq: read("seq", new Int32Array(n)),
    tsMs: read("tsMs", new Float64Array(n)),
    type: strings("type", true, "?") as string[],
    step: strings("step", true, null),
    parent: read("parent", new Int32Array(n)),
    call: strings("call", true, null),
    name: strings("name", true, null),
    status: strings("status", true, null),
    latencyMs: orNaN(read("latencyMs", new Float64Array(n))),
    tokens: orNaN(read("tokens", new Float64Array(n))),
    chain: strings("chain", false, "none") as string[],
    redactions: read("redactions", new Int32Array(n)),
  };
  summary.codes = { step: codesOf.step!, steps: head.dicts.step.length, call: codesOf.call!, calls: head.dicts.call.length };
  return summary;
}
