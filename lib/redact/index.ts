/**
 * Redaction at ingest. Each secret is replaced by a stable placeholder
 * `[redacted:<kind>:<12 hex>]`, the hex being an HMAC-SHA256 of the secret under a
 * per-deployment key: one secret always maps to one placeholder within a deployment (so
 * "the same key was used twice" stays visible), and nothing about it is recoverable.
 * A PEM private key is replaced whole (BEGIN to END); in a URL only the password is.
 * Unchanged branches are returned as they are (no copy): most events hold no secret.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { isSecretKey, scanPemBlocks, scanSecrets, type SecretHit, type SecretKind } from "./patterns";

export * from "./patterns";

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

  /** Redacts pattern matches inside one string (in time linear in its length). */
  redactString(s: string, kinds: SecretKind[] = []): string {
    const text = splice(s, (replace) =>
      scanPemBlocks(s, (start, end) => {
        kinds.push("private-key");
        replace(start, end, this.placeholder("private-key", s.slice(start, end)));
      }),
    );
    return splice(text, (replace) =>
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
  }

  /**
   * Redacts every string in a JSON value; keys are kept, values under secret keys
   * replaced. Finds (and reports) exactly what `findSecrets` finds, in one walk.
   */
  redact<T>(value: T): RedactionResult<T> {
    const kinds: SecretKind[] = [];
    const hits: SecretHit[] = [];
    const path: Array<string | number> = [];
    const pathText = () => path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    const walk = (v: unknown, key: string | null): unknown => {
      if (typeof v === "string") {
        let out = v;
        if (key !== null && v !== "" && isSecretKey(key) && !WHOLE_PLACEHOLDER.test(v)) {
          kinds.push("secret-field");
          hits.push({ path: pathText(), kind: "secret-field" });
          out = this.placeholder("secret-field", v);
        }
        // patterns are searched in the value as it arrived, as findSecrets does
        const before = kinds.length;
        const replaced = this.redactString(v, kinds);
        for (let i = before; i < kinds.length; i++) hits.push({ path: pathText(), kind: kinds[i] });
        return out !== v ? out : replaced;
      }
      if (Array.isArray(v)) {
        let copy: unknown[] | null = null;
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          const r = walk(v[i], null);
          path.pop();
          if (r !== v[i]) (copy ??= v.slice())[i] = r;
        }
        return copy ?? v;
      }
      if (v !== null && typeof v === "object") {
        let copy: Record<string, unknown> | null = null;
        for (const [k, child] of Object.entries(v)) {
          path.push(k);
          const r = walk(child, k);
          path.pop();
          if (r !== child) {
            copy ??= { ...(v as Record<string, unknown>) };
            copy[k] = r;
          }
        }
        return copy ?? v;
      }
      return v;
    };
    const out = walk(value, null) as T;
    return { value: out, count: kinds.length, kinds, hits };
  }
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
