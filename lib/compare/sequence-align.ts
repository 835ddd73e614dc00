/**
 * Aligns two sequences of keys: the longest common subsequence pairs equal keys, and what
 * lies between two pairs is offered to `pairGap` (which may pair unequal items, e.g. two
 * tool calls of the same type whose tool changed). Common prefix and suffix are taken
 * first, so two runs that agree up to a point cost almost nothing.
 */

export type Pair = readonly [number | null, number | null];

/** Beyond this many cells the quadratic LCS is not attempted (the gap is paired by position instead). */
export const MAX_LCS_CELLS = 4_000_000;

export interface AlignOptions {
  /** Pairs the items of a gap (indices into a and b, ascending); what it leaves out is unpaired. */
  pairGap?: (aIdx: number[], bIdx: number[]) => Pair[];
  maxCells?: number;
}

/** Pairs (aIndex | null, bIndex | null) covering every index of both sequences once, in order. */
export function alignSequences(a: readonly string[], b: readonly string[], options: AlignOptions = {}): Pair[] {
  const maxCells = options.maxCells ?? MAX_LCS_CELLS;
  const out: Pair[] = [];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    out.push([start, start]);
    start++;
  }
  let endA = a.length;
  let endB = b.length;
  const suffix: Pair[] = [];
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
    suffix.push([endA, endB]);
  }
  const matches = lcsMatches(a, b, start, endA, start, endB, maxCells);
  let i = start;
  let j = start;
  const flushGap = (toA: number, toB: number) => {
    const gapA: number[] = [];
    const gapB: number[] = [];
    for (; i < toA; i++) gapA.push(i);
    for (; j < toB; j++) gapB.push(j);
    if (gapA.length === 0 && gapB.length === 0) return;
    out.push(...completeGap(gapA, gapB, options.pairGap));
  };
  for (const [ma, mb] of matches) {
    flushGap(ma, mb);
    out.push([ma, mb]);
    i = ma + 1;
    j = mb + 1;
  }
  flushGap(endA, endB);
  for (let k = suffix.length - 1; k >= 0; k--) out.push(suffix[k]);
  return out;
}

/** The gap's own pairing, completed so that every index appears once and in order. */
function completeGap(gapA: number[], gapB: number[], pairGap: AlignOptions["pairGap"]): Pair[] {
  const paired = pairGap ? pairGap(gapA, gapB) : [];
  const out: Pair[] = [];
  let ia = 0;
  let ib = 0;
  for (const [pa, pb] of paired) {
    if (pa === null || pb === null) continue;
    // only pairs that keep both sides in order are taken
    const at = gapA.indexOf(pa, ia);
    const bt = gapB.indexOf(pb, ib);
    if (at < 0 || bt < 0) continue;
    for (; ia < at; ia++) out.push([gapA[ia], null]);
    for (; ib < bt; ib++) out.push([null, gapB[ib]]);
    out.push([pa, pb]);
    ia = at + 1;
    ib = bt + 1;
  }
  for (; ia < gapA.length; ia++) out.push([gapA[ia], null]);
  for (; ib < gapB.length; ib++) out.push([null, gapB[ib]]);
  return out;
}

/** Index pairs of one longest common subsequence of a[fromA, toA) and b[fromB, toB). */
function lcsMatches(
  a: readonly string[],
  b: readonly string[],
  fromA: number,
  toA: number,
  fromB: number,
  toB: number,
  maxCells: number,
): Array<[number, number]> {
  const n = toA - fromA;
  const m = toB - fromB;
  if (n === 0 || m === 0) return [];
  if (n * m > maxCells) return positionalMatches(a, b, fromA, toA, fromB, toB);
  // lengths of the LCS of suffixes, one row at a time; directions kept for the walk back
  const dir = new Uint8Array(n * m); // 1: match, 2: skip a, 3: skip b
  let next = new Uint32Array(m + 1);
  let cur = new Uint32Array(m + 1);
  for (let x = n - 1; x >= 0; x--) {
    cur[m] = 0;
    for (let y = m - 1; y >= 0; y--) {
      if (a[fromA + x] === b[fromB + y]) {
        cur[y] = next[y + 1] + 1;
        dir[x * m + y] = 1;
      } else if (next[y] >= cur[y + 1]) {
        cur[y] = next[y];
        dir[x * m + y] = 2;
      } else {
        cur[y] = cur[y + 1];
        dir[x * m + y] = 3;
      }
    }
    const t = next;
    next = cur;
    cur = t;
  }
  const out: Array<[number, number]> = [];
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    const d = dir[x * m + y];
    if (d === 1) {
      out.push([fromA + x, fromB + y]);
      x++;
      y++;
    } else if (d === 2) x++;
    else y++;
  }
  return out;
}

/** Too big for LCS: equal keys at the same offset are paired, the rest stays a gap. */
function positionalMatches(
  a: readonly string[],
  b: readonly string[],
  fromA: number,
  toA: number,
  fromB: number,
  toB: number,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let k = 0; fromA + k < toA && fromB + k < toB; k++) if (a[fromA + k] === b[fromB + k]) out.push([fromA + k, fromB + k]);
  return out;
}
