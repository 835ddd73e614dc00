/**
 * Findings as a reviewer walks them: where a run opens (its first failure or most severe finding),
 * the seqs `n` / `N` step through, and findings grouped by rule with counts.
 */
import type { RunIndex } from "@/lib/graph";
import type { FindingItem } from "./api-types";

const RANK: Record<FindingItem["severity"], number> = { error: 2, warning: 1 };

/** The first (lowest seq) of the most severe findings: the event a run with findings opens on. */
export function firstMostSevere(findings: readonly FindingItem[]): FindingItem | null {
  let best: FindingItem | null = null;
  for (const f of findings) {
    if (!best || RANK[f.severity] > RANK[best.severity] || (RANK[f.severity] === RANK[best.severity] && f.seq < best.seq)) best = f;
  }
  return best;
}

/**
 * Where a run opens without `?event=`: where it went wrong. Its first error finding (the
 * analyzer's reading of the cause, e.g. the retried refund rather than the timeout that
 * preceded it), else its first failed event (`firstFailure`, the timeline's counted
 * failures), else its first warning; null when nothing went wrong.
 */
export function openingSeq(findings: readonly FindingItem[], firstFailure: number | null): number | null {
  const worst = firstMostSevere(findings);
  if (worst?.severity === "error") return worst.seq;
  return firstFailure ?? worst?.seq ?? null;
}

/** The seqs that have findings, ascending, each once (optionally of one severity). */
export function findingSeqs(findings: readonly FindingItem[], severity: FindingItem["severity"] | "" = ""): number[] {
  const seqs = new Set<number>();
  for (const f of findings) if (!severity || f.severity === severity) seqs.add(f.seq);
  return [...seqs].sort((a, b) => a - b);
}

/**
 * What `n` / `N` step through on the run page: every event that has a finding and every
 * failed event (the index's `failed`, counted by lib/semantics' failure test as the
 * timeline and the runs list count them), ascending, each once. One pass over the rows.
 */
export function markSeqs(findingSeqs: readonly number[], index: Pick<RunIndex, "n" | "failed" | "summary">): number[] {
  const out: number[] = [];
  let f = 0;
  const push = (seq: number) => {
    if (out.length === 0 || out[out.length - 1] !== seq) out.push(seq);
  };
  for (let row = 0; row < index.n; row++) {
    if (index.failed[row] !== 1) continue;
    const seq = index.summary.seq[row];
    while (f < findingSeqs.length && findingSeqs[f] < seq) push(findingSeqs[f++]);
    push(seq);
  }
  while (f < findingSeqs.length) push(findingSeqs[f++]);
  return out;
}

interface FindingGroup {
  rule: string;
  severity: FindingItem["severity"];
  /** in seq order */
  findings: FindingItem[];
}

/**
 * One group per rule (100 identical `secret.exposed` are one group of 100), errors first,
 * then by the group's first seq; optionally only one severity.
 */
export function groupFindings(findings: readonly FindingItem[], severity: FindingItem["severity"] | "" = ""): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const f of findings) {
    if (severity && f.severity !== severity) continue;
    let g = groups.get(f.rule);
    if (!g) groups.set(f.rule, (g = { rule: f.rule, severity: f.severity, findings: [] }));
    if (RANK[f.severity] > RANK[g.severity]) g.severity = f.severity;
    g.findings.push(f);
  }
  const out = [...groups.values()];
  for (const g of out) g.findings.sort((a, b) => a.seq - b.seq);
  return out.sort((a, b) => RANK[b.severity] - RANK[a.severity] || a.findings[0].seq - b.findings[0].seq);
}

// Among findings of one severity at one event, what a reviewer reads first: an effect that
// may have happened twice before the approval it lacked, before the rest.
const FAMILY = ["effect.", "approval.", "loop.", "state.", "secret.", "retrieval.", "tool.", "context.", "journal."];
const familyRank = (rule: string) => {
  const i = FAMILY.findIndex((p) => rule.startsWith(p));
  return i < 0 ? FAMILY.length : i;
};

/** The findings of one event in reading order: errors first, then by rule family, then rule id. */
export function orderAtEvent(findings: readonly FindingItem[]): FindingItem[] {
  return [...findings].sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] || familyRank(a.rule) - familyRank(b.rule) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}
