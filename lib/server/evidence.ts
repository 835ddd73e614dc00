import "server-only";
/**
 * Notes and audit bundles on the database: notes stored apart from the events (table
 * Note), bundles gathered from what is stored (events already secret-redacted) and built by
 * lib/evidence, each export written to the privileged-action log.
 */
import { randomUUID } from "node:crypto";
import { buildBundle, sha256Bytes, type AuditLogRow, type BundleRunInput } from "../evidence";
import { isNoteLabel, MAX_NOTE_LENGTH, type NoteItem, type NoteLabel, type NoteTarget } from "../evidence/notes";
import { parseFieldPath, type Profile } from "../evidence/profiles";
import { decide, type Principal } from "../access/roles";
import { parseJsonExact } from "../journal/exact-json";
import { AccessError } from "./access/accounts";
import { appendAudit } from "./access/audit-log";
import { loadAuditSigner } from "./audit-key";
import type { Db } from "./db";
import { isRunId, runProjectOf } from "./queries";
import { refuseIfBundle } from "./bundle-runs";
import { redactorFor } from "./service";
import { settleRun } from "./settle";

const RETRACE_VERSION = "0.1.0";

interface NoteRow {
  id: string;
  projectId: string;
  runId: string;
  target: string;
  seq: number | null;
  rule: string | null;
  label: string;
  text: string;
  author: string;
  createdAt: string;
  createdMs: number;
}

const noteItem = (r: NoteRow): NoteItem => ({
  id: r.id,
  run: r.runId,
  target: r.target as NoteTarget,
  seq: r.seq === null ? null : Number(r.seq),
  rule: r.rule,
  label: r.label as NoteLabel,
  text: r.text,
  author: r.author,
  createdAt: r.createdAt,
});

interface NewNote {
  run: string;
  target: NoteTarget;
  seq?: number | null;
  rule?: string | null;
  label: string;
  text: string;
  author: string;
}

/** Adds a note (its text redacted of secrets, as events are); the target must exist. */
export async function addNote(db: Db, n: NewNote): Promise<NoteItem> {
  if (!isNoteLabel(n.label)) throw new AccessError(`a label is one of: confirmed, false positive, needs fix, question`);
  const text = n.text.trim();
  if (text.length === 0 && n.label === "question") throw new AccessError("write the question");
  if (text.length > MAX_NOTE_LENGTH) throw new AccessError(`a note has at most ${MAX_NOTE_LENGTH} characters`);
  const runs = await db.sql.all<{ projectId: string }>(`SELECT "projectId" FROM "Run" WHERE "id" = ?`, [n.run]);
  if (runs.length === 0) throw new AccessError(`run "${n.run}" not found`, 404);
  await refuseIfBundle(db, n.run, "its notes are the bundle's; write notes on the original run");
  const seq = n.target === "run" ? null : (n.seq ?? null);
  const rule = n.target === "finding" ? (n.rule ?? null) : null;
  if (n.target !== "run" && (seq === null || !Number.isInteger(seq))) throw new AccessError("a note on an event or finding needs its seq");
  if (n.target === "event" && (await db.sql.all(`SELECT 1 FROM "Event" WHERE "runId" = ? AND "seq" = ?`, [n.run, seq])).length === 0)
    throw new AccessError(`run "${n.run}" has no event ${seq}`, 404);
  if (
    n.target === "finding" &&
    (rule === null ||
      (await db.sql.all(`SELECT 1 FROM "Finding" WHERE "runId" = ? AND "rule" = ? AND "seq" = ?`, [n.run, rule, seq])).length === 0)
  )
    throw new AccessError(`run "${n.run}" has no finding ${rule ?? "?"} at ${seq}`, 404);
  const redactor = await redactorFor(db);
  const now = new Date();
  const row: NoteRow = {
    id: randomUUID(),
    projectId: runs[0].projectId,
    runId: n.run,
    target: n.target,
    seq,
    rule,
    label: n.label,
    text: redactor.redactString(text),
    author: n.author,
    createdAt: now.toISOString(),
    createdMs: now.getTime(),
  };
  await db.sql.transaction((tx) =>
    tx.run(
      `INSERT INTO "Note" ("id", "projectId", "runId", "target", "seq", "rule", "label", "text", "author", "createdAt", "createdMs") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.id, row.projectId, row.runId, row.target, row.seq, row.rule, row.label, row.text, row.author, row.createdAt, row.createdMs],
    ),
  );
  return noteItem(row);
}

/** A run's notes, oldest first. */
export async function listNotes(db: Db, runId: string): Promise<NoteItem[]> {
  if (!isRunId(runId)) return [];
  const rows = await db.sql.all<NoteRow>(`SELECT * FROM "Note" WHERE "runId" = ? ORDER BY "createdMs", "id"`, [runId]);
  return rows.map(noteItem);
}

// ---- bundles ----

interface RunRow {
  id: string;
  projectId: string;
  workflow: string | null;
  workflowVersion: string | null;
  agent: string | null;
  agentVersion: string | null;
  environment: string | null;
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  header: string;
  eventCount: number;
}

/** Everything a bundle holds of one run, as stored; null when there is no such run. */
async function gatherRun(db: Db, runId: string): Promise<BundleRunInput | null> {
  if (!isRunId(runId)) return null;
  // the findings of the run as settled (a gap a live append filled late)
  await settleRun(db, runId);
  const rows = await db.sql.all<RunRow>(`SELECT * FROM "Run" WHERE "id" = ?`, [runId]);
  if (rows.length === 0 || Number(rows[0].eventCount) === 0) return null;
  const r = rows[0];
  const events: Record<string, unknown>[] = [];
  for (let after = -1; ;) {
    const page = await db.sql.all<{ seq: number; body: string }>(
      `SELECT "seq", "body" FROM "Event" WHERE "runId" = ? AND "seq" > ? ORDER BY "seq" LIMIT 2000`,
      [runId, after],
    );
    for (const e of page) events.push(parseJsonExact(e.body) as Record<string, unknown>);
    if (page.length < 2000) break;
    after = Number(page[page.length - 1].seq);
  }
  const findings = (
    await db.sql.all<{ rule: string; seq: number; severity: string; message: string }>(
      `SELECT "rule", "seq", "severity", "message" FROM "Finding" WHERE "runId" = ?`,
      [runId],
    )
  )
    .map((f) => ({ ...f, seq: Number(f.seq) }))
    .sort((a, b) => a.seq - b.seq || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  let header: Record<string, unknown> = {};
  try {
    header = JSON.parse(r.header) as Record<string, unknown>;
  } catch {
    header = {};
  }
  return {
    id: r.id,
    project: r.projectId,
    workflow: r.workflow,
    workflowVersion: r.workflowVersion,
    agent: r.agent,
    agentVersion: r.agentVersion,
    environment: r.environment,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    header,
    events,
    findings,
    notes: await listNotes(db, runId),
  };
}

/**
 * The privileged-action log entries about these runs, up to now (the export's own entry is
 * appended after): an entry whose target is the run (`run`), one of its events or
 * checkpoints (`run#seq`, `run@checkpoint`: live actions), or a list naming it (`a,b`:
 * opening, purges); and the entry of the live action that made a branch run
 * (LiveBranch.auditSeq), whose target is the original run.
 */
async function auditEntriesFor(db: Db, runIds: readonly string[]): Promise<AuditLogRow[]> {
  if (runIds.length === 0) return [];
  const cond: string[] = [];
  const params: string[] = [];
  const like = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
  // run ids hold none of , # @ (RUN_ID_PATTERN), so each form names exactly one run
  for (const id of runIds) {
    const forms = [`${like(id)},%`, `%,${like(id)}`, `%,${like(id)},%`, `${like(id)}#%`, `${like(id)}@%`];
    cond.push(`"target" = ? OR ${forms.map(() => `"target" LIKE ? ESCAPE '\\'`).join(" OR ")}`);
    params.push(id, ...forms);
  }
  const marks = runIds.map(() => "?").join(", ");
  cond.push(`"seq" IN (SELECT "auditSeq" FROM "LiveBranch" WHERE "runId" IN (${marks}))`);
  params.push(...runIds);
  const rows = await db.sql.all<AuditLogRow>(`SELECT * FROM "AuditEntry" WHERE ${cond.join(" OR ")} ORDER BY "seq"`, params);
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/** The JSON paths a project's reviewer profile replaces (Project.reviewerFields, one a line). */
export async function reviewerFieldsOf(db: Db, projects: readonly string[]): Promise<string[]> {
  if (projects.length === 0) return [];
  const rows = await db.sql.all<{ reviewerFields: string }>(
    `SELECT "reviewerFields" FROM "Project" WHERE "id" IN (${projects.map(() => "?").join(", ")})`,
    [...projects],
  );
  const out = new Set<string>();
  for (const r of rows) for (const line of (r.reviewerFields ?? "").split("\n")) if (line.trim()) out.add(line.trim());
  return [...out];
}

/** Sets a project's reviewer fields (each checked to be a path). */
export async function setReviewerFields(db: Db, project: string, fields: readonly string[]): Promise<void> {
  for (const f of fields) parseFieldPath(f);
  // stored events hold their keys redacted: a path is stored as redacted, and so names them
  const redactor = await redactorFor(db);
  const n = await db.sql.transaction((tx) =>
    tx.run(`UPDATE "Project" SET "reviewerFields" = ? WHERE "id" = ?`, [
      fields.map((f) => redactor.redactString(f.trim())).join("\n"),
      project,
    ]),
  );
  if (n === 0) throw new AccessError(`project "${project}" not found`, 404);
}

interface ExportRequest {
  runs: readonly string[];
  profile: Profile;
  exporter: string;
  /** more JSON paths for the reviewer profile, beside the projects' own */
  fields?: readonly string[];
}

interface ExportResult {
  bytes: Uint8Array;
  sha256: string;
  runs: string[];
  events: number;
  keyId: string;
}

/** Builds a bundle of the runs and logs the export (who, which runs, which profile, the file's SHA-256). */
export async function exportBundle(db: Db, req: ExportRequest): Promise<ExportResult> {
  const ids = [...new Set(req.runs)];
  if (ids.length === 0) throw new AccessError("name at least one run");
  const runs: BundleRunInput[] = [];
  for (const id of ids) {
    // re-signing a bundle's copy with this deployment's key would vouch for what it did not record
    await refuseIfBundle(db, id, "export the original bundle instead");
    const r = await gatherRun(db, id);
    if (!r) throw new AccessError(`run "${id}" not found`, 404);
    runs.push(r);
  }
  const projects = [...new Set(runs.map((r) => r.project))];
  const fields =
    req.profile === "secrets" ? [] : [...new Set([...(await reviewerFieldsOf(db, projects)), ...(req.fields ?? []).map((f) => f.trim())])];
  const signer = loadAuditSigner(db.config);
  const audit = await auditEntriesFor(db, ids);
  const bytes = await buildBundle(runs, audit, {
    profile: req.profile,
    exporter: req.exporter,
    exportedAt: new Date(),
    fields,
    retraceVersion: RETRACE_VERSION,
    signer,
  });
  const sha256 = sha256Bytes(bytes);
  const events = runs.reduce((n, r) => n + r.events.length, 0);
  await appendAudit(db, {
    actor: req.exporter,
    action: "audit.export",
    project: projects.length === 1 ? projects[0] : null,
    target: ids.join(","),
    result: "ok",
    detail: { runs: ids, profile: req.profile, events, sha256, keyId: signer.keyId },
  });
  return { bytes, sha256, runs: ids, events, keyId: signer.keyId };
}

/** Most runs one bundle of a selection may hold (the bundle is built in memory). */
export const MAX_BUNDLE_RUNS = 100;

/**
 * Checks `audit.export` on the project of every run of a selection: a run that does not
 * exist or that the principal cannot see is a 404 naming it (exactly like a missing one,
 * and before any 403, so a refusal reveals nothing of an unseen run); one whose project
 * the principal may read but not export from is a 403.
 */
export async function authorizeExport(db: Db, principal: Principal, runs: readonly string[]): Promise<void> {
  const ids = [...new Set(runs)];
  if (ids.length === 0) throw new AccessError("name at least one run");
  if (ids.length > MAX_BUNDLE_RUNS) throw new AccessError(`a bundle holds at most ${MAX_BUNDLE_RUNS} runs`);
  let refused: string | null = null;
  for (const id of ids) {
    const owner = isRunId(id) ? await runProjectOf(db, id) : null;
    const d = owner === null ? null : decide(principal, "audit.export", owner);
    if (d === null || (!d.ok && d.status !== 403)) throw new AccessError(`run "${id}" not found`, 404);
    if (!d.ok) refused ??= d.message;
  }
  if (refused !== null) throw new AccessError(refused, 403);
}
