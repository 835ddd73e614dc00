import "server-only";
/**
 * Settling a run a live append left unsettled (Run.settleFrom): a gap filled after later
 * events were stored changes the server chain from that seq on, the recorder verdicts of
 * the events after it, the chain verdict and the analysis (a re-fold from the stored rows).
 * A large request does that at once; a small one (IngestOptions.deferSettle) only marks
 * where it starts, so that its cost is its own events', and this finishes the work: after
 * a quiet moment, and before anything that reads the settled values (lib/server/settle.ts).
 */
import type { Redactor } from "../../redact";
import { SeqMap } from "../../journal/seq-map";
import type { SqlExec, SqlTx } from "../sql";
import { RunAnalysis } from "./analysis";
import { concludeChain, runChainOf } from "./finishing";
import { normaliseRunRow, RunSummary, writeRunRow, type RunRow } from "./run-row";

/** Settles one run inside `tx` (its row locked); false when there was nothing to settle. */
export async function settleRunInTx(tx: SqlTx, dialect: SqlExec["dialect"], redactor: Redactor, runId: string): Promise<boolean> {
  const lock = dialect === "postgres" ? " FOR UPDATE" : "";
  const rows = await tx.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?${lock}`, [runId]);
  if (rows.length === 0) return false;
  const row = normaliseRunRow(rows[0]);
  if (row.settleFrom === null) return false;
  const analysis = new RunAnalysis(row);
  const summary = new RunSummary(row, analysis.failuresBefore);
  const chain = runChainOf(row);
  chain.rechainFrom = row.settleFrom;
  row.settleFrom = null;
  await concludeChain(tx, row, chain, new SeqMap(), false);
  analysis.markStale();
  await analysis.store(tx, redactor, summary);
  await writeRunRow(tx, row);
  return true;
}
