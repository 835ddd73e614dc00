/**
 * Aligns two sequences of keys: a common subsequence (`lcs.ts`: the longest one, or past
 * the budget a banded one that says so) pairs equal keys, and what lies between two pairs
 * is offered to `pairGap` (which may pair unequal items, e.g. two tool calls of the same
 * type whose tool changed).
 */
import { boundedCommonSubsequence, LCS_BUDGET, type ApproximateStretch, type LcsBudget } from "./lcs";

export type Pair = readonly [number | null, number | null];

/** A stretch aligned by the banded search rather than exactly (indices of a and b, see lcs.ts). */
export type ApproximateSpan = ApproximateStretch;

interface AlignOptions {
  /** Pairs the items of a gap (indices into a and b, ascending); what it leaves out is unpaired. */
  pairGap?: (aIdx: number[], bIdx: number[]) => Pair[];
  /** Where exact gives way to banded (lcs.ts `LCS_BUDGET`); tests make it small. */
  budget?: LcsBudget;
  /** Told of a stretch that was aligned approximately (never called when the alignment is exact). */
  onApproximate?: (span: ApproximateSpan) => void;
}

/** Pairs (aIndex | null, bIndex | null) covering every index of both sequences once, in order. */
export function alignSequences(a: readonly string[], b: readonly string[], options: AlignOptions = {}): Pair[] {
  // one item each, what most gaps between pairs are: what the general path gives, without its sets and maps
  if (a.length === 1 && b.length === 1) return a[0] === b[0] ? [[0, 0]] : completeGap([0], [0], options.pairGap);
  // A key the other side does not have is never paired, so it is left out of the diff
  // (as GNU diff discards unmatchable lines): the pairs are those of a longest common
  // subsequence either way, and the search gets cheaper by what it no longer sees.
  const inA = new Set(a);
  const inB = new Set(b);
  const idxA = matchable(a, inB);
  const idxB = matchable(b, inA);
  const out: Pair[] = [];
  let i = 0;
  let j = 0;
  const flushGap = (toA: number, toB: number) => {
    const gapA: number[] = [];
    const gapB: number[] = [];
    for (; i < toA; i++) gapA.push(i);
    for (; j < toB; j++) gapB.push(j);
    if (gapA.length > 0 || gapB.length > 0) for (const p of completeGap(gapA, gapB, options.pairGap)) out.push(p);
  };
  const { pairs, approximate } = boundedCommonSubsequence(
    idxA.map((k) => a[k]),
    idxB.map((k) => b[k]),
    options.budget ?? LCS_BUDGET,
  );
  if (approximate && options.onApproximate) {
    const span = (idx: number[], [from, to]: readonly [number, number]) => [idx[from], idx[to - 1] + 1] as const;
    options.onApproximate({ ...approximate, a: span(idxA, approximate.a), b: span(idxB, approximate.b) });
  }
  for (const [x, y] of pairs) {
    flushGap(idxA[x], idxB[y]);
    out.push([idxA[x], idxB[y]]);
    i++;
    j++;
  }
  flushGap(a.length, b.length);
  return out;
}

function matchable(keys: readonly string[], other: ReadonlySet<string>): number[] {
  const out: number[] = [];
  for (let k = 0; k < keys.length; k++) if (other.has(keys[k])) out.push(k);
  return out;
}

/** The gap's own pairing, completed so that every index appears once and in order. */
function completeGap(gapA: number[], gapB: number[], pairGap: AlignOptions["pairGap"]): Pair[] {
  const paired = pairGap && gapA.length > 0 && gapB.length > 0 ? pairGap(gapA, gapB) : [];
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
