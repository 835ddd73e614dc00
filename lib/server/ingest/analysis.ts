import "server-only";
/**
 * A run's analysis through ingest: lib/analyze's analyzer folded over the raw
 * (pre-redaction) events, continued across requests from the snapshot on the run row, and
 * re-folded from the stored rows when a gap is filled after later events were analysed.
 */
import { canonicalJson } from "../../canonical";
import { parseJsonExact } from "../../journal/parse-line";
import type { ChainVerdict } from "../../journal/chain";
import type { Finding, JournalEvent } from "../../journal/types";
import { compareFindings, createAnalyzer, type Analyzer, type AnalyzerSnapshot } from "../../analyze";
import type { Redactor, SecretHit } from "../../redact";
import type { SqlTx } from "../sql";
import type { RunRow } from "./run-row";

const FINDINGS_PER_INSERT = 500;

export class RunAnalysis {
  private analyzer: Analyzer;
  /** An event arrived at or before the last seq analysed: re-fold the whole run at the end. */
  private stale = false;

  constructor(private readonly row: RunRow) {
    this.analyzer = createAnalyzer(row.analysis ? (parseJsonExact(row.analysis) as AnalyzerSnapshot) : undefined);
  }

  /** The event at seq `s`, in seq order; `chain` null: the verdict comes later (chainFailed). */
  push(event: JournalEvent, s: number, chain: ChainVerdict | null, secrets: readonly SecretHit[]): void {
    if (s > this.row.analyzedSeq) {
      this.analyzer.push(event, { chain: chain ?? "none", secrets });
      this.row.analyzedSeq = s;
    } else {
      this.stale = true;
    }
  }

  chainFailed(seq: number): void {
    this.analyzer.chainFailed(seq);
  }

  /** Writes the run's findings and its snapshot to the row (analysis, findingCount). */
  async store(tx: SqlTx, redactor: Redactor): Promise<void> {
    const row = this.row;
    const findings = this.stale ? await this.refold(tx) : this.analyzer.findings();
    // The analyzer holds raw values (the rebuilt state, write-call arguments): redact before
    // storing. A state that held a secret is marked, so that analysis continued from it does
    // not check hashes against placeholders (AnalyzerSnapshot.stateRedacted).
    const snapshot = this.analyzer.snapshot();
    if (redactor.redact(snapshot.state).count > 0) snapshot.stateRedacted = true;
    row.analysis = canonicalJson(redactor.redact(snapshot).value);
    row.findingCount = findings.length;
    await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [row.id]);
    // Many rows a statement: a journal broken at every event has a finding an event (5
    // parameters a row stays under SQLite's limit).
    for (let i = 0; i < findings.length; i += FINDINGS_PER_INSERT) {
      const chunk = findings.slice(i, i + FINDINGS_PER_INSERT);
      const params: Array<string | number> = [];
      for (const f of chunk) params.push(row.id, f.rule, f.seq, f.severity, redactor.redactString(f.message));
      await tx.run(
        `INSERT INTO "Finding" ("runId", "rule", "seq", "severity", "message") VALUES ${chunk.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
        params,
      );
    }
  }

  /**
   * Re-folds the whole stored run (after a gap was filled late). Stored events are
   * redacted, so secret findings come from what redaction replaced at ingest.
   */
  private async refold(tx: SqlTx): Promise<Finding[]> {
    const analyzer = createAnalyzer();
    const rows = await tx.all<{ seq: number; body: string; recordedHash: string | null; chain: string; redactions: number }>(
      `SELECT "seq", "body", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      [this.row.id],
    );
    const secretSeqs = new Set<number>();
    let last = -1;
    for (const r of rows) {
      const ev = parseJsonExact(r.body) as JournalEvent;
      if (r.recordedHash) ev.hash = r.recordedHash;
      // stored events are redacted: one that held a secret is not what the recorder hashed
      analyzer.push(ev, { chain: r.chain === "ok" || r.chain === "fail" ? r.chain : "none", redacted: Number(r.redactions) > 0 });
      if (Number(r.redactions) > 0) secretSeqs.add(Number(r.seq));
      last = Number(r.seq);
    }
    this.analyzer = analyzer;
    this.row.analyzedSeq = last;
    const findings = analyzer.findings().filter((f) => f.rule !== "secret.exposed");
    for (const seq of secretSeqs) {
      findings.push({
        rule: "secret.exposed",
        seq: seq as Finding["seq"],
        severity: "error",
        message: "a secret was found in this event and redacted at ingest",
      });
    }
    return findings.sort(compareFindings);
  }
}
