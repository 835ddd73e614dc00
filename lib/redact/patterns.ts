/**
 * The secret patterns of journal format v1, exactly as listed there: `analyze` must
 * reproduce them to the letter, and redaction at ingest uses the same list so that what
 * analysis calls a secret is what never reaches storage.
 */

export type SecretKind =
  | "aws-access-key"
  | "openai-key"
  | "stripe-key"
  | "github-token"
  | "slack-token"
  | "google-api-key"
  | "jwt"
  | "private-key"
  | "bearer-token"
  | "url-password"
  | "secret-field";

// The first seven must not be preceded by a letter or digit.
const NB = "(?<![A-Za-z0-9])";
const ALTERNATIVES: Array<[SecretKind, string]> = [
  ["aws-access-key", `${NB}AKIA[0-9A-Z]{16}`],
  ["openai-key", `${NB}sk-[A-Za-z0-9_-]{20,}`],
  ["stripe-key", `${NB}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`],
  ["github-token", `${NB}gh[pousr]_[A-Za-z0-9]{36,}`],
  ["slack-token", `${NB}xox[abprs]-[A-Za-z0-9-]{10,}`],
  ["google-api-key", `${NB}AIza[0-9A-Za-z_-]{35}`],
  ["jwt", `${NB}eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}`],
  ["private-key", `-----BEGIN [A-Z ]*PRIVATE KEY-----`],
  ["bearer-token", `Bearer [A-Za-z0-9._~+/=-]{20,}`],
  ["url-password", `[a-z][a-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@`],
];
export const SECRET_KINDS_BY_GROUP: SecretKind[] = ALTERNATIVES.map(([kind]) => kind);

/** One regex, one capture group per alternative (group i+1 ↔ ALTERNATIVES[i]). */
export function secretRegex(): RegExp {
  return new RegExp(ALTERNATIVES.map(([, src]) => `(${src})`).join("|"), "g");
}
const TEST_RE = new RegExp(ALTERNATIVES.map(([, src]) => `(?:${src})`).join("|"));
const SHARED_RE = secretRegex();

/**
 * A string can only match a pattern if it contains one of these literals; most strings
 * hold none, and this test is far cheaper than the full alternation with lookbehinds.
 */
const MAY_MATCH = /AKIA|sk-|[sr]k_|gh[pousr]_|xox[abprs]-|AIza|eyJ|-----BEGIN|Bearer |:\/\//;

/**
 * Can this raw JSON line match a secret pattern at all? Looks for the literals of
 * MAY_MATCH in the text as sent; any `\u` or `\/` escape makes it answer yes, since
 * escapes could spell a secret the literals would not see. (Secret key names are checked
 * on the parsed keys, which the reader walks anyway.) Each literal is found from its
 * rarest character with a lookbehind for the rest: the plain alternation stopped at most
 * positions of a line (every ':' for "://", every 's' for "sk-"); this one only at k, J,
 * A, _, -, B, / and \. A test checks it against the plain one.
 */
const LINE_MAY_MATCH =
  /k(?:(?<=sk)-|(?<=[sr]k)_)|J(?<=eyJ)|A(?:KIA|Iza)|_(?<=gh[pousr]_)|-(?:----BEGIN|(?<=xox[abprs]-))|Bearer |\/(?<=:\/)\/|\\[u/]/;

export function lineMayMatchPattern(jsonText: string): boolean {
  return LINE_MAY_MATCH.test(jsonText);
}

export function stringMayMatch(s: string): boolean {
  return MAY_MATCH.test(s);
}

export const SECRET_KEYS = new Set([
  "password",
  "passwd",
  "secret",
  "api_key",
  "apikey",
  "token",
  "access_token",
  "refresh_token",
  "client_secret",
  "authorization",
]);

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase());
}

export function stringHasSecret(s: string): boolean {
  return MAY_MATCH.test(s) && TEST_RE.test(s);
}

export interface SecretHit {
  /** Path of the string holding the secret, e.g. `data.args.headers.Authorization`. */
  path: string;
  kind: SecretKind;
}

/** Every secret in a JSON value: string values searched as substrings, keys not. */
export function findSecrets(value: unknown, rootPath = ""): SecretHit[] {
  const hits: SecretHit[] = [];
  const stack: Array<[unknown, string, string | null]> = [[value, rootPath, null]];
  const re = SHARED_RE;
  while (stack.length > 0) {
    const [v, path, key] = stack.pop()!;
    if (typeof v === "string") {
      if (key !== null && v !== "" && isSecretKey(key)) hits.push({ path, kind: "secret-field" });
      if (!MAY_MATCH.test(v)) continue;
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(v)) !== null) {
        const group = m.findIndex((g, i) => i > 0 && g !== undefined);
        hits.push({ path, kind: SECRET_KINDS_BY_GROUP[group - 1] });
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`, null]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i];
        stack.push([child, path ? `${path}.${k}` : k, k]);
      }
    }
  }
  return hits;
}

const KINDS = new Set<string>([
  "aws-access-key",
  "openai-key",
  "stripe-key",
  "github-token",
  "slack-token",
  "google-api-key",
  "jwt",
  "private-key",
  "bearer-token",
  "url-password",
  "secret-field",
] satisfies SecretKind[]);
const PLACEHOLDER = /\[redacted:([a-z-]+):[0-9a-f]{12}\]/g;

/**
 * The redaction placeholders (`[redacted:<kind>:<12 hex>]`) in a value, as hits: for
 * content that Retrace redacted on an earlier arrival (spans received over OTLP are
 * redacted as they come in, and their run is derived later from what was kept).
 */
export function findPlaceholders(value: unknown, rootPath = ""): SecretHit[] {
  const hits: SecretHit[] = [];
  const stack: Array<[unknown, string]> = [[value, rootPath]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (!v.includes("[redacted:")) continue;
      for (const m of v.matchAll(PLACEHOLDER)) if (KINDS.has(m[1])) hits.push({ path, kind: m[1] as SecretKind });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], path ? `${path}.${entries[i][0]}` : entries[i][0]]);
    }
  }
  return hits;
}

/** Whether any string in the value matches a pattern or sits under a secret key. */
export function hasSecret(value: unknown): boolean {
  const stack: Array<[unknown, string | null]> = [[value, null]];
  while (stack.length > 0) {
    const [v, key] = stack.pop()!;
    if (typeof v === "string") {
      if ((key !== null && v !== "" && isSecretKey(key)) || stringHasSecret(v)) return true;
    } else if (Array.isArray(v)) {
      for (const child of v) stack.push([child, null]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) stack.push([child, k]);
    }
  }
  return false;
}
