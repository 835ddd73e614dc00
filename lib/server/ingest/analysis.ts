import "server-only";
/**
 * A run's analysis through ingest: lib/analyze's analyzer folded over the raw
 * (pre-redaction) events, continued across requests from the snapshot on the run row, and
 * re-folded from the stored rows when a gap is filled after later events were analysed.
 */
import { canonicalJson } from "../../canonical";
import { parseJsonExact } from "../../journal/parse-line";
import type { ChainVerdict } from "../../journal/chain";
import type { Finding, JournalEvent, JsonValue } from "../../journal/types";
import { compareFindings, createAnalyzer, type Analyzer, type AnalyzerSnapshot } from "../../analyze";
import { findPlaceholders, type Redactor, type SecretHit } from "../../redact";
import { withoutHash } from "../../journal/chain";
import type { SqlTx } from "../sql";
import type { RunRow, RunSummary } from "./run-row";
import { FailureCounter, judgedBy, type FailureSnapshot } from "../../semantics";
import { failureInput } from "../../journal/summary";

const FINDINGS_PER_INSERT = 500;

const findingKey = (f: Finding) => `${f.rule}\u0000${f.seq}\u0000${f.severity}\u0000${f.message}`;

const entryKey = (field: string, entry: unknown) => `${field}\u0000${JSON.stringify(entry)}`;

/** The snapshot's arrays of map entries (findings aside: they are in the Finding table). */
function entryFields(s: AnalyzerSnapshot): Array<[string, readonly unknown[]]> {
  const out: Array<[string, readonly unknown[]]> = [];
  for (const [field, value] of Object.entries(s)) if (field !== "findings" && Array.isArray(value)) out.push([field, value]);
  return out;
}

type StoredSnapshot = AnalyzerSnapshot & { failures?: FailureSnapshot };

interface Written {
  /** The analysis text as stored. */
  text: string;
  /** What it parses to (the object it was written from: plain JSON values). */
  snapshot: StoredSnapshot;
  clean: Set<string>;
}

/**
 * The snapshot this process stored last, per run (a few live runs): a run's next request
 * compares the stored text with it and, when equal, reads nothing again. Another process's
 * write changes the text, which is read as before. Bounded: the least recently written go.
 */
const lastWritten = new Map<string, Written>();
const LAST_WRITTEN_RUNS = 32;

function remember(runId: string, w: Written): void {
  lastWritten.delete(runId);
  lastWritten.set(runId, w);
  if (lastWritten.size > LAST_WRITTEN_RUNS) lastWritten.delete(lastWritten.keys().next().value as string);
}

/** Forgets what this process wrote: the next request of every run reads its snapshot back (tests). */
export function forgetWrittenAnalyses(): void {
  lastWritten.clear();
}

/** A workflow's latest attached policy (WorkflowPolicy), as ingest hands it to a run's analysis. */
export interface WorkflowPolicyText {
  version: number;
  /** canonical JSON */
  policy: string;
}

/** The latest attached policy of a workflow, if any (read once per request: workflow-policy.ts). */
export type PolicyLookup = (workflow: string) => WorkflowPolicyText | undefined;

/** The run.start's workflow name (data.workflow.name), as the run row reads it. */
function workflowOf(event: JournalEvent): string | undefined {
  const wf = event.data.workflow;
  if (wf === null || typeof wf !== "object" || Array.isArray(wf)) return undefined;
  return typeof wf.name === "string" ? wf.name : undefined;
}

export class RunAnalysis {
  private analyzer: Analyzer;
  /** Run.attachedPolicy parsed (undefined: the run is judged by the policy it recorded). */
  private attachedJson: JsonValue | undefined;
  /** An event arrived at or before the last seq analysed: re-fold the whole run at the end. */
  private stale = false;
  /** The secrets of events that arrived too late for the fold (the re-fold reports them). */
  private readonly lateSecrets = new Map<number, readonly SecretHit[]>();
  /** Those events, for their secret.exposed findings when the re-fold is left for later (defer). */
  private readonly lateEvents = new Map<number, JournalEvent>();
  /** The re-fold a late event calls for is left to a later settle (Run.settleFrom). */
  private deferred = false;

  /** The findings stored before this request (as keys), so that store() writes only the new ones. */
  private readonly before: Set<string>;

  /** The error count's state (lib/semantics/failure.ts), kept beside the analyzer's snapshot on the row. */
  readonly failuresBefore: FailureSnapshot | undefined;

  constructor(
    private readonly row: RunRow,
    /** A new run.start's workflow → its latest attached policy (a run without one of its own gets it). */
    private readonly policyLookup?: PolicyLookup,
  ) {
    this.attachedJson = row.attachedPolicy === null ? undefined : (parseJsonExact(row.attachedPolicy) as JsonValue);
    // This process wrote the stored text last (the usual case for a live run's next
    // request): its parsed form and clean entries are still here, so nothing is parsed.
    const cached = row.analysis ? lastWritten.get(row.id) : undefined;
    const hit = cached !== undefined && cached.text === row.analysis;
    const stored = hit ? cached.snapshot : row.analysis ? (parseJsonExact(row.analysis) as StoredSnapshot) : undefined;
    this.failuresBefore = stored?.failures;
    this.analyzer = createAnalyzer(stored);
    this.before = new Set(this.analyzer.findings().map(findingKey));
    if (hit) this.clean = cached.clean;
    else {
      this.clean = new Set();
      // the stored entries as this analyzer writes them again (same key order): redacted already
      if (stored)
        for (const [field, entries] of entryFields(this.analyzer.snapshot())) for (const e of entries) this.clean.add(entryKey(field, e));
    }
  }

  /** The map entries of the stored snapshot (field + JSON), redacted when they were written. */
  private readonly clean: Set<string>;

  /** The event at seq `s`, in seq order; `chain` null: the verdict comes later (chainFailed). */
  push(event: JournalEvent, s: number, chain: ChainVerdict | null, secrets: readonly SecretHit[]): void {
    if (s > this.row.analyzedSeq) {
      if (event.type === "run.start") this.adoptWorkflowPolicy(event);
      this.analyzer.push(judgedBy(event, this.attachedJson), { chain: chain ?? "none", secrets });
      this.row.analyzedSeq = s;
    } else {
      this.stale = true;
      if (secrets.length > 0) {
        this.lateSecrets.set(s, secrets);
        this.lateEvents.set(s, event);
      }
    }
  }

  /**
   * A run.start of a run with no policy attached yet, whose workflow has one: the run is
   * judged by its latest version, and records which.
   */
  private adoptWorkflowPolicy(event: JournalEvent): void {
    if (this.row.attachedPolicy !== null || !this.policyLookup) return;
    const name = workflowOf(event);
    const found = name === undefined ? undefined : this.policyLookup(name);
    if (!found) return;
    this.row.attachedPolicy = found.policy;
    this.row.policyVersion = found.version;
    this.attachedJson = parseJsonExact(found.policy) as JsonValue;
  }

  /** An event arrived at or before the last seq analysed: the run needs a re-fold. */
  get late(): boolean {
    return this.stale;
  }

  /**
   * Leaves the re-fold to a later settle (lib/server/ingest/settle.ts): the snapshot goes on
   * from the events folded so far, and a late event's secret.exposed finding is stored now,
   * as the re-fold reads it back (found when it arrived, as for any other event).
   */
  defer(): void {
    this.deferred = true;
  }

  /** The stored run needs a re-fold (a settle, or a request that settles what was left). */
  markStale(): void {
    this.stale = true;
  }

  chainFailed(seq: number): void {
    this.analyzer.chainFailed(seq);
  }

  /** Writes the run's new findings and its snapshot to the row (analysis, findingCount). */
  async store(tx: SqlTx, redactor: Redactor, summary: RunSummary): Promise<void> {
    const row = this.row;
    const stale = this.stale && !this.deferred;
    const findings = stale ? await this.refold(tx, summary) : [...this.analyzer.findings(), ...this.lateSecretFindings()];
    // The analyzer holds raw values (the rebuilt state, write-call arguments): redact before
    // storing. A state that held a secret is marked, so that analysis continued from it does
    // not check hashes against placeholders (AnalyzerSnapshot.stateRedacted).
    const snapshot = this.analyzer.snapshot();
    if (redactor.redact(snapshot.state).count > 0) snapshot.stateRedacted = true;
    // The findings live in the Finding table alone: kept in the snapshot too, every request
    // parsed, redacted and rewrote all the run had found (each append of a live run cost as
    // much as the run held). A continued fold starts with none; the table's unique
    // (runId, rule, seq) keeps the first of a finding reported again, as the fold's own set does.
    const { findings: _all, ...rest } = snapshot;
    const written: StoredSnapshot = {
      ...this.redacted(rest, redactor),
      // the failure state holds step and call ids as stored (already redacted)
      failures: summary.failures.snapshot(),
      findings: [],
    };
    row.analysis = canonicalJson(written);
    remember(row.id, { text: row.analysis, snapshot: written, clean: this.clean });
    // A re-fold (a gap filled late, a chain verdict) rewrites them all; otherwise the new ones
    // are added. Findings of a snapshot written before this rule are in the table already.
    const toWrite = stale ? findings : findings.filter((f) => !this.before.has(findingKey(f)));
    if (stale) await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [row.id]);
    let added = 0;
    // Many rows a statement: a journal broken at every event has a finding an event (5
    // parameters a row stays under SQLite's limit).
    for (let i = 0; i < toWrite.length; i += FINDINGS_PER_INSERT) {
      const chunk = toWrite.slice(i, i + FINDINGS_PER_INSERT);
      const params: Array<string | number> = [];
      for (const f of chunk) params.push(row.id, f.rule, f.seq, f.severity, redactor.redactString(f.message));
      added += await tx.run(
        `INSERT INTO "Finding" ("runId", "rule", "seq", "severity", "message") VALUES ${chunk.map(() => "(?, ?, ?, ?, ?)").join(", ")} ON CONFLICT ("runId", "rule", "seq") DO NOTHING`,
        params,
      );
    }
    row.findingCount = stale ? added : row.findingCount + added;
  }

  /** The secret.exposed findings of the late events, as the analyzer words them (a deferred re-fold). */
  private lateSecretFindings(): Finding[] {
    if (!this.deferred || this.lateEvents.size === 0) return [];
    const out: Finding[] = [];
    for (const [seq, event] of this.lateEvents) {
      const one = createAnalyzer();
      one.push(event, { chain: "none", secrets: this.lateSecrets.get(seq) });
      for (const f of one.findings()) if (f.rule === "secret.exposed" && f.seq === seq) out.push(f);
    }
    return out;
  }

  /**
   * `rest` redacted, scanning only the map entries the stored snapshot did not hold: the
   * call ids, write calls and approvals grow with the run, and scanning them all again made
   * each request of a live run cost as much as the run held. An array's entries are
   * redacted one by one exactly as in a walk of the whole (no key above them).
   */
  private redacted<T extends object>(rest: T, redactor: Redactor): T {
    const out: Record<string, unknown> = {};
    const plain: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(rest)) {
      if (Array.isArray(value))
        out[field] = value.map((e: unknown) => {
          const key = entryKey(field, e);
          if (this.clean.has(key)) return e;
          const r = redactor.redact(e).value;
          // its redacted form is what the next request reads back (the same JSON when it held no secret)
          this.clean.add(r === e ? key : entryKey(field, r));
          return r;
        });
      else plain[field] = value;
    }
    return { ...(redactor.redact(plain).value as Record<string, unknown>), ...out } as T;
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
    const stored = await tx.all<{ seq: number; severity: Finding["severity"]; message: string }>(
      `SELECT "seq", "severity", "message" FROM "Finding" WHERE "runId" = ? AND "rule" = 'secret.exposed'`,
      [this.row.id],
    );
    for (const f of stored)
      earlier.set(Number(f.seq), {
        rule: "secret.exposed",
        seq: Number(f.seq) as Finding["seq"],
        severity: f.severity,
        message: f.message,
      });
    for (const f of this.analyzer.findings()) if (f.rule === "secret.exposed") earlier.set(f.seq, f);
    for (const seq of this.lateSecrets.keys()) earlier.delete(seq);
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
      analyzer.push(judgedBy(ev, this.attachedJson), {
        chain: r.chain === "ok" || r.chain === "fail" ? r.chain : "none",
        redacted,
        secrets,
      });
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
