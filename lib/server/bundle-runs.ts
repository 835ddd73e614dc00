import "server-only";
/**
 * Opening a verified audit bundle as read-only runs. The bundle is verified again here
 * (never trusted from an earlier check); one that fails is refused with its failures
 * named, and nothing is stored. Each run of a bundle that holds becomes a run of the
 * opener's project with a namespaced id (lib/evidence/opened.ts): its events are the
 * bundle's redacted journal (ingested as source "bundle", the one source that may write
 * such ids, so no upload, append or OTLP export can add to it or overwrite it), its
 * findings and notes are the bundle's, and Run.bundle keeps where it came from. Notes,
 * exports and legal holds refuse such a run (lib/server/evidence.ts, retention.ts).
 */
import { randomUUID } from "node:crypto";
import { MANIFEST, sha256Bytes, verifyAndUnpack, type Failure, type Manifest } from "../evidence";
import { bundleRunId, isBundleRunId, parseProvenance, type BundleProvenance } from "../evidence/opened";
import { canonicalJson } from "../canonical";
import { parseJsonExact } from "../journal/exact-json";
import { appendAudit } from "./access/audit-log";
import { AccessError } from "./access/accounts";
import { auditPublicKey } from "./audit-key";
import type { Db } from "./db";
import { isRunId } from "./queries";
import { ingestBytes } from "./service";

/** A bundle that does not verify: refused with every failure named (HTTP 422). */
export class BundleRefused extends Error {
  constructor(readonly failures: Failure[]) {
    super(
      `the bundle does not verify, so it was not opened: ${failures
        .map((f) => `${f.member}${f.seq !== undefined ? ` (seq ${f.seq})` : ""}: ${f.message}`)
        .join("; ")}`,
    );
  }
}

export interface OpenedRun {
  id: string;
  /** the run's id in the bundle */
  original: string;
  events: number;
  findings: number;
  notes: number;
  /** opened before (the same bundle, the same project): nothing was stored again */
  already: boolean;
}

export interface OpenResult {
  sha256: string;
  keyId: string;
  signedHere: boolean;
  runs: OpenedRun[];
  auditSeq: number;
}

interface BundleFinding {
  rule: string;
  seq: number;
  severity: string;
  message: string;
}
interface BundleNote {
  target: string;
  seq: number | null;
  rule: string | null;
  label: string;
  text: string;
  author: string;
  createdAt: string;
}

const decode = (b: Uint8Array) => Buffer.from(b).toString("utf8");

/** A failure of the signature only because another deployment's key signed it is not a failure of the bundle. */
const realFailures = (failures: Failure[]) =>
  failures.filter((f) => !(f.member === "manifest.sig" && /not by the trusted key/.test(f.message)));

/** Verifies the bundle and opens each of its runs read-only in `project`. */
export async function openBundle(db: Db, bytes: Uint8Array, opts: { project: string; actor: string }): Promise<OpenResult> {
  const trusted = auditPublicKey(db.config);
  // inflated once, within the document limit (ArchiveTooLarge past it: the route answers 413)
  const verified = await verifyAndUnpack(bytes, {
    trustedPublicKeyPem: trusted.publicKeyPem,
    maxTarBytes: db.config.limits.maxDocumentBytes,
  });
  const { report } = verified;
  const failures = realFailures(report.failures);
  if (failures.length > 0 || !report.manifest || !report.keyId) throw new BundleRefused(failures);
  const manifest: Manifest = report.manifest;
  const members = new Map(verified.members.map((m) => [m.path, m.bytes]));
  const sha256 = sha256Bytes(bytes);
  const manifestSha256 = sha256Bytes(members.get(MANIFEST)!);
  const openedAt = new Date().toISOString();

  const plan = manifest.runs.map((r) => {
    const id = bundleRunId(opts.project, sha256, r.id);
    if (id === null) throw new AccessError(`run "${r.id}" of the bundle has an id too long to open (at most 107 characters)`);
    return { r, id };
  });
  const runs: OpenedRun[] = [];
  for (const { r, id } of plan) {
    const existing = await db.sql.all<{ bundle: string | null }>(`SELECT "bundle" FROM "Run" WHERE "id" = ?`, [id]);
    if (existing.length > 0 && parseProvenance(existing[0].bundle)) {
      runs.push({ id, original: r.id, events: r.events, findings: r.findings, notes: r.notes, already: true });
      continue;
    }
    // an earlier opening that stopped halfway left a run without its provenance: start again
    if (existing.length > 0) await db.sql.transaction((tx) => tx.run(`DELETE FROM "Run" WHERE "id" = ?`, [id]));

    const lines = decode(members.get(r.journal)!)
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => {
        const ev = parseJsonExact(l) as Record<string, unknown>;
        // the bundle's chain was checked above; the stored copy is chained afresh by the server
        const { hash: _checked, ...bare } = ev;
        void _checked;
        return canonicalJson({ ...bare, run: id });
      });
    const stored = await ingestBytes(db, bytesOf(lines.join("\n") + "\n"), { mode: "upload", source: "bundle", project: opts.project });
    if (stored.errors.length > 0 || !stored.committed)
      throw new AccessError(
        `run "${r.id}" of the bundle could not be opened: ${stored.errors.map((e) => e.message).join("; ") || stored.unreadable || "nothing stored"}`,
        409,
      );
    const findings = JSON.parse(decode(members.get(r.findingsFile)!)) as BundleFinding[];
    const notes = JSON.parse(decode(members.get(r.notesFile)!)) as BundleNote[];
    const provenance: BundleProvenance = {
      sha256,
      manifestSha256,
      keyId: report.keyId,
      signedHere: report.keyTrusted === true,
      exportedAt: manifest.exportedAt,
      exporter: manifest.exporter,
      profile: manifest.profile,
      run: r.id,
      project: r.project,
      events: r.events,
      lastHash: r.lastHash,
      openedBy: opts.actor,
      openedAt,
    };
    await db.sql.transaction(async (tx) => {
      // the findings are the bundle's (what the exporting deployment found), not a fresh analysis
      await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [id]);
      for (const f of findings)
        await tx.run(`INSERT INTO "Finding" ("runId", "rule", "seq", "severity", "message") VALUES (?, ?, ?, ?, ?)`, [
          id,
          f.rule,
          f.seq,
          f.severity,
          f.message,
        ]);
      for (const n of notes) {
        const ms = Date.parse(n.createdAt);
        await tx.run(
          `INSERT INTO "Note" ("id", "projectId", "runId", "target", "seq", "rule", "label", "text", "author", "createdAt", "createdMs") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [randomUUID(), opts.project, id, n.target, n.seq, n.rule, n.label, n.text, n.author, n.createdAt, Number.isFinite(ms) ? ms : 0],
        );
      }
      await tx.run(`UPDATE "Run" SET "bundle" = ?, "source" = 'bundle', "live" = ?, "findingCount" = ? WHERE "id" = ?`, [
        JSON.stringify(provenance),
        false,
        findings.length,
        id,
      ]);
    });
    runs.push({ id, original: r.id, events: r.events, findings: findings.length, notes: notes.length, already: false });
  }
  const entry = await appendAudit(db, {
    actor: opts.actor,
    action: "audit.open",
    project: opts.project,
    target: runs.map((r) => r.id).join(","),
    result: "ok",
    detail: {
      sha256,
      keyId: report.keyId,
      signedHere: report.keyTrusted === true,
      exportedAt: manifest.exportedAt,
      exporter: manifest.exporter,
      profile: manifest.profile,
      runs: runs.map((r) => ({ id: r.id, original: r.original, events: r.events, already: r.already })),
    },
  });
  return { sha256, keyId: report.keyId, signedHere: report.keyTrusted === true, runs, auditSeq: entry.seq };
}

/** A bundle run's provenance, or null for a run that was not opened from a bundle. */
export async function bundleOf(db: Db, run: string): Promise<BundleProvenance | null> {
  if (!isRunId(run) || !isBundleRunId(run)) return null;
  const rows = await db.sql.all<{ bundle: string | null }>(`SELECT "bundle" FROM "Run" WHERE "id" = ?`, [run]);
  return rows.length > 0 ? parseProvenance(rows[0].bundle) : null;
}

/** Refuses a change to a run opened from a bundle (403: nobody may, whatever the role). */
export async function refuseIfBundle(db: Db, run: string, what: string): Promise<void> {
  if (!isBundleRunId(run)) return;
  const rows = await db.sql.all<{ source: string }>(`SELECT "source" FROM "Run" WHERE "id" = ?`, [run]);
  if (rows.length > 0) throw new AccessError(`run "${run}" was opened from an audit bundle and is read-only: ${what}`, 403);
}

async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
}
