/**
 * A longest common subsequence of two key sequences, as index pairs, exactly, whatever
 * the inputs. Two exact algorithms, each fast where the other is slow:
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
 */
import { diffArrays } from "diff";

export type MatchedPair = [number, number];

/** Index pairs (ascending on both sides) of a longest common subsequence of a and b. */
export function longestCommonSubsequence(a: readonly string[], b: readonly string[]): MatchedPair[] {
  const out: MatchedPair[] = [];
  // a common prefix and suffix belong to some longest common subsequence: pair them directly
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) out.push([lo, lo++]);
  let endA = a.length;
  let endB = b.length;
  const suffix: MatchedPair[] = [];
  while (endA > lo && endB > lo && a[endA - 1] === b[endB - 1]) suffix.push([--endA, --endB]);
  const midA = a.slice(lo, endA);
  const midB = b.slice(lo, endB);
  if (midA.length > 0 && midB.length > 0) {
    const inner = myersWithin(midA, midB, editBudget(midA.length, midB.length)) ?? bitParallelLcs(midA, midB);
    for (const [x, y] of inner) out.push([x + lo, y + lo]);
  }
  for (let k = suffix.length - 1; k >= 0; k--) out.push(suffix[k]);
  return out;
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
function myersWithin(a: readonly string[], b: readonly string[], maxEditLength: number): MatchedPair[] | undefined {
  const changes = diffArrays(a as string[], b as string[], { maxEditLength });
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

/** Below this many table cells a subproblem is solved by the textbook table, with traceback. */
const SMALL = 4096;

/** The bit-parallel LCS with Hirschberg's split: exact, in linear space. Exported for tests. */
export function bitParallelLcs(a: readonly string[], b: readonly string[]): MatchedPair[] {
  const ids = new Map<string, number>();
  const id = (k: string) => {
    let v = ids.get(k);
    if (v === undefined) ids.set(k, (v = ids.size));
    return v;
  };
  const ia = Int32Array.from(a, id);
  const ib = Int32Array.from(b, id);
  const out: MatchedPair[] = [];
  solve(ia, ib, 0, ia.length, 0, ib.length, out);
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
  // each key's columns; a key with many columns gets a full mask, a rare one its bits set per row
  const columns = new Map<number, number[]>();
  for (let j = 0; j < m; j++) {
    const key = b[reversed ? bHi - 1 - j : bLo + j];
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
