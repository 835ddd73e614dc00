import "server-only";
/**
 * The per-deployment redaction key (the HMAC key of the placeholders), kept outside the
 * database it protects: with the key beside the data, a copy of the database alone let
 * anyone confirm a guessed secret offline.
 *
 * Where it is: `RETRACE_REDACTION_KEY` (the value, 64 hex digits), else the file
 * `RETRACE_REDACTION_KEY_FILE`, else a default file: beside the SQLite file
 * (data/retrace.db → data/retrace.redaction-key), or data/postgres-<database>.redaction-key
 * for PostgreSQL. A missing file is created (mode 0600) on first use.
 *
 * The database keeps the key's fingerprint (an HMAC of a fixed text under the key, which
 * confirms nothing about any secret): an instance holding another key refuses to start
 * instead of giving the same secret another placeholder, so every instance behind one
 * PostgreSQL database redacts alike or says why not. A key the database itself still holds
 * (Retrace kept it in the Setting table before) is moved out to the file on first start and
 * deleted, so the placeholders already stored stay those of that key.
 */
import fs from "node:fs";
import path from "node:path";
import { createHmac, randomBytes } from "node:crypto";
import { Redactor, redactionKeyFromHex } from "../redact";
import type { RetraceConfig } from "./config";
import { keyFileBesideData } from "./key-files";
import type { SqlExec } from "./sql";

/** Where Retrace kept the key before (migrated out on first start). */
const LEGACY_KEY = "redaction-key";
const FINGERPRINT = "redaction-key-id";
const KEY_HEX = /^[0-9a-f]{64}$/;

class RedactionKeyError extends Error {}

/** Where this deployment's key is: the value given, or the file it is (to be) kept in. */
interface KeySource {
  /** RETRACE_REDACTION_KEY, when set. */
  value?: string;
  /** The key file: RETRACE_REDACTION_KEY_FILE or the default. */
  file: string;
  /** Whether `file` is the default one (not named by the environment). */
  isDefault: boolean;
}

export function keySource(config: RetraceConfig): KeySource {
  const { value, file } = config.redactionKey ?? {};
  if (file) return { value, file: path.resolve(file), isDefault: false };
  return { value, file: defaultKeyFile(config), isDefault: true };
}

function defaultKeyFile(config: RetraceConfig): string {
  return keyFileBesideData(config, "redaction-key");
}

/** The key's fingerprint as the database keeps it. */
function fingerprintOf(keyHex: string): string {
  return createHmac("sha256", Buffer.from(keyHex, "hex")).update("retrace redaction key fingerprint v1").digest("hex").slice(0, 32);
}

function checked(keyHex: string, where: string): string {
  const k = keyHex.trim().toLowerCase();
  if (!KEY_HEX.test(k)) throw new RedactionKeyError(`${where} must hold 64 hex digits (a 32-byte key, e.g. from \`openssl rand -hex 32\`)`);
  return k;
}

function readKeyFile(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new RedactionKeyError(`cannot read the redaction key file ${file} (RETRACE_REDACTION_KEY_FILE): ${(e as Error).message}`);
  }
  return checked(text, `the redaction key file ${file}`);
}

/**
 * Writes `keyHex` to `file` (mode 0600) unless the file exists: returns the key the file
 * holds afterwards (another process may have written it first). Written whole to a private
 * temporary file, then linked into place, so no reader ever sees half a key.
 */
function createKeyFile(file: string, keyHex: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, keyHex + "\n", { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return readKeyFile(file)!;
}

/** Replaces the key file's content with `keyHex` (mode 0600), atomically. */
function replaceKeyFile(file: string, keyHex: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, keyHex + "\n", { mode: 0o600, flag: "wx" });
  fs.renameSync(tmp, file);
}

async function settings(sql: SqlExec): Promise<{ legacy?: string; fingerprint?: string }> {
  const rows = await sql.all<{ key: string; value: string }>(`SELECT "key", "value" FROM "Setting" WHERE "key" IN (?, ?)`, [
    LEGACY_KEY,
    FINGERPRINT,
  ]);
  const get = (k: string) => rows.find((r) => r.key === k)?.value;
  return { legacy: get(LEGACY_KEY), fingerprint: get(FINGERPRINT) };
}

const HOW = "give every instance the same key: the same RETRACE_REDACTION_KEY_FILE (or default file) contents, or RETRACE_REDACTION_KEY";

/** This deployment's key (64 hex digits): found, moved out of the database, or made. */
async function loadRedactionKey(config: RetraceConfig, sql: SqlExec): Promise<string> {
  const source = keySource(config);
  const given = source.value !== undefined && source.value !== "" ? checked(source.value, "RETRACE_REDACTION_KEY") : undefined;
  let key = given ?? readKeyFile(source.file);
  const { legacy, fingerprint } = await settings(sql);

  if (legacy !== undefined) {
    // the key the stored placeholders were made with: it becomes the file's
    const old = checked(legacy, "the redaction key kept in the database");
    if (key === undefined) key = createKeyFile(source.file, old);
    if (key !== old) {
      throw new RedactionKeyError(
        `the database still holds the redaction key its placeholders were made with, and ${given ? "RETRACE_REDACTION_KEY" : `the key file ${source.file}`} holds another: ` +
          `${given ? "unset RETRACE_REDACTION_KEY for one start so the key moves to the key file (RETRACE_REDACTION_KEY_FILE or the default)" : "remove that file for one start so the key moves there"}, ` +
          "or run `npm run -s retrace -- redaction-key rotate` to start over with a new key",
      );
    }
  }
  if (key === undefined) {
    key = createKeyFile(source.file, randomBytes(32).toString("hex"));
    if (config.dialect === "postgres" && source.isDefault) {
      console.warn(`retrace: created the redaction key file ${source.file}; other instances on this database need the same key (${HOW})`);
    }
  }

  const mine = fingerprintOf(key);
  await sql.transaction(async (tx) => {
    await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING`, [FINGERPRINT, mine]);
    // moved out (or found again outside): the database no longer holds it
    await tx.run(`DELETE FROM "Setting" WHERE "key" = ?`, [LEGACY_KEY]);
  });
  const recorded = fingerprint ?? (await settings(sql)).fingerprint;
  if (recorded !== mine) {
    throw new RedactionKeyError(
      `this database's placeholders were made with another redaction key than ${given ? "RETRACE_REDACTION_KEY" : `the one in ${source.file}`}: ${HOW}; ` +
        "or, to start over with this key, run `npm run -s retrace -- redaction-key rotate`",
    );
  }
  return key;
}

export async function loadRedactor(config: RetraceConfig, sql: SqlExec): Promise<Redactor> {
  return new Redactor(redactionKeyFromHex(await loadRedactionKey(config, sql)));
}

interface Rotation {
  /** Where the new key is: the file written, or RETRACE_REDACTION_KEY (adopted). */
  where: string;
  adopted: boolean;
}

/**
 * Rotates the deployment's key: a new one in the key file, or, when RETRACE_REDACTION_KEY
 * is set, its value adopted as the new key (set it on every instance first). The database
 * records the new key's fingerprint; nothing stored is rewritten.
 */
export async function rotateRedactionKey(config: RetraceConfig, sql: SqlExec): Promise<Rotation> {
  const source = keySource(config);
  const given = source.value !== undefined && source.value !== "" ? checked(source.value, "RETRACE_REDACTION_KEY") : undefined;
  const { fingerprint } = await settings(sql);
  let key: string;
  if (given !== undefined) {
    if (fingerprint === fingerprintOf(given)) {
      throw new RedactionKeyError(
        "RETRACE_REDACTION_KEY is already this database's key: set it to a new value (e.g. `openssl rand -hex 32`), then rotate",
      );
    }
    key = given;
  } else {
    key = randomBytes(32).toString("hex");
    replaceKeyFile(source.file, key);
  }
  await sql.transaction(async (tx) => {
    await tx.run(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"`, [
      FINGERPRINT,
      fingerprintOf(key),
    ]);
    await tx.run(`DELETE FROM "Setting" WHERE "key" = ?`, [LEGACY_KEY]);
  });
  return given !== undefined ? { where: "RETRACE_REDACTION_KEY", adopted: true } : { where: source.file, adopted: false };
}
