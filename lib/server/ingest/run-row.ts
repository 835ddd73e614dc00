import "server-only";
/**
 * The Run table's row as ingest keeps it: its type is Prisma's model (prisma/models.prisma),
 * and tests/storage/run-row.test.ts checks RUN_COLUMNS against the generated clients' field
 * lists, so a column added to the schema and not written here fails tsc or that test.
 */
import { canonicalJson } from "../../canonical";
import { failureInput, runHeaderFromStart, type EventColumns } from "../../journal/summary";
import { FailureCounter, type FailureSnapshot } from "../../semantics";
import type { JournalEvent, JsonObject } from "../../journal/types";
import type { RunModel } from "../generated/sqlite/models/Run.ts";
import { SeqMap } from "../../journal/seq-map";
import type { SqlExec, SqlTx } from "../sql";
import type { IngestOptions } from "./types";
import { DEFAULT_PROJECT } from "../../access/roles";

export type RunRow = RunModel;

/** Every column of the Run table, in the order written (writeRunRow). */
export const RUN_COLUMNS = [
  "id",
  "projectId",
  "workflow",
  "workflowVersion",
  "agent",
  "agentVersion",
  "environment",
  "initiator",
  "status",
  "live",
  "startedAt",
  "startedMs",
  "endedAt",
  "endedMs",
  "lastEventMs",
  "eventCount",
  "errorCount",
  "findingCount",
  "fidelity",
  "chainStatus",
  "chainBrokenAt",
  "recorderLastHash",
  "serverLastHash",
  "nextSeq",
  "maxSeq",
  "header",
  "searchText",
  "tags",
  "source",
  "analysis",
  "analyzedSeq",
  "settleFrom",
  // written back as this transaction read it (the row is locked), so ingest never lifts a hold
  "legalHold",
  // a bundle run's provenance, written back as read
  "bundle",
  "payloadsDroppedAt",
  // the policy attached to the run and the workflow version it came from (workflow-policy.ts)
  "attachedPolicy",
  "policyVersion",
  "createdAt",
  "updatedAt",
] as const satisfies ReadonlyArray<keyof RunRow>;
// tsc names a field of the model missing from RUN_COLUMNS here
type Unlisted = Exclude<keyof RunRow, (typeof RUN_COLUMNS)[number]>;
const _everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;

/**
 * The Run.tags column: the tags as a JSON array (`["nightly","two words"]`), "" for none.
 * Rows written before kept them space-separated and padded (` a b `); those are still read.
 */
export function tagsColumn(tags: readonly string[]): string {
  return tags.length > 0 ? JSON.stringify(tags) : "";
}

export function tagsOf(column: string): string[] {
  if (column.startsWith("[")) {
    try {
      const v = JSON.parse(column) as unknown;
      if (Array.isArray(v)) return v.filter((t): t is string => typeof t === "string");
    } catch {
      /* not written by tagsColumn: read as the older form */
    }
  }
  return column.trim() ? column.trim().split(" ") : [];
}

/** A run's row before its first event is stored. */
function emptyRunRow(id: string, opts: Pick<IngestOptions, "mode" | "source" | "fidelity" | "project">, now: number): RunRow {
  return {
    id,
    projectId: opts.project ?? DEFAULT_PROJECT,
    workflow: null,
    workflowVersion: null,
    agent: null,
    agentVersion: null,
    environment: null,
    initiator: null,
    status: "incomplete",
    live: opts.mode === "stream",
    startedAt: null,
    startedMs: null,
    endedAt: null,
    endedMs: null,
    lastEventMs: null,
    eventCount: 0,
    errorCount: 0,
    findingCount: 0,
    fidelity: opts.fidelity ?? "partial",
    chainStatus: "unverified",
    chainBrokenAt: null,
    recorderLastHash: null,
    serverLastHash: null,
    nextSeq: 0,
    maxSeq: -1,
    header: "{}",
    searchText: "",
    tags: "",
    source: opts.source,
    analysis: null,
    analyzedSeq: -1,
    settleFrom: null,
    legalHold: false,
    bundle: null,
    payloadsDroppedAt: null,
    attachedPolicy: null,
    policyVersion: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A row as the driver read it (PostgreSQL: bigint columns as text, booleans as booleans; SQLite: 0/1). */
export function normaliseRunRow(r: RunRow): RunRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...r,
    live: Boolean(r.live),
    legalHold: Boolean(Number(r.legalHold)),
    startedMs: n(r.startedMs),
    endedMs: n(r.endedMs),
    lastEventMs: n(r.lastEventMs),
    payloadsDroppedAt: n(r.payloadsDroppedAt),
    eventCount: Number(r.eventCount),
    errorCount: Number(r.errorCount),
    findingCount: Number(r.findingCount),
    chainBrokenAt: n(r.chainBrokenAt),
    nextSeq: Number(r.nextSeq),
    maxSeq: Number(r.maxSeq),
    analyzedSeq: Number(r.analyzedSeq),
    settleFrom: n(r.settleFrom),
    policyVersion: n(r.policyVersion),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

/** The run-level columns folded from its stored events (counts, times, header, status, search terms, fidelity). */
export class RunSummary {
  private readonly terms: Set<string>;
  private hasStateEvents: boolean;
  private hasVersions: boolean;

  /** Errors counted once per failure (lib/semantics/failure.ts), continued from the run's snapshot. */
  failures: FailureCounter;

  constructor(
    readonly row: RunRow,
    failures?: FailureSnapshot,
  ) {
    this.failures = new FailureCounter(failures, row.errorCount);
    this.terms = new Set(row.searchText ? row.searchText.split(" ") : []);
    this.hasStateEvents = row.fidelity === "replayable";
    this.hasVersions = row.fidelity === "replayable";
  }

  /** A stored event at seq `s`; `cols` its summary columns (eventColumns), computed once by the caller. */
  add(ev: JournalEvent, s: number, tsMs: number, cols: Pick<EventColumns, "name" | "status" | "call">): void {
    const name = cols.name;
    const row = this.row;
    row.eventCount++;
    if (this.failures.counts(failureInput(ev, cols))) row.errorCount++;
    if (s > row.maxSeq) row.maxSeq = s;
    if (row.lastEventMs === null || tsMs > row.lastEventMs) row.lastEventMs = tsMs;
    if (ev.type === "run.start") {
      const h = runHeaderFromStart(ev);
      row.workflow = h.workflow;
      row.workflowVersion = h.workflowVersion;
      row.agent = h.agent;
      row.agentVersion = h.agentVersion;
      row.environment = h.environment;
      row.initiator = h.initiator;
      row.tags = tagsColumn(h.tags);
      row.header = canonicalJson(h.header);
      row.startedAt = ev.ts;
      row.startedMs = tsMs;
      const versions = (ev.data as JsonObject).versions;
      this.hasVersions = versions !== undefined && versions !== null && typeof versions === "object";
      if (row.status === "incomplete" && row.live) row.status = "running";
    } else if (row.startedMs === null || (row.startedAt === null && tsMs < row.startedMs)) {
      row.startedMs = tsMs;
    }
    if (ev.type === "run.end") {
      row.status = typeof ev.data.status === "string" ? ev.data.status : "incomplete";
      row.endedAt = ev.ts;
      row.endedMs = tsMs;
      row.live = false;
    } else if (row.live && row.status === "incomplete") {
      row.status = "running";
    }
    if (ev.type === "state") this.hasStateEvents = true;
    if (name && (ev.type === "tool.call" || ev.type === "model.request")) this.terms.add(name);
  }

  /** The columns settled once a request's events are in: fidelity and the search terms. */
  conclude(): void {
    const row = this.row;
    if (row.fidelity !== "trace") row.fidelity = this.hasVersions && this.hasStateEvents ? "replayable" : "partial";
    row.searchText = [...this.terms].filter(Boolean).join(" ");
  }
}

/** Writes every column of the row but its id. */
export async function writeRunRow(tx: SqlTx, row: RunRow): Promise<void> {
  row.updatedAt = Date.now();
  const cols = RUN_COLUMNS.filter((c) => c !== "id");
  await tx.run(`UPDATE "Run" SET ${cols.map((c) => `"${c}" = ?`).join(", ")} WHERE "id" = ?`, [...cols.map((c) => row[c]), row.id]);
}

/** A run's row as this request found it, locked, and the seqs already stored (→ their recorded hashes). */
interface LoadedRun {
  row: RunRow;
  /** No event of the run was stored before: a rejection removes the run whole. */
  isNew: boolean;
  /** The id belongs to a run of another project: nothing of it may be read or written. */
  foreign: boolean;
  /** Every seq stored → its recorded hash (known from nextSeq − 1 on; null below it). */
  stored: SeqMap<string | null>;
}

/**
 * Reads and locks a run's row (PostgreSQL: `SELECT … FOR UPDATE`, so concurrent writers of
 * one run take turns across instances; SQLite has one writer), creating it when new.
 */
export async function loadRun(
  tx: SqlTx,
  dialect: SqlExec["dialect"],
  id: string,
  opts: Pick<IngestOptions, "mode" | "source" | "fidelity" | "replaceRuns" | "project">,
  now: number,
): Promise<LoadedRun> {
  // checked before anything is changed: a run's project never changes once it exists
  const owner = await tx.all<{ projectId: string }>(`SELECT "projectId" FROM "Run" WHERE "id" = ?`, [id]);
  if (owner.length > 0 && owner[0].projectId !== (opts.project ?? DEFAULT_PROJECT)) {
    return { row: emptyRunRow(id, opts, now), isNew: false, foreign: true, stored: new SeqMap() };
  }
  if (opts.replaceRuns) {
    await tx.run(`DELETE FROM "Event" WHERE "runId" = ?`, [id]);
    await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [id]);
    await tx.run(
      `UPDATE "Run" SET "eventCount" = 0, "analysis" = NULL, "analyzedSeq" = -1, "settleFrom" = NULL, "nextSeq" = 0, "maxSeq" = -1 WHERE "id" = ?`,
      [id],
    );
  }
  if (dialect === "postgres") await insertRunRow(tx, id, opts, now);
  const lock = dialect === "postgres" ? " FOR UPDATE" : "";
  const existing = await tx.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?${lock}`, [id]);
  let stored = new SeqMap<string | null>();
  if (existing.length > 0 && Number(existing[0].eventCount) > 0) {
    // Every seq below nextSeq is stored (it is the first missing one), and of those only
    // nextSeq − 1's recorded hash is ever read (the next event's link): reading the rest
    // made each live append cost as much as the run already held.
    const next = Number(existing[0].nextSeq);
    stored = SeqMap.withPrefix<string | null>(next - 1, null);
    const rows = await tx.all<{ seq: number; recordedHash: string | null }>(
      `SELECT "seq", "recordedHash" FROM "Event" WHERE "runId" = ? AND "seq" >= ?`,
      [id, Math.max(0, next - 1)],
    );
    for (const r of rows) stored.set(Number(r.seq), r.recordedHash);
    return { row: normaliseRunRow(existing[0]), isNew: false, foreign: false, stored };
  }
  const row = emptyRunRow(id, opts, now);
  if (existing.length > 0) row.createdAt = Number(existing[0].createdAt);
  if (dialect === "sqlite") await insertRunRow(tx, id, opts, now);
  return { row, isNew: true, foreign: false, stored };
}

/** Locks a run before the source is read (IngestOptions.lockRuns). */
export async function lockRun(
  tx: SqlTx,
  dialect: SqlExec["dialect"],
  id: string,
  opts: Pick<IngestOptions, "mode" | "source" | "project">,
  now: number,
) {
  await insertRunRow(tx, id, opts, now);
  if (dialect === "postgres") await tx.all(`SELECT "id" FROM "Run" WHERE "id" = ? FOR UPDATE`, [id]);
}

function insertRunRow(tx: SqlTx, id: string, opts: Pick<IngestOptions, "mode" | "source" | "project">, now: number) {
  return tx.run(
    `INSERT INTO "Run" ("id", "projectId", "createdAt", "updatedAt", "source", "live") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`,
    [id, opts.project ?? DEFAULT_PROJECT, now, now, opts.source, opts.mode === "stream"],
  );
}

/** Removes what this request added to a run that existed before (a rejection). */
export async function deleteSeqs(tx: SqlTx, runId: string, seqs: number[]) {
  for (let i = 0; i < seqs.length; i += 500) {
    const chunk = seqs.slice(i, i + 500);
    await tx.run(`DELETE FROM "Event" WHERE "runId" = ? AND "seq" IN (${chunk.map(() => "?").join(", ")})`, [runId, ...chunk]);
  }
}
