/**
 * Search within a run over the summary columns (type, tool or model name, call id, step,
 * status, seq): instant, no request. Payload text is searched by the server.
 */
import type { RunSummary } from "../graph/summary";

export function matchRows(s: RunSummary, query: string, limit = 100_000): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const asSeq = /^#?\d+$/.test(q) ? Number(q.replace("#", "")) : null;
  const out: number[] = [];
  // the columns repeat a few strings a million times: each distinct one is lowered once
  const seen = new Map<string, boolean>();
  const has = (v: string | null) => {
    if (v === null) return false;
    let r = seen.get(v);
    if (r === undefined) seen.set(v, (r = v.toLowerCase().includes(q)));
    return r;
  };
  for (let i = 0; i < s.n && out.length < limit; i++) {
    if (asSeq !== null && s.seq[i] === asSeq) out.push(i);
    else if (has(s.type[i]) || has(s.name[i]) || has(s.call[i]) || has(s.step[i]) || has(s.status[i])) out.push(i);
  }
  return out;
}

/** Merges two ascending row lists without duplicates. */
export function mergeRows(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i] : Infinity;
    const y = j < b.length ? b[j] : Infinity;
    const v = Math.min(x, y);
    if (out[out.length - 1] !== v) out.push(v);
    if (x === v) i++;
    if (y === v) j++;
  }
  return out;
}

/** The next match after `row` (or before, dir -1), wrapping around. */
export function nextMatch(matches: readonly number[], row: number, dir: 1 | -1): number {
  if (matches.length === 0) return -1;
  if (dir === 1) {
    for (const m of matches) if (m > row) return m;
    return matches[0];
  }
  for (let i = matches.length - 1; i >= 0; i--) if (matches[i] < row) return matches[i];
  return matches[matches.length - 1];
}
