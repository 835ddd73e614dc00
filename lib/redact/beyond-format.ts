/**
 * Secrets redaction finds beyond the format's list (journal format: "redaction at ingest
 * covers at least the same and may cover more"). `analyze` and `secret.exposed` keep to
 * the format's list (patterns.ts); what is here is only ever replaced, never reported.
 *
 * - GitHub fine-grained tokens: `github_pat_[A-Za-z0-9_]{22,}`, not after a letter or digit.
 * - AWS temporary key ids: `ASIA[0-9A-Z]{16}` (the format has `AKIA` only), same rule; a
 *   kind of their own, so a placeholder read back (findPlaceholders) is never taken for
 *   the format's `aws-access-key`.
 * - AWS secret access keys: a run of exactly 40 characters of `[A-Za-z0-9/+]` (not beside
 *   another of them, nor followed by base64's `=`), when there is reason to read it as one: beside an AWS key id
 *   (in the same string, or a sibling value in the same object or array; a run of only
 *   hexadecimal digits is then a digest, not a key), under a key whose name holds
 *   `secret`, `token`, `password` or `_key` (any case), or after such a name and `=` or
 *   `:` in text (`aws_secret_access_key = …`, an environment dump).
 * - A secret-named field written as JSON inside a string (`"{\"password\":\"…\"}"`, the
 *   arguments of an OTLP tool span): the format's secret key names, quoted, then a
 *   non-empty quoted value, which is replaced as a `secret-field`.
 *
 * Every search is linear in the text: native searches for literals, one pass over a run
 * of characters, and one expression with bounded repetitions.
 */

export type BeyondFormatKind = "github-fine-grained-token" | "aws-temporary-access-key" | "aws-secret-key";

/** A key name under which a 40-character run is an AWS secret key (any case, substring). */
const SECRETISH_NAME = /secret|token|password|_key/i;

export function isSecretishKeyName(key: string): boolean {
  return SECRETISH_NAME.test(key);
}

/** Could `s` hold anything found here? False means no (one search; the hot path's gate). */
const MAY_HOLD = /github_pat_|A[KS]IA|secret|token|passw|_key|apikey|authorization/i;

export function mayHoldBeyondFormat(s: string): boolean {
  return MAY_HOLD.test(s);
}

/**
 * For the raw-line prefilter of ingest (lib/journal): literals whose absence from a line
 * means nothing here can match in it, key names aside (the reader checks those on the
 * parsed keys, `isSecretishKeyName`). Each holds a character rare in JSON lines, which the
 * prefilter searches from: so `secret` and `password` in lower case count only after `_`
 * (`client_secret=`, `db_password:`) or as a quoted key inside a string (`\"token\"`,
 * escaped in the line); "token" alone is in most model events ("max_tokens").
 */
export const LINE_LITERALS = [
  "github_pat_",
  "ASIA",
  "SECRET",
  "Secret",
  "PASSWORD",
  "Password",
  "_secret",
  "_password",
  "_key",
  "_KEY",
  // a secret key name quoted inside a string (JSON in JSON): escaped in the line
  ...["password", "passwd", "secret", "apikey", "api_key", "token", "uthorization"].map((k) => `${k}\\"`),
];

const AWS_KEY_ID = /(?<![A-Za-z0-9])A[KS]IA[0-9A-Z]{16}/;

/** Whether `s` holds an AWS access key id (AKIA… or ASIA…). */
export function hasAwsKeyId(s: string): boolean {
  return s.length >= 20 && AWS_KEY_ID.test(s);
}

// [A-Za-z0-9/+]: the characters of an AWS secret key
function keyChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 || c === 43;
}
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isTokenChar = (c: number) => isAlnum(c) || c === 95;
const isUpperDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90);

/** A 40-character key run from `at`, just after an assignment (nothing of its class or "=" after it): its end, or -1. */
function awsSecretAt(s: string, at: number): number {
  if (at > 0 && keyChar(s.charCodeAt(at - 1))) return -1;
  let i = at;
  while (i < s.length && i - at <= 40 && keyChar(s.charCodeAt(i))) i++;
  if (i - at !== 40) return -1;
  return i < s.length && s.charCodeAt(i) === 61 ? -1 : i;
}

const HEX_ONLY = /^(?:[0-9a-f]{40}|[0-9A-F]{40})$/;

// a secret-ish name, then "=" or ":" (quotes and blanks around them), then the value
const ASSIGNED = /(?:secret|token|password|_key)[\w.-]{0,40}?["']?[ \t]{0,8}[:=][ \t]{0,8}["']?/gi;

/**
 * Calls `onMatch` for each secret of these kinds in `s`, left to right, not overlapping.
 * `awsContext`: the string is under a secret-ish key name or beside an AWS key id.
 */
// a secret key name of the format, quoted, then its non-empty quoted value (JSON escapes kept)
const QUOTED_FIELD =
  /"(?:password|passwd|secret|api_key|apikey|token|access_token|refresh_token|client_secret|authorization)"[ \t]{0,8}:[ \t]{0,8}"((?:[^"\\\n]|\\.){1,4096})"/gi;
const WHOLE_PLACEHOLDER = /^\[redacted:[a-z-]+:[0-9a-f]{12}\]$/;

type Found = BeyondFormatKind | "secret-field";

export function scanBeyondFormat(
  s: string,
  awsContext: "key-name" | "beside-key-id" | null,
  onMatch: (kind: Found, start: number, end: number) => void,
): void {
  const found: Array<[Found, number, number]> = [];
  if (s.includes('"')) {
    QUOTED_FIELD.lastIndex = 0;
    for (let m = QUOTED_FIELD.exec(s); m !== null; m = QUOTED_FIELD.exec(s)) {
      const end = m.index + m[0].length - 1;
      if (!WHOLE_PLACEHOLDER.test(m[1])) found.push(["secret-field", end - m[1].length, end]);
    }
  }
  for (let at = s.indexOf("github_pat_"); at >= 0; at = s.indexOf("github_pat_", at + 1)) {
    if (at > 0 && isAlnum(s.charCodeAt(at - 1))) continue;
    let i = at + 11;
    while (i < s.length && isTokenChar(s.charCodeAt(i))) i++;
    if (i - at - 11 >= 22) {
      found.push(["github-fine-grained-token", at, i]);
      at = i - 1;
    }
  }
  let beside = awsContext === "beside-key-id";
  for (let at = s.indexOf("ASIA"); at >= 0; at = s.indexOf("ASIA", at + 1)) {
    if (at > 0 && isAlnum(s.charCodeAt(at - 1))) continue;
    let i = at + 4;
    while (i < at + 20 && i < s.length && isUpperDigit(s.charCodeAt(i))) i++;
    if (i === at + 20) {
      found.push(["aws-temporary-access-key", at, i]);
      beside = true;
      at = i - 1;
    }
  }
  if (s.length >= 40) {
    if (awsContext === "key-name" || beside || hasAwsKeyId(s)) {
      // every bounded 40-character run (a hexadecimal one is a digest unless the key says secret)
      const anyRun = awsContext === "key-name";
      for (let i = 0; i < s.length;) {
        if (!keyChar(s.charCodeAt(i))) {
          i++;
          continue;
        }
        let j = i;
        while (j < s.length && keyChar(s.charCodeAt(j))) j++;
        if (j - i === 40 && s.charCodeAt(j) !== 61) {
          if (anyRun || !HEX_ONLY.test(s.slice(i, j))) found.push(["aws-secret-key", i, j]);
        }
        i = j;
      }
    } else if (MAY_HOLD.test(s)) {
      ASSIGNED.lastIndex = 0;
      for (let m = ASSIGNED.exec(s); m !== null; m = ASSIGNED.exec(s)) {
        const end = awsSecretAt(s, ASSIGNED.lastIndex);
        if (end >= 0) {
          found.push(["aws-secret-key", ASSIGNED.lastIndex, end]);
          ASSIGNED.lastIndex = end;
        }
      }
    }
  }
  if (found.length === 0) return;
  found.sort((a, b) => a[1] - b[1]);
  let last = -1;
  for (const [kind, start, end] of found) {
    if (start < last) continue;
    onMatch(kind, start, end);
    last = end;
  }
}
