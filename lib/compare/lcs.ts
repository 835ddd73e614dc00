/**
 * Common subsequences of two key sequences, as index pairs.
 *
 * `longestCommonSubsequence` is exact whatever the inputs, with two exact algorithms, each
 * fast where the other is slow:
 *
 * - Myers' diff (jsdiff's `diffArrays`) costs the length times the number of differences
 *   D: two long runs that differ in a few places cost almost nothing.
 * - A bit-parallel LCS (Allison–Dix / Hyyrö: one machine word holds 32 cells of a row of
 *   the textbook table), made linear-space by Hirschberg's split, costs the product of the
 *   lengths divided by 32 whatever D is, and less where a row's key is rare.
 *
 * Myers runs first with an edit budget at which its cost matches the bit-parallel one; past
 * it jsdiff gives up (it returns nothing, never a partial answer) and the bit-parallel LCS
 * takes over. Both give a longest common subsequence, so which one ran changes at most
 * which of several equally long alignments is returned, never how many pairs it has.
 *
 * `boundedCommonSubsequence` is what the alignment uses: the same, as long as the
 * bit-parallel LCS stays within `maxCells` table cells. Past that (two long runs that
 * differ in many places: the product of their lengths is what an exact answer costs), Myers
 * gets `maxEdits` edits, and if the runs differ more, a banded search takes over: the
 * bit-parallel LCS of a window of each side, whose path inside the first half of both
 * windows is kept before the next window starts where that path left it. Time grows with
 * the lengths times the window and memory with the lengths (plus one window's rows of
 * bits), never with their product; the answer is exact within each window but may miss a
 * pairing across a longer shift. It says so (`approximate`), unless it reached the upper
 * bound every common subsequence obeys (per key, the smaller of its two counts), which
 * proves it longest.
 */
import { diffArrays } from "diff";

export type MatchedPair = [number, number];

export interface LcsBudget {
  /** The exact bit-parallel LCS runs when the two sides (after their common ends) span at most this many table cells. */
  maxCells: number;
  /** Past maxCells, the edits within which Myers' diff is tried before the banded search. */
  maxEdits: number;
  /** The banded search's window (keys per side); it keeps window² bits. */
  window: number;
}

/**
 * About a second of bit-parallel LCS (two 65,000-key sides) on the machines of
 * docs/benchmarks.md; Myers' diff giving up at 2,048 edits costs a fraction of that on a
 * million keys; the banded search keeps 8 MB of rows and follows a shift of 4,096 keys.
 */
export const LCS_BUDGET: LcsBudget = { maxCells: 2 ** 32, maxEdits: 2048, window: 8192 };

export interface ApproximateStretch {
  /** The stretch of each side the banded search aligned, [from, to) as indices of a and b. */
  a: readonly [number, number];
  b: readonly [number, number];
  /** The window it used (keys per side). */
  window: number;
  /** Pairs it found there, and the most any common subsequence of the stretch can have. */
  paired: number;
  atMost: number;
}

interface BoundedLcs {
  /** Ascending on both sides, on equal keys. */
  pairs: MatchedPair[];
  /** null when `pairs` is a longest common subsequence; else where and how it was approximated. */
  approximate: ApproximateStretch | null;
}

/** Index pairs (ascending on both sides) of a longest common subsequence of a and b. */
export function longestCommonSubsequence(a: readonly string[], b: readonly string[]): MatchedPair[] {
  return commonSubsequence(a, b, null).pairs;
}

/** A longest common subsequence within `budget`, or past it a banded one that says so. */
export function boundedCommonSubsequence(a: readonly string[], b: readonly string[], budget: LcsBudget = LCS_BUDGET): BoundedLcs {
  return commonSubsequence(a, b, budget);
}

function commonSubsequence(a: readonly string[], b: readonly string[], budget: LcsBudget | null): BoundedLcs {
  const [ia, ib, kinds] = toIds(a, b);
  const out: MatchedPair[] = [];
  // a common prefix and suffix belong to some longest common subsequence: pair them directly
  let lo = 0;
  while (lo < ia.length && lo < ib.length && ia[lo] === ib[lo]) out.push([lo, lo++]);
  let endA = ia.length;
  let endB = ib.length;
  const suffix: MatchedPair[] = [];
  while (endA > lo && endB > lo && ia[endA - 1] === ib[endB - 1]) suffix.push([--endA, --endB]);
  const n = endA - lo;
  const m = endB - lo;
  let approximate: ApproximateStretch | null = null;
  if (n > 0 && m > 0) {
    const midA = ia.subarray(lo, endA);
    const midB = ib.subarray(lo, endB);
    let inner: MatchedPair[] | undefined;
    if (budget === null || n * m <= budget.maxCells) inner = myersWithin(midA, midB, editBudget(n, m)) ?? bitParallelIds(midA, midB);
    else {
      inner = myersWithin(midA, midB, budget.maxEdits);
      if (!inner) {
        const window = Math.max(2, budget.window);
        inner = [];
        banded(midA, midB, window, inner);
        const atMost = multisetBound(midA, midB, kinds);
        // one window holding both sides is an exact search; reaching the bound proves the answer longest
        if (window < Math.max(n, m) && inner.length < atMost)
          approximate = { a: [lo, endA], b: [lo, endB], window, paired: inner.length, atMost };
      }
    }
    // shifted in place: a million pairs are a million arrays
    for (const p of inner) {
      p[0] += lo;
      p[1] += lo;
      out.push(p);
    }
  }
  for (let k = suffix.length - 1; k >= 0; k--) out.push(suffix[k]);
  return { pairs: out, approximate };
}

/** Dense integer ids for the keys of both sides (and how many distinct keys there are). */
function toIds(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array, number] {
  const ids = new Map<string, number>();
  const id = (k: string) => {
    let v = ids.get(k);
    if (v === undefined) ids.set(k, (v = ids.size));
    return v;
  };
  const ia = Int32Array.from(a, id);
  const ib = Int32Array.from(b, id);
  return [ia, ib, ids.size];
}

/**
 * The number of differences at which Myers' diff (about (n + m) · D steps, each far
 * dearer than a word operation) costs what the bit-parallel LCS does (about n · m / 16
 * word operations with Hirschberg's split).
 */
function editBudget(n: number, m: number): number {
  return Math.max(16, Math.ceil((n * m) / (512 * (n + m))));
}

/** Myers' diff within `maxEditLength` edits, or undefined when the inputs differ more. */
function myersWithin(a: Int32Array, b: Int32Array, maxEditLength: number): MatchedPair[] | undefined {
  const changes = diffArrays(Array.from(a), Array.from(b), { maxEditLength });
  if (!changes) return undefined;
  const out: MatchedPair[] = [];
  let x = 0;
  let y = 0;
  for (const change of changes) {
    if (change.removed) x += change.count;
    else if (change.added) y += change.count;
    else for (let k = 0; k < change.count; k++) out.push([x++, y++]);
  }
  return out;
}

/**
 * The banded search: the exact LCS of the next `window` keys of each side, of which the
 * part of its path inside the first half of both windows is kept; the next window starts
 * where that path leaves the half (so each window moves on by at least half a window on
 * one side, and a shift of up to about half a window between the runs is followed).
 */
function banded(a: Int32Array, b: Int32Array, window: number, out: MatchedPair[]) {
  const half = window >> 1;
  const rows = new Uint32Array(window * ((window + 31) >>> 5));
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const endA = Math.min(a.length, i + window);
    const endB = Math.min(b.length, j + window);
    const pairs = windowLcs(a, b, i, endA, j, endB, rows);
    if (endA === a.length && endB === b.length) {
      for (const p of pairs) out.push(p);
      return;
    }
    const ha = i + half;
    const hb = j + half;
    let k = 0;
    for (; k < pairs.length && pairs[k][0] < ha && pairs[k][1] < hb; k++) out.push(pairs[k]);
    // the path from the last kept pair to the next one (or to the window's end) leaves the half here
    const [nx, ny] = k < pairs.length ? pairs[k] : [endA, endB];
    i = Math.min(nx, ha);
    j = Math.min(ny, hb);
  }
}

/**
 * Each key's columns in b[lo, hi) (read backwards when `reversed`): a key with many
 * columns also gets a full bit mask of `words` words, a rare one has its bits set per row.
 */
function keyColumns(
  b: Int32Array,
  lo: number,
  hi: number,
  reversed: boolean,
  words: number,
): { columns: Map<number, number[]>; dense: Map<number, Uint32Array> } {
  const columns = new Map<number, number[]>();
  for (let j = 0; j < hi - lo; j++) {
    const key = b[reversed ? hi - 1 - j : lo + j];
    const list = columns.get(key);
    if (list) list.push(j);
    else columns.set(key, [j]);
  }
  const dense = new Map<number, Uint32Array>();
  for (const [key, cols] of columns)
    if (cols.length * 8 > words) {
      const mask = new Uint32Array(words);
      for (const j of cols) mask[j >>> 5] |= 1 << (j & 31);
      dense.set(key, mask);
    }
  return { columns, dense };
}

/**
 * An exact LCS of a[aLo..aHi) and b[bLo..bHi), bit-parallel like `rowLengths` but keeping
 * every row's bits (in `rows`, a window's worth: bounded, reused) to trace the path back
 * from the end: a match is always a step of some longest path; otherwise left while the
 * row does not step up at this column, else up.
 */
function windowLcs(a: Int32Array, b: Int32Array, aLo: number, aHi: number, bLo: number, bHi: number, rows: Uint32Array): MatchedPair[] {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const words = (m + 31) >>> 5;
  const { columns, dense } = keyColumns(b, bLo, bHi, false, words);
  const scratch = new Uint32Array(words);
  // row r lives at rows[r * words ..]; the row before the first is all ones (no step anywhere)
  let prev = -1;
  for (let r = 0; r < n; r++) {
    const at = r * words;
    if (prev < 0) rows.fill(0xffffffff, at, at + words);
    else rows.copyWithin(at, prev, prev + words);
    prev = at;
    const cols = columns.get(a[aLo + r]);
    if (!cols) continue;
    const mask = dense.get(a[aLo + r]) ?? scratch;
    if (mask === scratch) for (const j of cols) scratch[j >>> 5] |= 1 << (j & 31);
    const first = cols[0] >>> 5;
    const last = cols[cols.length - 1] >>> 5;
    let carry = 0;
    for (let w = first; w < words; w++) {
      if (w > last && carry === 0) break;
      const vw = rows[at + w];
      const mw = mask[w];
      const sum = vw + ((vw & mw) >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      rows[at + w] = (sum >>> 0) | (vw & ~mw);
    }
    if (mask === scratch) for (const j of cols) scratch[j >>> 5] = 0;
  }
  const reversed: MatchedPair[] = [];
  let x = n;
  let y = m;
  while (x > 0 && y > 0) {
    if (a[aLo + x - 1] === b[bLo + y - 1]) {
      reversed.push([aLo + --x, bLo + --y]);
      continue;
    }
    const bit = (rows[(x - 1) * words + ((y - 1) >>> 5)] >>> ((y - 1) & 31)) & 1;
    if (bit === 1)
      y--; // the row does not step up at this column: the cell to the left is as long
    else x--; // it steps up here without a match: the cell above is as long
  }
  return reversed.reverse();
}

/** The most pairs any common subsequence can have: per key, the smaller of its two counts. */
function multisetBound(a: Int32Array, b: Int32Array, kinds: number): number {
  const count = new Int32Array(kinds);
  for (const k of a) count[k]++;
  let bound = 0;
  for (const k of b)
    if (count[k] > 0) {
      count[k]--;
      bound++;
    }
  return bound;
}

/** Below this many table cells a subproblem is solved by the textbook table, with traceback. */
const SMALL = 4096;

/** The bit-parallel LCS with Hirschberg's split: exact, in linear space. Exported for tests. */
export function bitParallelLcs(a: readonly string[], b: readonly string[]): MatchedPair[] {
  const [ia, ib] = toIds(a, b);
  return bitParallelIds(ia, ib);
}

function bitParallelIds(a: Int32Array, b: Int32Array): MatchedPair[] {
  const out: MatchedPair[] = [];
  solve(a, b, 0, a.length, 0, b.length, out);
  return out;
}

function solve(a: Int32Array, b: Int32Array, aLo: number, aHi: number, bLo: number, bHi: number, out: MatchedPair[]) {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) out.push([aLo++, bLo++]);
  const suffix: MatchedPair[] = [];
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) suffix.push([--aHi, --bHi]);
  const n = aHi - aLo;
  const m = bHi - bLo;
  if (n > 0 && m > 0) {
    if (n === 1 || n * m <= SMALL) table(a, b, aLo, aHi, bLo, bHi, out);
    else {
      const mid = aLo + (n >> 1);
      const forward = rowLengths(a, b, aLo, mid, bLo, bHi, false);
      const backward = rowLengths(a, b, mid, aHi, bLo, bHi, true);
      // split b where the LCS of the top half with b's head plus the bottom half's with its tail is largest
      let split = 0;
      let best = -1;
      for (let j = 0; j <= m; j++) {
        const total = forward[j] + backward[m - j];
        if (total > best) {
          best = total;
          split = j;
        }
      }
      solve(a, b, aLo, mid, bLo, bLo + split, out);
      solve(a, b, mid, aHi, bLo + split, bHi, out);
    }
  }
  for (let k = suffix.length - 1; k >= 0; k--) out.push(suffix[k]);
}

/**
 * lengths[j] = LCS(a[aLo..aHi), b[bLo..bLo + j)), or, reversed, the LCS of the same rows
 * with b's last j items. Bit j of V is 0 where the table's row steps up at column j
 * (Hyyrö's V' = (V + (V & M)) | (V & ~M), M the columns whose key is the row's).
 */
function rowLengths(a: Int32Array, b: Int32Array, aLo: number, aHi: number, bLo: number, bHi: number, reversed: boolean): Int32Array {
  const m = bHi - bLo;
  const words = (m + 31) >>> 5;
  const { columns, dense } = keyColumns(b, bLo, bHi, reversed, words);
  const scratch = new Uint32Array(words);
  const v = new Uint32Array(words).fill(0xffffffff);
  for (let r = 0; r < aHi - aLo; r++) {
    const key = a[reversed ? aHi - 1 - r : aLo + r];
    const cols = columns.get(key);
    if (!cols) continue; // no column matches: the row equals the one before
    const mask = dense.get(key) ?? scratch;
    if (mask === scratch) for (const j of cols) scratch[j >>> 5] |= 1 << (j & 31);
    const first = cols[0] >>> 5;
    const last = cols[cols.length - 1] >>> 5;
    let carry = 0;
    for (let w = first; w < words; w++) {
      const vw = v[w];
      const mw = mask[w];
      if (w > last && carry === 0) break; // nothing left to change in this row
      const sum = vw + ((vw & mw) >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = (sum >>> 0) | (vw & ~mw);
    }
    if (mask === scratch) for (const j of cols) scratch[j >>> 5] = 0;
  }
  const lengths = new Int32Array(m + 1);
  for (let j = 0; j < m; j++) lengths[j + 1] = lengths[j] + ((v[j >>> 5] >>> (j & 31)) & 1 ? 0 : 1);
  return lengths;
}

/** The textbook table with traceback, for a small subproblem. */
function table(a: Int32Array, b: Int32Array, aLo: number, aHi: number, bLo: number, bHi: number, out: MatchedPair[]) {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const t = new Int32Array((n + 1) * (m + 1));
  const at = (x: number, y: number) => x * (m + 1) + y;
  for (let x = n - 1; x >= 0; x--)
    for (let y = m - 1; y >= 0; y--)
      t[at(x, y)] = a[aLo + x] === b[bLo + y] ? t[at(x + 1, y + 1)] + 1 : Math.max(t[at(x + 1, y)], t[at(x, y + 1)]);
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    if (a[aLo + x] === b[bLo + y]) out.push([aLo + x++, bLo + y++]);
    else if (t[at(x + 1, y)] >= t[at(x, y + 1)]) x++;
    else y++;
  }
}
