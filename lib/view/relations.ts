/**
 * Events related across the run by what the analyzer found: a write call that retried an
 * earlier one whose outcome was unknown (`effect.retry-after-unknown`), and one that
 * repeated an earlier one that had succeeded (`effect.duplicate`). Both findings sit on the
 * later call and name the earlier one's seq in their message, so the relation is read from
 * the findings the run already has, and shown both ways: the earlier call's tool pane says
 * "retried by #29", the later one's "retries #26", and the graph draws an edge between them.
 */
import { seqsNamed } from "../analyze";
import type { FindingItem } from "./api-types";

type RelationKind = "retry" | "duplicate";

export interface Relation {
  kind: RelationKind;
  /** the earlier call */
  earlier: number;
  /** the later call, where the finding is */
  later: number;
}

const KIND_OF_RULE: Readonly<Record<string, RelationKind>> = {
  "effect.retry-after-unknown": "retry",
  "effect.duplicate": "duplicate",
};

/** Every relation the findings state, once each, in order of the later call. */
export function relationsOf(findings: readonly FindingItem[]): Relation[] {
  const out: Relation[] = [];
  const seen = new Set<string>();
  for (const f of findings) {
    const kind = KIND_OF_RULE[f.rule];
    if (!kind) continue;
    const earlier = seqsNamed(f.message).find((s) => s < f.seq);
    if (earlier === undefined) continue;
    const key = `${kind}:${earlier}:${f.seq}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ kind, earlier, later: f.seq });
  }
  return out.sort((a, b) => a.later - b.later || a.earlier - b.earlier);
}

interface RelatedAt {
  /** later calls that retried this one */
  retriedBy: number[];
  /** the earlier call this one retried */
  retries: number[];
  duplicatedBy: number[];
  duplicates: number[];
}

/** What is related to the event at `seq`, both ways. */
export function relatedAt(relations: readonly Relation[], seq: number): RelatedAt {
  const at: RelatedAt = { retriedBy: [], retries: [], duplicatedBy: [], duplicates: [] };
  for (const r of relations) {
    if (r.earlier === seq) (r.kind === "retry" ? at.retriedBy : at.duplicatedBy).push(r.later);
    if (r.later === seq) (r.kind === "retry" ? at.retries : at.duplicates).push(r.earlier);
  }
  return at;
}
