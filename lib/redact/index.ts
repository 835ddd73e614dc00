/**
 * Redaction at ingest. Each secret is replaced by a stable placeholder
 * `[redacted:<kind>:<12 hex>]`, the hex being an HMAC-SHA256 of the secret under a
 * per-deployment key: one secret always maps to one placeholder within a deployment (so
 * "the same key was used twice" stays visible), and nothing about it is recoverable.
 * A PEM private key is replaced whole (BEGIN to END); in a URL only the password is.
 * Keys are redacted as values are (a key holding a secret becomes its redacted text).
 * Unchanged branches are returned as they are (no copy): most events hold no secret.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { hasAwsKeyId, isSecretishKeyName, mayHoldBeyondFormat, scanBeyondFormat } from "./beyond-format";
import { isSecretKey, scanPemBlocks, scanSecrets, type SecretHit, type SecretKind } from "./patterns";

export * from "./patterns";
export { isSecretishKeyName, LINE_LITERALS } from "./beyond-format";

/** Why a 40-character run in a string is read as an AWS secret key (beyond-format.ts), or null. */
type AwsContext = "key-name" | "beside-key-id" | null;

interface RedactionResult<T> {
  value: T;
  /** How many secrets were replaced. */
  count: number;
  kinds: SecretKind[];
  /** Where each secret was, as analysis reports it (`secret.exposed`). */
  hits: SecretHit[];
}

/**
 * A whole placeholder: what redaction put there (a span redacted on arrival, a spill file).
 * Redacting again leaves it: redaction is idempotent, so data redacted twice is stored as
 * data redacted once, and counted once.
 */
const WHOLE_PLACEHOLDER = /^\[redacted:[a-z-]+:[0-9a-f]{12}\]$/;

export class Redactor {
  private readonly key: Uint8Array;
  // placeholders by kind, then by secret (no key to build per lookup: a text may hold
  // hundreds of thousands of secrets)
  private readonly cache = new Map<SecretKind, Map<string, string>>();
  private cached = 0;

  constructor(key: Uint8Array) {
    if (key.length < 16) throw new Error("redaction key must be at least 16 bytes");
    this.key = key;
  }

  placeholder(kind: SecretKind, secret: string): string {
    let ofKind = this.cache.get(kind);
    if (ofKind === undefined) this.cache.set(kind, (ofKind = new Map()));
    let p = ofKind.get(secret);
    if (p === undefined) {
      p = `[redacted:${kind}:${bytesToHex(hmac(sha256, this.key, utf8ToBytes(secret))).slice(0, 12)}]`;
      if (++this.cached > 10_000) {
        for (const m of this.cache.values()) m.clear();
        this.cached = 1;
      }
      ofKind.set(secret, p);
    }
    return p;
  }

  /**
   * Redacts pattern matches inside one string (in time linear in its length): the format's
   * patterns (their kinds into `kinds`), then those beyond it (beyond-format.ts; their
   * kinds into `extra`). `awsContext`: the string sits under a secret-ish key name or
   * beside an AWS key id, where a 40-character run is read as an AWS secret key.
   */
  redactString(s: string, kinds: SecretKind[] = [], awsContext: AwsContext = null, extra: SecretKind[] = kinds): string {
    const text = splice(s, (replace) =>
      scanPemBlocks(s, (start, end) => {
        kinds.push("private-key");
        replace(start, end, this.placeholder("private-key", s.slice(start, end)));
      }),
    );
    const before = kinds.length;
    const out = splice(text, (replace) =>
      scanSecrets(text, (kind, start, end) => {
        kinds.push(kind);
        if (kind === "url-password") {
          // scheme://user:password@ → keep scheme and user, replace the password
          const colon = text.indexOf(":", text.indexOf("://", start) + 3);
          const password = text.slice(colon + 1, end - 1);
          // a placeholder already there stays (redacting twice gives what redacting once gave)
          if (WHOLE_PLACEHOLDER.test(password)) {
            kinds.pop();
            return;
          }
          replace(colon + 1, end - 1, this.placeholder(kind, password));
        } else if (kind === "bearer-token") replace(start + 7, end, this.placeholder(kind, text.slice(start + 7, end)));
        else replace(start, end, this.placeholder(kind, text.slice(start, end)));
      }),
    );
    // an AKIA id just replaced still makes the 40-character runs beside it AWS secret keys
    if (awsContext === null && kinds.indexOf("aws-access-key", before) >= 0) awsContext = "beside-key-id";
    if (awsContext === null && !mayHoldBeyondFormat(out)) return out;
    return splice(out, (replace) =>
      scanBeyondFormat(out, awsContext, (kind, start, end) => {
        extra.push(kind);
        replace(start, end, this.placeholder(kind, out.slice(start, end)));
      }),
    );
  }

  /**
   * Redacts every string in a JSON value, and every key: a key holding a secret is
   * replaced by its redacted text (two keys that would then be equal, or one equal to a
   * key already there, keep both values: see `renamedKeys`). Values under secret keys
   * are replaced whole. `hits` are exactly what `findSecrets` finds (the format's
   * patterns in values, and secret-named fields); `count` and `kinds` also hold what was
   * found beyond the format and in keys, which `analyze` does not report.
   */
  redact<T>(value: T): RedactionResult<T> {
    const kinds: SecretKind[] = [];
    const hits: SecretHit[] = [];
    const extra: SecretKind[] = [];
    const path: Array<string | number> = [];
    const pathText = () => path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    const str = (v: string, key: string | null, beside: boolean): string => {
      let out = v;
      if (key !== null && v !== "" && isSecretKey(key) && !WHOLE_PLACEHOLDER.test(v)) {
        kinds.push("secret-field");
        hits.push({ path: pathText(), kind: "secret-field" });
        out = this.placeholder("secret-field", v);
      }
      // patterns are searched in the value as it arrived, as findSecrets does
      const before = kinds.length;
      const context: AwsContext = key !== null && isSecretishKeyName(key) ? "key-name" : beside ? "beside-key-id" : null;
      const replaced = this.redactString(v, kinds, context, extra);
      for (let i = before; i < kinds.length; i++) hits.push({ path: pathText(), kind: kinds[i] });
      return out !== v ? out : replaced;
    };
    /** Whether a direct string child holds an AWS key id: its 40-character siblings are then secret keys. */
    const keyIdAmong = (children: Iterable<unknown>): boolean => {
      for (const c of children) if (typeof c === "string" && (hasAwsKeyId(c) || (c.length >= 20 && c.includes("ASIA")))) return true;
      return false;
    };
    const walk = (v: unknown, key: string | null, beside: boolean): unknown => {
      if (typeof v === "string") return str(v, key, beside);
      if (Array.isArray(v)) {
        const besideHere = v.length > 1 && keyIdAmong(v);
        let copy: unknown[] | null = null;
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          const r = walk(v[i], null, besideHere);
          path.pop();
          if (r !== v[i]) (copy ??= v.slice())[i] = r;
        }
        return copy ?? v;
      }
      if (v !== null && typeof v === "object") {
        const obj = v as Record<string, unknown>;
        const keys = Object.keys(obj);
        const besideHere = keys.length > 1 && keyIdAmong(Object.values(obj));
        let copy: Record<string, unknown> | null = null;
        let renamed: Map<string, string> | null = null;
        for (const k of keys) {
          const child = obj[k];
          path.push(k);
          const r = walk(child, k, besideHere);
          path.pop();
          if (r !== child) {
            copy ??= { ...obj };
            copy[k] = r;
          }
          // keys are searched as values are, but never reported (the format searches values only)
          const nk = k.length >= 4 ? this.redactString(k, extra, null, extra) : k;
          if (nk !== k) (renamed ??= new Map()).set(k, nk);
        }
        if (renamed !== null) return renamedKeys(copy ?? obj, keys, renamed);
        return copy ?? v;
      }
      return v;
    };
    const out = walk(value, null, false) as T;
    for (const k of extra) kinds.push(k);
    return { value: out, count: kinds.length, kinds, hits };
  }
}

/**
 * `obj` with the keys in `renamed` replaced, in the original order. A new key equal to a
 * key that stays, or to another new key, gets `#2`, `#3`… (the first free one, in key
 * order): no value is lost, and the same object always gives the same keys.
 */
function renamedKeys(obj: Record<string, unknown>, keys: readonly string[], renamed: Map<string, string>): Record<string, unknown> {
  const taken = new Set(keys.filter((k) => !renamed.has(k)));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    let nk = renamed.get(k);
    if (nk === undefined) nk = k;
    else {
      const base = nk;
      for (let n = 2; taken.has(nk); n++) nk = `${base}#${n}`;
      taken.add(nk);
    }
    // defineProperty: a key named __proto__ is data, as everywhere else
    Object.defineProperty(out, nk, { value: obj[k], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

let processRedactor: Redactor | undefined;

/**
 * A message for people (an error, a warning, a report line) that may quote its input, with
 * each secret replaced as storage replaces it. Give the deployment's redactor where there
 * is one, so the placeholder is the stored one; without it a key of this process is used
 * (the offline CLI, a request refused before the database is read): its placeholders say
 * a secret was there and correlate with nothing.
 */
export function redactMessage(text: string, redactor?: Redactor): string {
  return (redactor ?? (processRedactor ??= new Redactor(globalThis.crypto.getRandomValues(new Uint8Array(32))))).redactString(text);
}

/**
 * Whether redaction would change this text (any kind it replaces, the format's or beyond):
 * for ids and names that are refused rather than stored with a placeholder in them.
 */
export function looksSecret(redactor: Redactor, text: string): boolean {
  return redactor.redactString(text) !== text;
}

/** An error or warning object with its message and run id redacted (redactMessage). */
export function redactIssue<T extends { message: string; run?: string }>(issue: T, redactor?: Redactor): T {
  const message = redactMessage(issue.message, redactor);
  const run = issue.run === undefined ? undefined : redactMessage(issue.run, redactor);
  return message === issue.message && run === issue.run ? issue : { ...issue, message, ...(run === undefined ? {} : { run }) };
}

/** `s` with the ranges `visit` reports (left to right, not overlapping) replaced; `s` itself when none. */
function splice(s: string, visit: (replace: (start: number, end: number, replacement: string) => void) => void): string {
  const parts: string[] = [];
  let last = 0;
  visit((start, end, replacement) => {
    parts.push(s.slice(last, start), replacement);
    last = end;
  });
  if (parts.length === 0) return s;
  parts.push(s.slice(last));
  return parts.join("");
}

export function redactionKeyFromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
