/**
 * Audit bundles: one .tar.gz of one or more runs, redacted by a profile (profiles.ts),
 * with a signed manifest. Pure (no database): the server gathers runs, findings, notes and
 * log entries and hands them here with a signer (lib/server/audit-key.ts).
 *
 * Members:
 *   manifest.json           runs, counts, versions, export time, exporter, profile, SHA-256 of every other member
 *   manifest.sig            base64 Ed25519 signature of manifest.json's exact bytes
 *   report.html             the offline report (report.ts)
 *   audit-log.json          the privileged-action log entries about these runs
 *   runs/<n>/journal.jsonl  the run's events in format v1, chained afresh over the exported (redacted) events
 *   runs/<n>/findings.json  the run's findings
 *   runs/<n>/notes.json     the reviewers' notes on the run
 */
import type { AuditEntry } from "../access/audit-entry";
import { createHash, createPublicKey, verify as edVerify, type KeyObject } from "node:crypto";
import { canonicalJson } from "../canonical";
import { computeEventHash } from "../journal/chain";
import { parseJsonExact } from "../journal/exact-json";
import { ArchiveError, ArchiveTooLarge, packTarGz, unpackTarGz, type Member } from "./archive";
import type { NoteItem } from "./notes";
import { PROFILE_DESCRIPTIONS, ProfileRedactor, type Profile } from "./profiles";
import { renderReport } from "./report";

export const BUNDLE_FORMAT = "retrace-audit-bundle";
export const BUNDLE_VERSION = 1;
export const MANIFEST = "manifest.json";
export const SIGNATURE = "manifest.sig";

export interface FindingRow {
  rule: string;
  seq: number;
  severity: string;
  message: string;
}

/** A privileged-action log entry as the bundle carries it (lib/access/audit-entry.ts). */
export type AuditLogRow = AuditEntry;

export interface BundleRunInput {
  id: string;
  project: string;
  workflow: string | null;
  workflowVersion: string | null;
  agent: string | null;
  agentVersion: string | null;
  environment: string | null;
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  /** the run.start header as stored: versions, policy, tags, initiator, … */
  header: Record<string, unknown>;
  /** stored (secret-redacted) events in seq order, without any hash */
  events: Record<string, unknown>[];
  findings: FindingRow[];
  notes: NoteItem[];
}

export interface Signer {
  keyId: string;
  publicKeyPem: string;
  sign(data: Uint8Array): Uint8Array;
}

export interface BuildOptions {
  profile: Profile;
  exporter: string;
  exportedAt: Date;
  /** JSON paths of values the reviewer profile replaces (e.g. data.args.customer) */
  fields?: readonly string[];
  retraceVersion: string;
  signer: Signer;
}

export interface ManifestRun {
  id: string;
  project: string;
  workflow: { name: string | null; version: string | null };
  agent: { name: string | null; version: string | null };
  environment: string | null;
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  versions: unknown;
  policy: unknown;
  events: number;
  lastHash: string | null;
  findings: number;
  notes: number;
  falsePositives: number;
  journal: string;
  findingsFile: string;
  notesFile: string;
}

export interface Manifest {
  format: string;
  version: number;
  exportedAt: string;
  exporter: string;
  profile: Profile;
  profileDescription: string;
  fields: string[];
  retrace: string;
  key: { algorithm: "Ed25519"; id: string; publicKey: string };
  runs: ManifestRun[];
  auditLog: { path: string; entries: number };
  members: { path: string; bytes: number; sha256: string }[];
}

export const sha256Bytes = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The run's events as the profile exports them, chained afresh: hash(n) over hash(n−1) ("" before the first). */
export function exportJournal(events: readonly Record<string, unknown>[], redactor: ProfileRedactor): Record<string, unknown>[] {
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

// ---- verify ----

export interface Failure {
  /** the member at fault ("archive" for the container itself) */
  member: string;
  /** for a journal: the seq of the event at fault */
  seq?: number;
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  failures: Failure[];
  manifest: Manifest | null;
  keyId: string | null;
  /** true: the signing key is the trusted one given; false: it is another; null: no trusted key was given */
  keyTrusted: boolean | null;
  runs: number;
  events: number;
  members: number;
}

/** The key id of a public key: SHA-256 of its raw 32 bytes, first 16 hex digits. */
export function keyIdOf(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: "jwk" }) as { x?: string };
  return sha256Bytes(Buffer.from(jwk.x ?? "", "base64url")).slice(0, 16);
}

export interface VerifyOptions {
  trustedPublicKeyPem?: string;
  /** Most bytes the tar may inflate to (default DEFAULT_MAX_TAR_BYTES); past it ArchiveTooLarge is thrown, not reported. */
  maxTarBytes?: number;
}

/**
 * Every check of a bundle, each failure named. Throws ArchiveTooLarge when the archive
 * inflates past `maxTarBytes` (a limit of the reader, answered 413, not a failure of the bundle).
 */
export async function verifyBundle(bytes: Uint8Array, opts: VerifyOptions = {}): Promise<VerifyReport> {
  return (await verifyAndUnpack(bytes, opts)).report;
}

/** verifyBundle, and the members it read (opening a bundle needs them: it is not inflated twice). */
export async function verifyAndUnpack(bytes: Uint8Array, opts: VerifyOptions = {}): Promise<{ report: VerifyReport; members: Member[] }> {
  const failures: Failure[] = [];
  const report: VerifyReport = { ok: false, failures, manifest: null, keyId: null, keyTrusted: null, runs: 0, events: 0, members: 0 };
  let members: Member[];
  try {
    members = await unpackTarGz(bytes, opts.maxTarBytes);
  } catch (e) {
    if (e instanceof ArchiveTooLarge) throw e;
    failures.push({
      member: "archive",
      message: e instanceof ArchiveError ? e.message : `cannot read the archive (${(e as Error).message})`,
    });
    return { report, members: [] };
  }
  return { report: checkMembers(members, report, opts), members };
}

function checkMembers(members: Member[], report: VerifyReport, opts: VerifyOptions): VerifyReport {
  const { failures } = report;
  const fail = (member: string, message: string, seq?: number) =>
    failures.push(seq === undefined ? { member, message } : { member, seq, message });

  report.members = members.length;
  const byPath = new Map(members.map((m) => [m.path, m.bytes]));
  const manifestBytes = byPath.get(MANIFEST);
  const sigBytes = byPath.get(SIGNATURE);
  if (!manifestBytes) {
    fail(MANIFEST, "missing");
    return report;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString("utf8")) as Manifest;
    if (manifest.format !== BUNDLE_FORMAT || manifest.version !== BUNDLE_VERSION)
      throw new Error(`not a ${BUNDLE_FORMAT} version ${BUNDLE_VERSION} manifest`);
    if (!Array.isArray(manifest.members) || !Array.isArray(manifest.runs) || typeof manifest.key?.publicKey !== "string")
      throw new Error("members, runs or key is missing");
  } catch (e) {
    fail(MANIFEST, `unreadable: ${(e as Error).message}`);
    return report;
  }
  report.manifest = manifest;

  // the signature, with the key the manifest names, checked against the trusted one when given
  let key: KeyObject | null = null;
  try {
    key = createPublicKey(manifest.key.publicKey);
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`the key is ${key.asymmetricKeyType}, not Ed25519`);
    report.keyId = keyIdOf(key);
    if (report.keyId !== manifest.key.id) fail(MANIFEST, `key id ${manifest.key.id} is not the id of the key it names (${report.keyId})`);
  } catch (e) {
    fail(MANIFEST, `its public key is unreadable: ${(e as Error).message}`);
    key = null;
  }
  if (opts.trustedPublicKeyPem !== undefined) {
    try {
      const trusted = createPublicKey(opts.trustedPublicKeyPem);
      const trustedId = keyIdOf(trusted);
      report.keyTrusted = report.keyId === trustedId;
      if (!report.keyTrusted) fail(SIGNATURE, `signed by key ${report.keyId ?? "?"}, not by the trusted key ${trustedId}`);
    } catch (e) {
      fail("trusted key", `unreadable: ${(e as Error).message}`);
    }
  }
  if (!sigBytes) fail(SIGNATURE, "missing");
  else if (key) {
    const sig = Buffer.from(Buffer.from(sigBytes).toString("utf8").trim(), "base64");
    let good = false;
    try {
      good = sig.length === 64 && edVerify(null, manifestBytes, key, sig);
    } catch {
      good = false;
    }
    if (!good) fail(SIGNATURE, "the signature does not match manifest.json (the manifest or the signature was changed)");
  }

  // every member listed, present and unchanged; nothing unlisted
  const listed = new Set<string>();
  for (const m of manifest.members) {
    listed.add(m.path);
    const b = byPath.get(m.path);
    if (!b) fail(m.path, "listed in the manifest but missing from the archive");
    else if (b.length !== m.bytes || sha256Bytes(b) !== m.sha256)
      fail(m.path, `its SHA-256 is ${sha256Bytes(b)}, the manifest says ${m.sha256} (the member was changed)`);
  }
  for (const m of members)
    if (m.path !== MANIFEST && m.path !== SIGNATURE && !listed.has(m.path)) fail(m.path, "in the archive but not listed in the manifest");

  // every journal's chain and counts, findings and notes counts
  for (const run of manifest.runs) {
    report.runs++;
    const j = byPath.get(run.journal);
    if (j) report.events += checkJournal(run, Buffer.from(j).toString("utf8"), fail);
    for (const [file, want, what] of [
      [run.findingsFile, run.findings, "findings"],
      [run.notesFile, run.notes, "notes"],
    ] as const) {
      const b = byPath.get(file);
      if (!b) continue;
      try {
        const arr = JSON.parse(Buffer.from(b).toString("utf8")) as unknown;
        if (!Array.isArray(arr)) fail(file, `not a list of ${what}`);
        else if (arr.length !== want) fail(file, `holds ${arr.length} ${what}, the manifest says ${want}`);
      } catch (e) {
        fail(file, `unreadable: ${(e as Error).message}`);
      }
    }
  }
  report.ok = failures.length === 0;
  return report;
}

function checkJournal(run: ManifestRun, text: string, fail: (member: string, message: string, seq?: number) => void): number {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let prev = "";
  let prevSeq = -1;
  let n = 0;
  let last: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    let e: Record<string, unknown>;
    try {
      e = parseJsonExact(lines[i]) as Record<string, unknown>;
      if (e === null || typeof e !== "object" || Array.isArray(e)) throw new Error("not an object");
    } catch (err) {
      fail(run.journal, `line ${i + 1} is not a JSON event (${(err as Error).message})`);
      prev = "";
      continue;
    }
    n++;
    const seq = typeof e.seq === "number" ? e.seq : NaN;
    if (e.run !== run.id) fail(run.journal, `event on line ${i + 1} is of run "${String(e.run)}", not "${run.id}"`, seq);
    if (!(seq > prevSeq))
      fail(run.journal, `seq ${String(e.seq)} on line ${i + 1} does not follow seq ${prevSeq}`, Number.isNaN(seq) ? undefined : seq);
    const recorded = typeof e.hash === "string" ? e.hash : "";
    const { hash: _h, ...bare } = e;
    void _h;
    const want = computeEventHash(prev, bare as never);
    if (recorded !== want) fail(run.journal, `the chain breaks at seq ${seq}: the event or its hash was changed`, seq);
    prev = recorded;
    prevSeq = seq;
    last = recorded;
  }
  if (n !== run.events) fail(run.journal, `holds ${n} events, the manifest says ${run.events}`);
  if (run.lastHash !== null && last !== run.lastHash)
    fail(run.journal, `its last hash is ${last ?? "none"}, the manifest says ${run.lastHash}`);
  return n;
}

/** One line per failure, for people: `member (seq N): message`. */
export function describeFailures(r: VerifyReport): string[] {
  return r.failures.map((f) => `${f.member}${f.seq !== undefined ? ` (seq ${f.seq})` : ""}: ${f.message}`);
}
