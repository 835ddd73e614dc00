import "server-only";
/**
 * Re-judging a stored run by a policy attached to it after it was stored (a workflow's new
 * policy version, lib/server/workflow-policy.ts): the analysis is re-folded from the stored
 * rows with the attached policy in place of the recorded one, and its findings rewritten.
 * A run a live append left unsettled is settled on the way (settle.ts), so the re-fold reads
 * a settled chain.
 */
import type { Redactor } from "../../redact";
import { SeqMap } from "../../journal/seq-map";
import type { SqlExec, SqlTx } from "../sql";
import { RunAnalysis } from "./analysis";
import { concludeChain, runChainOf } from "./finishing";
import { normaliseRunRow, RunSummary, writeRunRow, type RunRow } from "./run-row";

/** The policy a run is judged by from now on: canonical JSON, and the workflow version it is (null: given at import). */
export interface AttachedPolicy {
  policy: string;
  version: number | null;
}

/** Re-judges one run inside `tx` (its row locked); false when the run is gone. */
export async function rejudgeRunInTx(
  tx: SqlTx,
  dialect: SqlExec["dialect"],
  redactor: Redactor,
  runId: string,
  attached: AttachedPolicy,
): Promise<boolean> {
  const lock = dialect === "postgres" ? " FOR UPDATE" : "";
  const rows = await tx.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?${lock}`, [runId]);
  if (rows.length === 0) return false;
  const row = normaliseRunRow(rows[0]);
  row.attachedPolicy = attached.policy;
  row.policyVersion = attached.version;
  const analysis = new RunAnalysis(row);
  const summary = new RunSummary(row, analysis.failuresBefore);
  if (row.settleFrom !== null) {
    const chain = runChainOf(row);
    chain.rechainFrom = row.settleFrom;
    row.settleFrom = null;
    await concludeChain(tx, row, chain, new SeqMap(), false);
  }
  analysis.markStale();
  await analysis.store(tx, redactor, summary);
  await writeRunRow(tx, row);
  return true;
}
