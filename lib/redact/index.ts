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
import { SECRET_KINDS_BY_GROUP, isSecretKey, secretRegex, stringHasSecret, type SecretHit, type SecretKind } from "./patterns";

export * from "./patterns";

export interface RedactionResult<T> {
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

const PEM_BLOCK = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

export class Redactor {
  private readonly key: Uint8Array;
  private readonly cache = new Map<string, string>();

  constructor(key: Uint8Array) {
    if (key.length < 16) throw new Error("redaction key must be at least 16 bytes");
    this.key = key;
  }

  placeholder(kind: SecretKind, secret: string): string {
    const cacheKey = kind + "\u0000" + secret;
    let p = this.cache.get(cacheKey);
    if (p === undefined) {
      p = `[redacted:${kind}:${bytesToHex(hmac(sha256, this.key, utf8ToBytes(secret))).slice(0, 12)}]`;
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(cacheKey, p);
    }
    return p;
  }

  /** Redacts pattern matches inside one string. */
  redactString(s: string, kinds: SecretKind[] = []): string {
    if (!stringHasSecret(s)) return s;
    let out = s.replace(PEM_BLOCK, (block) => {
      kinds.push("private-key");
      return this.placeholder("private-key", block);
    });
    const re = secretRegex();
    out = out.replace(re, (match: string, ...groups: unknown[]) => {
      const group = groups.findIndex((g, i) => i < SECRET_KINDS_BY_GROUP.length && g !== undefined);
      const kind = SECRET_KINDS_BY_GROUP[group];
      if (kind === "private-key" && match.startsWith("[redacted:")) return match;
      if (kind === "url-password") {
        // scheme://user:password@ → keep scheme and user, replace the password
        const colon = match.indexOf(":", match.indexOf("://") + 3);
        const password = match.slice(colon + 1, -1);
        if (WHOLE_PLACEHOLDER.test(password)) return match;
        kinds.push(kind);
        return match.slice(0, colon + 1) + this.placeholder(kind, password) + "@";
      }
      kinds.push(kind);
      if (kind === "bearer-token") return "Bearer " + this.placeholder(kind, match.slice(7));
      return this.placeholder(kind, match);
    });
    return out;
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

export function redactionKeyFromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
