import "server-only";
/**
 * The deployment's audit-bundle signing key (Ed25519), kept with the data and never in the
 * database: `RETRACE_AUDIT_KEY_FILE`, else beside the SQLite file (data/retrace.db →
 * data/retrace.audit-key), or data/postgres-<database>.audit-key for PostgreSQL. Made on
 * first use (PKCS#8 PEM, mode 0600, written whole then linked into place, so two
 * processes starting at once end up with the same key).
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { newPrivateKeyPem, signerFromPem } from "../evidence/signer";
import type { Signer } from "../evidence";
import type { RetraceConfig } from "./config";
import { keyFileBesideData } from "./key-files";

class AuditKeyError extends Error {}

export function auditKeyFile(config: RetraceConfig): string {
  return config.auditKeyFile ? path.resolve(config.auditKeyFile) : keyFileBesideData(config, "audit-key");
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AuditKeyError(`cannot read the audit key file ${file} (RETRACE_AUDIT_KEY_FILE): ${(e as Error).message}`);
  }
}

function create(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, newPrivateKeyPem(), { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return read(file)!;
}

const cache = new Map<string, Signer>();

/** The deployment's signer: the key file read, or made on first use. */
export function loadAuditSigner(config: RetraceConfig): Signer {
  const file = auditKeyFile(config);
  const hit = cache.get(file);
  if (hit) return hit;
  const pem = read(file) ?? create(file);
  let signer: Signer;
  try {
    signer = signerFromPem(pem);
  } catch (e) {
    throw new AuditKeyError(`the audit key file ${file} does not hold an Ed25519 private key (PKCS#8 PEM): ${(e as Error).message}`);
  }
  cache.set(file, signer);
  return signer;
}

/** The public half, for /api/keys/audit and `retrace keys show`. */
export function auditPublicKey(config: RetraceConfig): { keyId: string; publicKeyPem: string; algorithm: "Ed25519" } {
  const s = loadAuditSigner(config);
  return { keyId: s.keyId, publicKeyPem: s.publicKeyPem, algorithm: "Ed25519" };
}
