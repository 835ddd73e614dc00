/** Writes an audit bundle (bundle.ts: the format): members, fresh chains, manifest, signature, tar.gz. */
import { canonicalJson } from "../canonical";
import { computeEventHash } from "../journal/chain";
import { packTarGz, type Member } from "./archive";
import {
  sha256Bytes,
  type AuditLogRow,
  type BuildOptions,
  type BundleRunInput,
  type Manifest,
  type ManifestRun,
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  MANIFEST,
  SIGNATURE,
} from "./bundle";
import { PROFILE_DESCRIPTIONS, ProfileRedactor } from "./profiles";
import { renderReport } from "./report";

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The run's events as the profile exports them, chained afresh: hash(n) over hash(n−1) ("" before the first). */
function exportJournal(events: readonly Record<string, unknown>[], redactor: ProfileRedactor): Record<string, unknown>[] {
  let prev = "";
  return events.map((e) => {
    const out = redactor.event(e);
    const { hash: _drop, ...bare } = out;
    void _drop;
    const hash = computeEventHash(prev, bare as never);
    prev = hash;
    return { ...bare, hash };
  });
}

export async function buildBundle(runs: readonly BundleRunInput[], audit: readonly AuditLogRow[], opts: BuildOptions): Promise<Uint8Array> {
  const redactor = new ProfileRedactor(opts.profile, { fields: opts.fields });
  const members: Member[] = [];
  const manifestRuns: ManifestRun[] = [];
  const reportRuns: Parameters<typeof renderReport>[0]["runs"] = [];

  runs.forEach((run, i) => {
    const dir = `runs/${String(i + 1).padStart(3, "0")}-${run.id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60)}`;
    const journal = exportJournal(run.events, redactor);
    const findings = run.findings.map((f) => ({ ...f, message: redactor.text(f.message) }));
    const notes = run.notes.map((n) => ({ ...n, text: redactor.content(n.text), author: redactor.text(n.author) }));
    const files = { journal: `${dir}/journal.jsonl`, findings: `${dir}/findings.json`, notes: `${dir}/notes.json` };
    members.push({ path: files.journal, bytes: utf8(journal.map((e) => canonicalJson(e) + "\n").join("")) });
    members.push({ path: files.findings, bytes: utf8(JSON.stringify(findings, null, 2) + "\n") });
    members.push({ path: files.notes, bytes: utf8(JSON.stringify(notes, null, 2) + "\n") });
    const text = (s: string | null) => (s === null ? null : redactor.text(s));
    const latest = new Map<string, string>();
    for (const n of [...notes].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)))
      if (n.target === "finding") latest.set(`${n.rule}@${n.seq}`, n.label);
    const m: ManifestRun = {
      id: run.id,
      project: run.project,
      workflow: { name: text(run.workflow), version: text(run.workflowVersion) },
      agent: { name: text(run.agent), version: text(run.agentVersion) },
      environment: text(run.environment),
      status: run.status,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      versions: redactor.deep(run.header.versions ?? {}),
      policy: redactor.deep(run.header.policy ?? {}),
      events: journal.length,
      lastHash: journal.length > 0 ? String(journal[journal.length - 1].hash) : null,
      findings: findings.length,
      notes: notes.length,
      falsePositives: [...latest.values()].filter((l) => l === "false positive").length,
      journal: files.journal,
      findingsFile: files.findings,
      notesFile: files.notes,
    };
    manifestRuns.push(m);
    reportRuns.push({ manifest: m, events: journal, findings, notes });
  });

  const auditRows = audit.map((a) => ({
    ...a,
    actor: redactor.text(a.actor),
    target: a.target === null ? null : redactor.text(a.target),
    reason: a.reason === null ? null : redactor.text(a.reason),
    detail: redactor.text(a.detail),
  }));
  members.push({ path: "audit-log.json", bytes: utf8(JSON.stringify(auditRows, null, 2) + "\n") });

  const head = {
    exportedAt: opts.exportedAt.toISOString(),
    exporter: redactor.text(opts.exporter),
    profile: opts.profile,
    profileDescription: PROFILE_DESCRIPTIONS[opts.profile],
    keyId: opts.signer.keyId,
  };
  members.push({ path: "report.html", bytes: utf8(renderReport({ ...head, runs: reportRuns, audit: auditRows })) });

  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    exportedAt: head.exportedAt,
    exporter: head.exporter,
    profile: opts.profile,
    profileDescription: head.profileDescription,
    fields: [...(opts.fields ?? [])],
    retrace: opts.retraceVersion,
    key: { algorithm: "Ed25519", id: opts.signer.keyId, publicKey: opts.signer.publicKeyPem },
    runs: manifestRuns,
    auditLog: { path: "audit-log.json", entries: auditRows.length },
    members: members.map((m) => ({ path: m.path, bytes: m.bytes.length, sha256: sha256Bytes(m.bytes) })),
  };
  const manifestBytes = utf8(JSON.stringify(manifest, null, 2) + "\n");
  const signature = utf8(Buffer.from(opts.signer.sign(manifestBytes)).toString("base64") + "\n");
  return packTarGz([{ path: MANIFEST, bytes: manifestBytes }, { path: SIGNATURE, bytes: signature }, ...members], opts.exportedAt);
}
