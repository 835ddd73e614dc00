/**
 * A branch run beside its original (the replay page's side-by-side view): rows aligned by
 * seq, and where they first differ, comparing payloads without the marks a branch adds.
 */
import { canonicalJson } from "../canonical";
import type { JournalEvent } from "../journal/types";
import { frameMode, type FrameMode } from "./mode";

/** One row of a branch run beside its original, aligned by seq. */
export interface SideBySideRow {
  seq: number;
  original: { type: string } | null;
  branch: { type: string; mode: FrameMode } | null;
  /** the two events differ here (what a live action or the what-if wrote is not compared by its marks) */
  differs: boolean;
}

/** An event's data as compared across a branch and its original: without the marks a branch adds. */
function comparable(e: JournalEvent): string {
  const { live: _l, whatIf: _w, ...rest } = e.data;
  void _l;
  void _w;
  if (e.type === "run.start") {
    const { forkOf: _f, mode: _m, ...start } = rest;
    void _f;
    void _m;
    return canonicalJson({ type: e.type, data: start });
  }
  return canonicalJson({ type: e.type, data: rest });
}

/**
 * A branch run beside its original from a little before the fork: rows aligned by seq and
 * the first seq where they differ (null: none in the window). Both lists sorted by seq.
 */
export function sideBySide(
  original: readonly JournalEvent[],
  branch: readonly JournalEvent[],
): { rows: SideBySideRow[]; firstDivergence: number | null } {
  const o = new Map(original.map((e) => [e.seq as number, e]));
  const b = new Map(branch.map((e) => [e.seq as number, e]));
  const seqs = [...new Set([...o.keys(), ...b.keys()])].sort((x, y) => x - y);
  let firstDivergence: number | null = null;
  const rows = seqs.map((seq) => {
    const oe = o.get(seq);
    const be = b.get(seq);
    const differs = !oe || !be || comparable(oe) !== comparable(be);
    if (differs && firstDivergence === null) firstDivergence = seq;
    return {
      seq,
      original: oe ? { type: oe.type } : null,
      branch: be ? { type: be.type, mode: frameMode(be) } : null,
      differs,
    };
  });
  return { rows, firstDivergence };
}

/** Where the gateway said a replay of the agent first departed from its recording (the branch's run.end `output.divergence`). */
export interface ReplayDivergence {
  /** the seq in the recorded journal of the first event that differs */
  seq: number;
  kind: string;
  /** a JSON pointer into the request */
  path: string;
  recorded: unknown;
  replayed: unknown;
}

/**
 * A replay of the agent (`retrace replay -- CMD`) beside its recording. The gateway's
 * matcher decided where the replay departed (`divergence`; null: every request matched),
 * and this view does not decide it again: rows before that seq are the matched part, the
 * row at it is the first divergence, and rows after it differ. The branch writes the same
 * events in the same order as the recording did, so the two align by seq.
 */
export function sideBySideReplay(
  original: readonly JournalEvent[],
  branch: readonly JournalEvent[],
  divergence: ReplayDivergence | null,
): { rows: SideBySideRow[]; firstDivergence: number | null } {
  const o = new Map(original.map((e) => [e.seq as number, e]));
  const b = new Map(branch.map((e) => [e.seq as number, e]));
  const seqs = [...new Set([...o.keys(), ...b.keys()])].sort((x, y) => x - y);
  const at = divergence?.seq ?? null;
  const rows = seqs.map((seq) => {
    const oe = o.get(seq);
    const be = b.get(seq);
    return {
      seq,
      original: oe ? { type: oe.type } : null,
      branch: be ? { type: be.type, mode: frameMode(be) } : null,
      differs: at !== null && seq >= at,
    };
  });
  return { rows, firstDivergence: at };
}

/** A live branch beside its original, as the replay page shows it (lib/server/live/continue.ts builds it). */
export interface SideBySideView {
  original: string;
  branch: string;
  kind: string;
  forkSeq: number;
  from: number;
  rows: SideBySideRow[];
  firstDivergence: number | null;
  /** more rows than shown */
  truncated: boolean;
}

/** A replay of the agent beside its recording, as the replay page shows it (lib/server/viewer/replay-beside.ts builds it). */
export interface ReplayBesideView {
  original: string;
  branch: string;
  /** the branch's run.start `mode`: recorded, or recorded-then-live */
  mode: string;
  /** null: every request matched (or the replay has not ended) */
  divergence: ReplayDivergence | null;
  /** the replay has ended (its run.end is stored) */
  ended: boolean;
  from: number;
  rows: SideBySideRow[];
  firstDivergence: number | null;
  /** more rows than shown */
  truncated: boolean;
}
