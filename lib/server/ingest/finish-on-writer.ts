import "server-only";
/**
 * Row finishing on the SQLite writer thread, both halves: what the request's thread leaves
 * to the writer (ROW_WORK flags on each row) and what the writer does with it
 * (createWriterChains, run by sqlite-writer.worker.ts on each unpacked row). Moving the
 * work there balances the per-event cost across the two threads of a two-core machine.
 */
import { canonicalOfLine, nextServerHash, verifyEvent, verifyLink, type ChainVerdict } from "../../journal/chain";
import type { SqlTx, WriterChain } from "../sql";
import { COLUMN, ROW_WORK, type FinishFlatRow } from "../sqlite-rows";
import type { RowFinisher } from "./row-finisher";
import { rawText, storedText } from "./pending";

/** Row batches the writer may have queued and still be given raw lines (IngestOptions.writerBacklog). */
export const WRITER_BACKLOG = 2;

export function createWriterFinisher(tx: SqlTx, backlogLimit: number): RowFinisher {
  // Whether the writer thread takes on deriving stored texts from raw lines (the costliest
  // work it can do for this thread: a JSON.parse and a canonicalisation an event). Decided
  // per batch by its backlog, so the two threads share the work whatever the machine.
  let writerKeepsUp = backlogLimit >= 0;
  return {
    finish(chain, p, s, prevRecorded, extendsChain) {
      let verdict: ChainVerdict | null;
      let body: string;
      let work = 0;
      if (p.canonicalStored === null) {
        // the stored text is what arrived: the writer verifies the link on it
        work |= ROW_WORK.storedIsRaw;
        verdict = typeof p.raw.hash !== "string" || (s !== 0 && prevRecorded === undefined) ? "none" : null;
        if (p.canonicalRaw === null && p.text !== null && writerKeepsUp) {
          body = p.text;
          work |= ROW_WORK.rawLine | (p.keysSorted ? ROW_WORK.sortedKeys : 0);
        } else {
          body = rawText(p);
        }
      } else {
        // redacted: the link is verified on the raw text, which only this thread has
        verdict = verifyEvent(prevRecorded, p.raw, rawText(p));
        body = storedText(p);
      }
      let chainSeed: string | null = null;
      if (extendsChain) {
        work |= ROW_WORK.extendsChain;
        if (!chain.seeded) {
          chainSeed = chain.tailServerHash;
          chain.seeded = true;
        }
      }
      const prevHash = work === 0 ? null : s === 0 ? "" : (prevRecorded ?? null);
      return { body, chain: verdict, hash: null, work, prevHash, chainSeed };
    },
    flushed(t) {
      writerKeepsUp = t.backlog() <= backlogLimit;
    },
    async settle(t, chain) {
      const w = await t.chainResults(chain.runId);
      for (const seq of w.fails) chain.newFail = Math.min(chain.newFail ?? seq, seq);
      if (!w.allOk) chain.allNewOk = false;
      if (w.tail !== null) chain.tailServerHash = w.tail;
      return w.fails;
    },
  };
}

interface Tail {
  tail: string;
  extended: boolean;
  fails: number[];
  allOk: boolean;
}

/** The writer's side: per run, in the open transaction, the server chain's tail and the links found broken. */
export function createWriterChains(): { finish: FinishFlatRow; results(runId: string): WriterChain; reset(): void } {
  let chains = new Map<string, Tail>();
  const chainOf = (runId: string): Tail => {
    let c = chains.get(runId);
    if (!c) {
      c = { tail: "", extended: false, fails: [], allOk: true };
      chains.set(runId, c);
    }
    return c;
  };
  return {
    finish(flat, base, work, prevHash, chainSeed) {
      let body = flat[base + COLUMN.body] as string;
      if (work & ROW_WORK.rawLine) {
        body = canonicalOfLine(body, (work & ROW_WORK.sortedKeys) !== 0);
        flat[base + COLUMN.body] = body;
      }
      const recorded = flat[base + COLUMN.recordedHash] as string | null;
      let verdict = flat[base + COLUMN.chain] as ChainVerdict | null;
      const c = chainOf(flat[base + COLUMN.runId] as string);
      if (verdict === null) {
        verdict = verifyLink(prevHash, body, recorded);
        flat[base + COLUMN.chain] = verdict;
        if (verdict === "fail") c.fails.push(flat[base + COLUMN.seq] as number);
        if (verdict !== "ok") c.allOk = false;
      }
      if (work & ROW_WORK.extendsChain) {
        if (chainSeed !== null) c.tail = chainSeed;
        c.tail = nextServerHash(c.tail, body, {
          verdict,
          storedIsRaw: (work & ROW_WORK.storedIsRaw) !== 0,
          prevRecordedHash: prevHash,
          recordedHash: recorded,
        });
        c.extended = true;
        flat[base + COLUMN.hash] = c.tail;
      }
    },
    results(runId) {
      const c = chains.get(runId);
      return c ? { tail: c.extended ? c.tail : null, fails: c.fails, allOk: c.allOk } : { tail: null, fails: [], allOk: true };
    },
    reset() {
      chains = new Map();
    },
  };
}
