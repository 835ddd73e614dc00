import "server-only";
/**
 * Resends: an event at a seq already taken (earlier in the request or stored before) is a
 * duplicate when identical and a conflict when not, compared on the stored form.
 */
import { canonicalWithoutHash } from "../../journal/chain";
import type { ReaderItem } from "../../journal/reader";
import { SeqMap } from "../../journal/seq-map";
import type { JournalEvent } from "../../journal/types";
import type { SqlTx } from "../sql";
import { ROW_WORK, type IngestRow } from "../sqlite-rows";
import type { IngestError } from "./types";

/** The stored text of a row handed over before the writer finished it. */
export function storedTextOfRow(r: IngestRow): string {
  if (!(r.work & ROW_WORK.rawLine)) return r.body;
  return canonicalWithoutHash(JSON.parse(r.body) as JournalEvent, (r.work & ROW_WORK.sortedKeys) !== 0);
}

export class RunResends {
  /** Seqs taken in this request → the line that took them. */
  private readonly seen = new SeqMap<number>();
  /** Stored bodies of the resends in the current input batch (prefetchResends). */
  readonly bodies = new Map<number, string>();

  /** `stored`: every seq stored (before or in this request). */
  constructor(
    private readonly runId: string,
    private readonly stored: SeqMap<string | null>,
  ) {}

  isStored(seq: number): boolean {
    return this.stored.has(seq);
  }

  /** Takes `seq` for the event at `line`, unless it is taken already (a resend: classify it). */
  take(seq: number, line: number): boolean {
    if (this.seen.get(seq) !== undefined || this.stored.has(seq)) return false;
    this.seen.set(seq, line);
    return true;
  }

  /**
   * A resend at `seq` (take gave false) with stored text `text`: a duplicate or a conflict.
   * `inRequest` gives the stored text of an event this request has not handed to the
   * database yet.
   */
  async classify(
    tx: SqlTx,
    seq: number,
    text: string,
    line: number,
    inRequest: (seq: number) => string | undefined,
  ): Promise<"duplicate" | IngestError> {
    const earlier = inRequest(seq) ?? this.bodies.get(seq) ?? (await this.readBody(tx, seq));
    if (earlier === text) return "duplicate";
    const seenAt = this.seen.get(seq);
    return {
      line,
      run: this.runId,
      seq,
      kind: "conflict",
      message:
        seenAt !== undefined
          ? `seq ${seq} was already sent at line ${seenAt} with different content`
          : `seq ${seq} is already stored for run "${this.runId}" with different content`,
    };
  }

  private async readBody(tx: SqlTx, seq: number): Promise<string | null> {
    const rows = await tx.all<{ body: string }>(`SELECT "body" FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [this.runId, seq]);
    return rows[0]?.body ?? null;
  }

  /**
   * Reads the stored bodies of `seqs` (the resends of one input batch) by seq range: a whole
   * journal sent again took one query per event. Ranges, not an IN list: PostgreSQL, before
   * it has statistics for a table just filled, plans a long IN list as a scan of the whole
   * run but a range as an index range. Seqs far apart get ranges of their own, so a
   * shuffled batch never reads much more than it asked for.
   */
  async prefetch(tx: SqlTx, seqs: number[]): Promise<void> {
    seqs.sort((a, b) => a - b);
    for (let i = 0; i < seqs.length;) {
      let j = i;
      while (j + 1 < seqs.length && seqs[j + 1] - seqs[j] <= 64) j++;
      const rows = await tx.all<{ seq: number; body: string }>(
        `SELECT "seq", "body" FROM "Event" WHERE "runId" = ? AND "seq" >= ? AND "seq" <= ?`,
        [this.runId, seqs[i], seqs[j]],
      );
      i = j + 1;
      for (const r of rows) this.bodies.set(Number(r.seq), r.body);
    }
  }
}

/** Reads, in one query per run and range, the stored bodies of the resends in an input batch. */
export async function prefetchResends(
  tx: SqlTx,
  batch: ReaderItem[],
  open: (runId: string) => RunResends | undefined,
  all: Iterable<RunResends>,
): Promise<void> {
  const wanted = new Map<RunResends, number[]>();
  for (const item of batch) {
    if (item.kind !== "event") continue;
    const r = open(item.event.run);
    if (!r || !r.isStored(item.event.seq)) continue;
    let seqs = wanted.get(r);
    if (!seqs) wanted.set(r, (seqs = []));
    seqs.push(item.event.seq);
  }
  for (const r of all) r.bodies.clear();
  for (const [r, seqs] of wanted) await r.prefetch(tx, seqs);
}
