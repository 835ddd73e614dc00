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
import { findPlaceholders, type Redactor, type SecretHit } from "../../redact";
import { withoutHash } from "../../journal/chain";
import type { SqlTx } from "../sql";
import type { RunRow, RunSummary } from "./run-row";
import { FailureCounter, type FailureSnapshot } from "../../semantics/failure";
import { failureInput } from "../../journal/summary";

const FINDINGS_PER_INSERT = 500;

const findingKey = (f: Finding) => `${f.rule}\u0000${f.seq}\u0000${f.severity}\u0000${f.message}`;

export class RunAnalysis {
  private analyzer: Analyzer;
  /** An event arrived at or before the last seq analysed: re-fold the whole run at the end. */
  private stale = false;
  /** The secrets of events that arrived too late for the fold (the re-fold reports them). */
  private readonly lateSecrets = new Map<number, readonly SecretHit[]>();

  /** The findings stored before this request (as keys), so that store() writes only the new ones. */
  private readonly before: Set<string>;

  /** The error count's state (lib/semantics/failure.ts), kept beside the analyzer's snapshot on the row. */
  readonly failuresBefore: FailureSnapshot | undefined;

  constructor(private readonly row: RunRow) {
    const stored = row.analysis ? (parseJsonExact(row.analysis) as AnalyzerSnapshot & { failures?: FailureSnapshot }) : undefined;
    this.failuresBefore = stored?.failures;
    this.analyzer = createAnalyzer(stored);
    this.before = new Set(this.analyzer.findings().map(findingKey));
  }

  /** The event at seq `s`, in seq order; `chain` null: the verdict comes later (chainFailed). */
  push(event: JournalEvent, s: number, chain: ChainVerdict | null, secrets: readonly SecretHit[]): void {
    if (s > this.row.analyzedSeq) {
      this.analyzer.push(event, { chain: chain ?? "none", secrets });
      this.row.analyzedSeq = s;
    } else {
      this.stale = true;
      if (secrets.length > 0) this.lateSecrets.set(s, secrets);
    }
  }

  chainFailed(seq: number): void {
    this.analyzer.chainFailed(seq);
  }

  /** Writes the run's findings and its snapshot to the row (analysis, findingCount). */
  async store(tx: SqlTx, redactor: Redactor, summary: RunSummary): Promise<void> {
    const row = this.row;
    const findings = this.stale ? await this.refold(tx, summary) : this.analyzer.findings();
    // The analyzer holds raw values (the rebuilt state, write-call arguments): redact before
    // storing. A state that held a secret is marked, so that analysis continued from it does
    // not check hashes against placeholders (AnalyzerSnapshot.stateRedacted).
    const snapshot = this.analyzer.snapshot();
    if (redactor.redact(snapshot.state).count > 0) snapshot.stateRedacted = true;
    // Findings kept from the stored snapshot were redacted when it was written: only the
    // rest is scanned again (scanning them all made each append cost as much as the run held).
    const { findings: all, ...rest } = snapshot;
    const kept = all.map((f) => (this.before.has(findingKey(f)) ? f : (redactor.redact(f).value as Finding)));
    // the failure state holds step and call ids as stored (already redacted)
    row.analysis = canonicalJson({
      ...(redactor.redact(rest).value as typeof rest),
      failures: summary.failures.snapshot(),
      findings: kept,
    });
    row.findingCount = findings.length;
    // A live run's findings only grow as events are appended: write the new ones alone
    // (rewriting them all made each append cost as much as the run held). Any other
    // change (a re-fold, a chain verdict) rewrites them all.
    const keys = findings.map(findingKey);
    const now = new Set(keys);
    const grown = !this.stale && [...this.before].every((k) => now.has(k));
    const toWrite = grown ? findings.filter((_, i) => !this.before.has(keys[i])) : findings;
    if (!grown) await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [row.id]);
    // Many rows a statement: a journal broken at every event has a finding an event (5
    // parameters a row stays under SQLite's limit).
    for (let i = 0; i < toWrite.length; i += FINDINGS_PER_INSERT) {
      const chunk = toWrite.slice(i, i + FINDINGS_PER_INSERT);
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
   * redacted, so the secrets of an event come from what redaction found when it arrived:
   * this request's late events bring their hits, and the fold so far holds the
   * secret.exposed findings of the others (messages included). They go into the new
   * fold's snapshot, so a later request continuing from it keeps them. Only a stored
   * event with redactions and no such finding (a snapshot written before this rule) is
   * read from its placeholders.
   */
  private async refold(tx: SqlTx, summary: RunSummary): Promise<Finding[]> {
    const earlier = new Map<number, Finding>();
    for (const f of this.analyzer.findings()) if (f.rule === "secret.exposed" && !this.lateSecrets.has(f.seq)) earlier.set(f.seq, f);
    const analyzer = createAnalyzer();
    const rows = await tx.all<{ seq: number; body: string; recordedHash: string | null; chain: string; redactions: number }>(
      `SELECT "seq", "body", "recordedHash", "chain", "redactions" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      [this.row.id],
    );
    let last = -1;
    // the error count depends on order too: counted again over the stored events
    const failures = new FailureCounter();
    for (const r of rows) {
      const seq = Number(r.seq);
      const ev = parseJsonExact(r.body) as JournalEvent;
      failures.counts(failureInput(ev));
      if (r.recordedHash) ev.hash = r.recordedHash;
      const redacted = Number(r.redactions) > 0;
      const secrets = this.lateSecrets.get(seq) ?? (redacted && !earlier.has(seq) ? findPlaceholders(withoutHash(ev)) : []);
      // stored events are redacted: one that held a secret is not what the recorder hashed
      analyzer.push(ev, { chain: r.chain === "ok" || r.chain === "fail" ? r.chain : "none", redacted, secrets });
      last = seq;
    }
    summary.failures = failures;
    this.row.errorCount = failures.counted;
    const snapshot = analyzer.snapshot();
    snapshot.findings = [...snapshot.findings, ...earlier.values()].sort(compareFindings);
    this.analyzer = createAnalyzer(snapshot);
    this.row.analyzedSeq = last;
    this.lateSecrets.clear();
    return this.analyzer.findings();
  }
}
