import "server-only";
/**
 * The key that encrypts executor credentials (AES-256-GCM), kept with the data and never in
 * the database or the repository: `RETRACE_EXECUTOR_KEY_FILE`, else beside the SQLite file
 * (data/retrace.db → data/retrace.executor-key), or data/postgres-<database>.executor-key
 * for PostgreSQL. Made on first use (64 hex digits, mode 0600, written whole then linked
 * into place, so two processes starting at once end up with the same key). A copy of the
 * database alone holds only ciphertext.
 */
import fs from "node:fs";
import path from "node:path";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { RetraceConfig } from "../config";
import { keyFileBesideData } from "../key-files";

export class ExecutorKeyError extends Error {}

const KEY_HEX = /^[0-9a-f]{64}$/;

export function executorKeyFile(config: RetraceConfig): string {
  return config.executorKeyFile ? path.resolve(config.executorKeyFile) : keyFileBesideData(config, "executor-key");
}

function read(file: string): Buffer | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").trim().toLowerCase();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ExecutorKeyError(`cannot read the executor key file ${file} (RETRACE_EXECUTOR_KEY_FILE): ${(e as Error).message}`);
  }
  if (!KEY_HEX.test(text)) throw new ExecutorKeyError(`the executor key file ${file} must hold 64 hex digits (a 32-byte key)`);
  return Buffer.from(text, "hex");
}

function create(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return read(file)!;
}

const cache = new Map<string, Buffer>();

function keyOf(config: RetraceConfig): Buffer {
  const file = executorKeyFile(config);
  let key = cache.get(file);
  if (!key) {
    key = read(file) ?? create(file);
    cache.set(file, key);
  }
  return key;
}

/** base64 of iv (12) | tag (16) | ciphertext; `aad` binds it to its executor row. */
export function sealCredential(config: RetraceConfig, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", keyOf(config), iv);
  c.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString("base64");
}

/** The credential, or an error that says the key changed (never the ciphertext or the key). */
export function openCredential(config: RetraceConfig, sealed: string, aad: string): string {
  const raw = Buffer.from(sealed, "base64");
  try {
    const d = createDecipheriv("aes-256-gcm", keyOf(config), raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad, "utf8"));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
  } catch {
    throw new ExecutorKeyError(
      `an executor credential does not open with the key in ${executorKeyFile(config)}: the key file changed since it was stored; remove the executor and add it again`,
    );
  }
}
