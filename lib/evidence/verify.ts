/**
 * Checks an audit bundle (bundle.ts: the format) and names every failure by member and seq:
 * the container, the manifest and its signature, every member's hash, every journal's chain
 * and the counts. A container that reads but is not export's bytes is checked all the same.
 */
import { createPublicKey, verify as edVerify, type KeyObject } from "node:crypto";
import { computeEventHash } from "../journal/chain";
import { parseJsonExact } from "../journal/exact-json";
import { ArchiveError, ArchiveTooLarge, readTarGz, type Member } from "./archive";
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  MANIFEST,
  SIGNATURE,
  keyIdOf,
  sha256Bytes,
  type Failure,
  type Manifest,
  type ManifestRun,
  type VerifyReport,
} from "./bundle";

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
  const report: VerifyReport = {
    ok: false,
    failures,
    manifest: null,
    keyId: null,
    keyTrusted: null,
    runs: 0,
    events: 0,
    members: 0,
    membersHold: false,
  };
  const fail = (member: string, message: string, seq?: number) =>
    failures.push(seq === undefined ? { member, message } : { member, seq, message });

  // a file whose bytes are not export's but that reads as a .tar.gz is still checked member
  // by member, so the members that changed are named beside the container's difference
  let members: Member[];
  let differs: string | null;
  try {
    ({ members, differs } = await readTarGz(bytes, opts.maxTarBytes));
  } catch (e) {
    if (e instanceof ArchiveTooLarge) throw e;
    fail("archive", e instanceof ArchiveError ? e.message : `cannot read the archive (${(e as Error).message})`);
    return { report, members: [] };
  }
  report.members = members.length;
  const byPath = new Map(members.map((m) => [m.path, m.bytes]));
  const manifestBytes = byPath.get(MANIFEST);
  const sigBytes = byPath.get(SIGNATURE);
  if (!manifestBytes) {
    fail(MANIFEST, "missing");
    return { report, members };
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
    return { report, members };
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
  let untrusted: Failure | null = null;
  if (opts.trustedPublicKeyPem !== undefined) {
    try {
      const trusted = createPublicKey(opts.trustedPublicKeyPem);
      const trustedId = keyIdOf(trusted);
      report.keyTrusted = report.keyId === trustedId;
      if (!report.keyTrusted) {
        untrusted = { member: SIGNATURE, message: `signed by key ${report.keyId ?? "?"}, not by the trusted key ${trustedId}` };
        failures.push(untrusted);
      }
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
  // whose key signed it is a question of trust, not of whether the members hold
  report.membersHold = failures.every((f) => f === untrusted);
  // not a pass: the file is not the one export wrote, even when every member it holds is
  if (differs)
    failures.unshift({
      member: "archive",
      message: `${differs}; ${report.membersHold ? "every member's hash and every journal's chain hold" : "the other failures name what else changed"}`,
    });
  report.ok = failures.length === 0;
  return { report, members };
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
