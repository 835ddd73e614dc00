import "server-only";
/**
 * What finishing a row means, as types: a run's two chains within one request, the fields
 * a finished row gets, and the finisher both implementations provide (finish-in-thread.ts,
 * finish-on-writer.ts). finishing.ts picks one; neither imports finishing.ts back.
 */
import type { ChainVerdict } from "../../journal/chain";
import type { SqlTx } from "../sql";
import type { IngestRow } from "../sqlite-rows";
import type { Pending } from "./pending";

/** A run's two chains within one request. */
export interface RunChain {
  runId: string;
  /** The highest seq the server chain covers; a row past it extends the chain. */
  tailSeq: number;
  /** The server chain's last hash ("" before seq 0). */
  tailServerHash: string;
  /** The writer has been given where this run's server chain starts (ROW_WORK.extendsChain). */
  seeded: boolean;
  /** The lowest seq stored behind the tail in this request (a gap filled late): rechained at the end. */
  rechainFrom: number | null;
  /** The first seq whose recorder link broke in this request. */
  newFail: number | null;
  /** Whether every link verified in this request was ok. */
  allNewOk: boolean;
}

/** What finishing gives a row; `chain` null: the writer verifies, and settle reports failures. */
export type FinishedFields = Pick<IngestRow, "body" | "hash" | "work" | "prevHash" | "chainSeed"> & { chain: ChainVerdict | null };

export interface RowFinisher {
  /**
   * The finished fields of the event at seq `s` (in seq order within the run's new seqs);
   * `prevRecorded` is the recorded hash of s − 1 when stored, `extendsChain` whether s is
   * past the server chain's tail.
   */
  finish(chain: RunChain, p: Pending, s: number, prevRecorded: string | undefined, extendsChain: boolean): FinishedFields;
  /** After each batch of rows went to the database. */
  flushed(tx: SqlTx): void;
  /** Once a run's rows are all handed over: the seqs whose link broke where rows were finished. */
  settle(tx: SqlTx, chain: RunChain): Promise<number[]>;
}
