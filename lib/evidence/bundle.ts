/**
 * Audit bundles: one .tar.gz of one or more runs, redacted by a profile (profiles.ts),
 * with a signed manifest. This file is the format (names, manifest, what verification
 * reports); build.ts writes a bundle, verify.ts checks one. Pure (no database): the server
 * gathers runs, findings, notes and log entries and hands them to build.ts with a signer
 * (lib/server/audit-key.ts).
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
import { createHash, type KeyObject } from "node:crypto";
import type { NoteItem } from "./notes";
import type { Profile } from "./profiles";

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
  /** the signature, every member's hash and every journal's chain and counts hold (the container's bytes aside) */
  membersHold: boolean;
}

/** The key id of a public key: SHA-256 of its raw 32 bytes, first 16 hex digits. */
export function keyIdOf(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: "jwk" }) as { x?: string };
  return sha256Bytes(Buffer.from(jwk.x ?? "", "base64url")).slice(0, 16);
}
