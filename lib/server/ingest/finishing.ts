import "server-only";
/**
 * Row finishing: an event's stored text, the recorder's link verified on what arrived and
 * the server's chain extended over what is stored. One interface, two implementations:
 * on the request's thread (finish-in-thread.ts, PostgreSQL) and on the SQLite writer
 * thread (finish-on-writer.ts). Which one runs is the transaction's (SqlTx.finishesRows);
 * tests/storage/row-finishing.test.ts stores one journal every way and compares every column.
 */
import { chainHashOf, verifyLink } from "../../journal/chain";
import type { SeqMap } from "../../journal/seq-map";
import type { SqlTx } from "../sql";
import { createInThreadFinisher } from "./finish-in-thread";
import type { FinishedFields, RowFinisher, RunChain } from "./row-finisher";
import { takeLink } from "./pending-links";
import { createWriterFinisher } from "./finish-on-writer";
import type { Pending } from "./pending";
import type { RunRow } from "./run-row";

export type { FinishedFields, RowFinisher, RunChain } from "./row-finisher";

export function runChainOf(row: RunRow): RunChain {
  return {
    runId: row.id,
    tailSeq: row.maxSeq,
    tailServerHash: row.serverLastHash ?? "",
    seeded: false,
    rechainFrom: null,
    newFail: null,
    allNewOk: true,
  };
}

export function finisherFor(tx: SqlTx, writerBacklog: number): RowFinisher {
  return tx.finishesRows ? createWriterFinisher(tx, writerBacklog) : createInThreadFinisher();
}

/** Finishes the row of `p` and keeps the run's chain bookkeeping (whichever finisher). */
export function finishRow(finisher: RowFinisher, chain: RunChain, p: Pending, s: number, prevRecorded: string | undefined): FinishedFields {
  const extendsChain = s > chain.tailSeq;
  const f = finisher.finish(chain, p, s, prevRecorded, extendsChain);
  // A gap filled late: the chain after it is recomputed at the end of the request.
  if (extendsChain) chain.tailSeq = s;
  else chain.rechainFrom = Math.min(chain.rechainFrom ?? s, s);
  if (f.chain === "fail") chain.newFail = Math.min(chain.newFail ?? s, s);
  if (f.chain !== null && f.chain !== "ok") chain.allNewOk = false;
  return f;
}

/**
 * The run row's chain columns once every row is stored: the recorder's tail, the server's
 * (recomputed after a gap filled late) and the verdict. While a late gap waits to be
 * settled (Run.settleFrom), the server's tail is not final and the run is not verified.
 */
export async function concludeChain(tx: SqlTx, row: RunRow, chain: RunChain, stored: SeqMap<string | null>, isNew: boolean) {
  const next = row.nextSeq;
  if (chain.rechainFrom !== null) row.serverLastHash = await rechain(tx, row.id, chain.rechainFrom);
  else row.serverLastHash = chain.tailServerHash || row.serverLastHash;
  row.recorderLastHash = stored.get(row.maxSeq) ?? row.recorderLastHash;

  if (chain.rechainFrom !== null) {
    const agg = await tx.all<{ ok: number | string | null; broken: number | string | null }>(
      `SELECT SUM(CASE WHEN "chain" = 'ok' THEN 1 ELSE 0 END) AS ok, MIN(CASE WHEN "chain" = 'fail' THEN "seq" END) AS broken FROM "Event" WHERE "runId" = ?`,
      [row.id],
    );
    const ok = Number(agg[0]?.ok ?? 0);
    const broken = agg[0]?.broken === null || agg[0]?.broken === undefined ? null : Number(agg[0].broken);
    row.chainBrokenAt = broken;
    row.chainStatus = broken !== null ? "broken" : ok === row.eventCount && next === row.maxSeq + 1 ? "verified" : "unverified";
  } else {
    const wasVerifiedOrNew = isNew || row.chainStatus === "verified";
    // a verdict once "fail" stays so: a late event only decides links that were "none"
    if (chain.newFail !== null) {
      row.chainBrokenAt = row.chainBrokenAt === null ? chain.newFail : Math.min(row.chainBrokenAt, chain.newFail);
    }
    row.chainStatus =
      row.chainBrokenAt !== null
        ? "broken"
        : row.settleFrom === null && wasVerifiedOrNew && chain.allNewOk && next === row.maxSeq + 1
          ? "verified"
          : "unverified";
  }
}

/** Rows read, and rows written a statement, when the server chain is recomputed. */
const RECHAIN_PAGE = 2000;
const RECHAIN_PER_UPDATE = 250;

/**
 * Recomputes the server chain (and the recorder verdicts it can) from `from` on; the new
 * tail. Read a page at a time and written a few hundred rows a statement (WITH … VALUES
 * UPDATE … FROM, on both databases), not a statement a row.
 */
async function rechain(tx: SqlTx, runId: string, from: number): Promise<string> {
  const prev = await tx.all<{ hash: string | null; recordedHash: string | null; seq: number }>(
    `SELECT "hash", "recordedHash", "seq" FROM "Event" WHERE "runId" = ? AND "seq" < ? ORDER BY "seq" DESC LIMIT 1`,
    [runId, from],
  );
  let hash = prev[0]?.hash ?? "";
  let prevSeq = prev.length > 0 ? Number(prev[0].seq) : -1;
  let prevRecorded: string | null = prev[0]?.recordedHash ?? null;
  for (let after = from - 1; ;) {
    const rows = await tx.all<{ seq: number; body: string; recordedHash: string | null; chain: string; redactions: number }>(
      `SELECT "seq", "body", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ${RECHAIN_PAGE}`,
      [runId, after],
    );
    const updates: Array<[number, string, string]> = [];
    for (const r of rows) {
      const seq = Number(r.seq);
      const storedIsRaw = Number(r.redactions) === 0;
      let chain = r.chain;
      // A verdict of "none" for want of a predecessor can be given now: on the stored body
      // when it is what arrived, else on the text held in memory since it arrived.
      const prevKnown = seq === 0 ? "" : prevSeq === seq - 1 ? prevRecorded : null;
      if (chain === "none" && prevKnown !== null && r.recordedHash !== null) {
        const raw = storedIsRaw ? r.body : takeLink(runId, seq, r.recordedHash, r.body);
        if (raw !== null) chain = verifyLink(prevKnown, raw, r.recordedHash);
      }
      hash = chainHashOf(hash, r.body);
      updates.push([seq, hash, chain]);
      prevSeq = seq;
      prevRecorded = r.recordedHash;
    }
    for (let i = 0; i < updates.length; i += RECHAIN_PER_UPDATE) {
      const chunk = updates.slice(i, i + RECHAIN_PER_UPDATE);
      await tx.run(
        // the seq range keeps SQLite's plan on the key's range (without it, it walked the whole run per statement)
        `WITH v(s, h, c) AS (VALUES ${chunk.map(() => "(CAST(? AS INTEGER), ?, ?)").join(", ")}) UPDATE "Event" SET "hash" = v.h, "chain" = v.c FROM v WHERE "Event"."runId" = ? AND "Event"."seq" BETWEEN ? AND ? AND "Event"."seq" = v.s`,
        [...chunk.flat(), runId, chunk[0][0], chunk[chunk.length - 1][0]],
      );
    }
    if (rows.length < RECHAIN_PAGE) break;
    after = prevSeq;
  }
  return hash;
}
