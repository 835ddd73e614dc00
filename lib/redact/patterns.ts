/**
 * The secret patterns of journal format v1, exactly as listed there: `analyze` must
 * reproduce them to the letter, and redaction at ingest uses the same list so that what
 * analysis calls a secret is what never reaches storage.
 *
 * They are not run as regular expressions: a backtracking engine took quadratic time on
 * some of them (`"a".repeat(160000) + "://"` took 12 s, blocking the server), and
 * payloads are attacker-controlled. PATTERNS below holds each one's expression as the
 * format writes it, its kind, the literal every match starts with (the prefilter is made
 * of these) and a matcher that finds what the expression finds, as leftmost-first global
 * matching does; the tests hold the matchers to the expressions. Every run of characters
 * a matcher reads is remembered, so each character is read a bounded number of times
 * whatever the input: time is linear in the length.
 */

import { LINE_LITERALS, type BeyondFormatKind } from "./beyond-format";

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
  | "secret-field"
  | BeyondFormatKind;

/** The kinds the format's patterns find (`secret-field` is found by key name, not by pattern; the others are beyond-format.ts's). */
export type PatternKind = Exclude<SecretKind, "secret-field" | BeyondFormatKind>;

// ---------------------------------------------------------------------------------------
// Character classes: bit sets over ASCII; only the URL classes (negated ones) take
// characters above it, every UTF-16 code unit but JavaScript's whitespace (\s).

const ALNUM = 1; // [A-Za-z0-9]
const UPPER_DIGIT = 2; // [0-9A-Z]
const TOKEN = 4; // [A-Za-z0-9_-]
const SLACK = 8; // [A-Za-z0-9-]
const PEM_LABEL = 16; // [A-Z ]
const BEARER = 32; // [A-Za-z0-9._~+/=-]
const SCHEME = 64; // [a-z0-9+.-]
const LOWER = 128; // [a-z]
const URL_USER = 256; // [^/\s:@]
const URL_PASSWORD = 512; // [^/\s@]
const NON_ASCII_CLASSES = URL_USER | URL_PASSWORD;

const ASCII = new Uint16Array(128);
function add(bits: number, spec: string): void {
  for (let i = 0; i < spec.length; i++) {
    if (spec[i + 1] === "~" && i + 2 < spec.length) {
      for (let c = spec.charCodeAt(i); c <= spec.charCodeAt(i + 2); c++) ASCII[c] |= bits;
      i += 2;
    } else ASCII[spec.charCodeAt(i)] |= bits;
  }
}
// "a~z" is a range (a literal "~" is written last, where it cannot start one)
add(ALNUM, "A~Za~z0~9");
add(UPPER_DIGIT, "0~9A~Z");
add(TOKEN, "A~Za~z0~9_-");
add(SLACK, "A~Za~z0~9-");
add(PEM_LABEL, "A~Z ");
add(BEARER, "A~Za~z0~9._+/=-~");
add(SCHEME, "a~z0~9+.-");
add(LOWER, "a~z");
for (let c = 0; c < 128; c++) {
  const space = c === 32 || (c >= 9 && c <= 13);
  const ch = String.fromCharCode(c);
  if (!space && ch !== "/" && ch !== "@") {
    ASCII[c] |= URL_PASSWORD;
    if (ch !== ":") ASCII[c] |= URL_USER;
  }
}

/** JavaScript's `\s` above ASCII. */
function isWideSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function inClass(bits: number, c: number): boolean {
  if (c < 128) return (ASCII[c] & bits) !== 0;
  return (bits & NON_ASCII_CLASSES) !== 0 && !isWideSpace(c);
}

// Characters read by the matchers, for the tests that check the work is linear.
let steps = 0;

/** How many characters the matchers have read so far in this process (tests compare two readings). */
export function secretScanSteps(): number {
  return steps;
}

/**
 * The end of the run of `bits` characters from a position, remembering the last run
 * found: asked again from inside it, it answers without reading. One is used per
 * quantifier of a pattern, always asked from positions that do not go backwards, so
 * each character is read at most once per quantifier.
 */
export class Run {
  private from = -1;
  private to = -1;
  constructor(
    private readonly s: string,
    private readonly bits: number,
  ) {}
  end(x: number): number {
    if (x >= this.from && x <= this.to) return this.to;
    const { s, bits } = this;
    const wide = (bits & NON_ASCII_CLASSES) !== 0;
    let i = x;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 128 ? (ASCII[c] & bits) === 0 : !wide || isWideSpace(c)) break;
    }
    steps += i - x + 1;
    this.from = x;
    this.to = i;
    return i;
  }
}

/** A run of at least `min` characters from `x`: its end, or -1. */
function atLeast(run: Run, x: number, min: number): number {
  const e = run.end(x);
  return e - x >= min ? e : -1;
}

/** Exactly `count` characters of `bits` from `x`: the end, or -1. */
function exactly(s: string, x: number, count: number, bits: number): number {
  if (x + count > s.length) return -1;
  steps += count;
  for (let i = x; i < x + count; i++) if (!inClass(bits, s.charCodeAt(i))) return -1;
  return x + count;
}

interface SecretPattern {
  kind: PatternKind;
  /** The format's expression (docs/journal-format.md); the tests compare `match` with it. */
  source: string;
  /**
   * What every match starts with (literals of one length): the prefilter is these. For
   * `url-password` it is the "://" after the scheme the match starts with.
   */
  prefixes: string[];
  /**
   * Where the prefixes' rarest character is: the prefilter looks for it, then for the
   * rest around it (see PREFIX_SEARCH).
   */
  anchor: number;
  /** Must not be preceded by a letter or digit (the format's first seven). */
  notAfterAlnum: boolean;
  /** The classes of the runs `match` reads, one cached Run each. */
  runs: number[];
  /** The end of the match whose prefix is at `at` (already found there), or -1. */
  match(s: string, at: number, runs: Run[]): number;
}

/** `head` + each character of `chars` + `tail`. */
function oneOf(head: string, chars: string, tail: string): string[] {
  return [...chars].map((c) => head + c + tail);
}

/** The one table: the patterns in the format's order (an earlier one wins at a position). */
export const PATTERNS: readonly SecretPattern[] = [
  {
    kind: "aws-access-key",
    source: "AKIA[0-9A-Z]{16}",
    prefixes: ["AKIA"],
    anchor: 0,
    notAfterAlnum: true,
    runs: [],
    match: (s, at) => exactly(s, at + 4, 16, UPPER_DIGIT),
  },
  {
    kind: "openai-key",
    source: "sk-[A-Za-z0-9_-]{20,}",
    prefixes: ["sk-"],
    anchor: 1,
    notAfterAlnum: true,
    runs: [TOKEN],
    match: (_s, at, [run]) => atLeast(run, at + 3, 20),
  },
  {
    kind: "stripe-key",
    source: "(sk|rk)_(live|test)_[A-Za-z0-9]{16,}",
    prefixes: ["sk_", "rk_"],
    anchor: 1,
    notAfterAlnum: true,
    runs: [ALNUM],
    match: (s, at, [run]) => (s.startsWith("live_", at + 3) || s.startsWith("test_", at + 3) ? atLeast(run, at + 8, 16) : -1),
  },
  {
    kind: "github-token",
    source: "gh[pousr]_[A-Za-z0-9]{36,}",
    prefixes: oneOf("gh", "pousr", "_"),
    anchor: 3,
    notAfterAlnum: true,
    runs: [ALNUM],
    match: (_s, at, [run]) => atLeast(run, at + 4, 36),
  },
  {
    kind: "slack-token",
    source: "xox[abprs]-[A-Za-z0-9-]{10,}",
    prefixes: oneOf("xox", "abprs", "-"),
    anchor: 4,
    notAfterAlnum: true,
    runs: [SLACK],
    match: (_s, at, [run]) => atLeast(run, at + 5, 10),
  },
  {
    kind: "google-api-key",
    source: "AIza[0-9A-Za-z_-]{35}",
    prefixes: ["AIza"],
    anchor: 0,
    notAfterAlnum: true,
    runs: [],
    match: (s, at) => exactly(s, at + 4, 35, TOKEN),
  },
  {
    kind: "jwt",
    source: "eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}",
    prefixes: ["eyJ"],
    anchor: 2,
    notAfterAlnum: true,
    runs: [TOKEN, TOKEN, TOKEN],
    // "." is outside the class, so each part is the whole run: no other split can match
    match(s, at, [a, b, c]) {
      const e1 = atLeast(a, at + 3, 10);
      if (e1 < 0 || s.charCodeAt(e1) !== 46) return -1;
      const e2 = atLeast(b, e1 + 1, 10);
      if (e2 < 0 || s.charCodeAt(e2) !== 46) return -1;
      return atLeast(c, e2 + 1, 10);
    },
  },
  {
    kind: "private-key",
    source: "-----BEGIN [A-Z ]*PRIVATE KEY-----",
    prefixes: ["-----BEGIN "],
    anchor: 5,
    notAfterAlnum: false,
    runs: [PEM_LABEL],
    match(s, at, [run]) {
      const label = pemLabelEnd(s, at, run);
      return label < 0 ? -1 : label + 16;
    },
  },
  {
    kind: "bearer-token",
    source: "Bearer [A-Za-z0-9._~+/=-]{20,}",
    prefixes: ["Bearer "],
    anchor: 0,
    notAfterAlnum: false,
    runs: [BEARER],
    match: (_s, at, [run]) => atLeast(run, at + 7, 20),
  },
  {
    kind: "url-password",
    source: "[a-z][a-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@",
    prefixes: ["://"],
    anchor: 1,
    notAfterAlnum: false,
    runs: [URL_USER, URL_PASSWORD],
    // `at` is the "://"; the scheme before it is the scanner's (scanSecrets). ":" is not
    // in the user's class and "@" not in the password's: each is the whole run.
    match(s, at, [user, password]) {
      const u = user.end(at + 3);
      if (u === at + 3 || s.charCodeAt(u) !== 58) return -1;
      const p = password.end(u + 1);
      return p === u + 1 || s.charCodeAt(p) !== 64 ? -1 : p + 1;
    },
  },
];

const URL_PATTERN = PATTERNS.findIndex((p) => p.kind === "url-password");

/**
 * Where "PRIVATE KEY-----" starts in a `-----BEGIN [A-Z ]*PRIVATE KEY-----` header at
 * `at`, or -1. The label run cannot hold the "-----", so the only place the greedy
 * `[A-Z ]*` can give back to is its end minus "PRIVATE KEY".
 */
function pemLabelEnd(s: string, at: number, run: Run): number {
  const j = run.end(at + 11) - 11;
  return j >= at + 11 && s.startsWith("PRIVATE KEY-----", j) ? j : -1;
}

const PREFIX_LENGTH = PATTERNS.map((p) => p.prefixes[0].length);
const ANCHOR = PATTERNS.map((p) => p.anchor);

const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * A literal as expression source found from its rarest character (the first of these it
 * holds), as the prefilter finds the patterns' prefixes: the search stops only there.
 */
const RARE = '\\"_-/kzwJBACWKc';
function anchored(x: string): string {
  let at = 0;
  for (const c of RARE) if ((at = x.indexOf(c)) >= 0) break;
  at = Math.max(at, 0);
  return `${escape(x[at])}${at > 0 ? `(?<=${escape(x.slice(0, at + 1))})` : ""}${escape(x.slice(at + 1))}`;
}

/**
 * The prefilter: every prefix, each found from its anchor (its rarest character) with a
 * lookbehind for what comes before it (`k(?<=sk)-`). The plain alternation of the
 * prefixes stopped at most positions of a text (every ':' for "://", every 's' for
 * "sk-"); this one only at k, _, -, A, J, B and /: about 3× faster on prose and HTML,
 * where most strings hold no prefix and this is all they cost.
 *
 * The scanner also jumps from prefix to prefix with it. It finds them in the order of
 * their anchors, which is the order of their starts as long as, when the end of a prefix
 * is the beginning of another, the second's anchor is after the first's (checked below).
 * A match of it ends where its prefix ends (no array is built per find: the scanner reads
 * lastIndex); no prefix ends another (checked below), so the characters before that end
 * tell which prefix it was.
 */
const PREFIX_SEARCH = new RegExp(
  PATTERNS.flatMap(({ prefixes, anchor }) =>
    prefixes.map((x) => `${escape(x[anchor])}${anchor > 0 ? `(?<=${escape(x.slice(0, anchor + 1))})` : ""}${escape(x.slice(anchor + 1))}`),
  ).join("|"),
  "g",
);
const MAY_MATCH = new RegExp(PREFIX_SEARCH.source);

const ALL_PREFIXES = PATTERNS.flatMap((p, pattern) => p.prefixes.map((x) => ({ x, anchor: p.anchor, pattern })));
for (const a of ALL_PREFIXES) {
  if (a.x.charCodeAt(a.x.length - 1) >= 128) throw new Error(`prefix ${a.x}: must end in ASCII`);
  for (const b of ALL_PREFIXES) {
    if (a.x !== b.x && a.x.endsWith(b.x)) throw new Error(`prefix ${b.x} ends prefix ${a.x}`);
    // b starting d characters into a, over a's end: b's anchor must come after a's
    for (let d = 1; d < a.x.length; d++) {
      if (b.x.startsWith(a.x.slice(d)) && d + b.anchor <= a.anchor) throw new Error(`prefixes ${a.x} and ${b.x}: anchors out of order`);
    }
  }
}

const ENDING_WITH: Array<Array<{ codes: number[]; pattern: number }> | undefined> = [];
for (const { x, pattern } of ALL_PREFIXES) {
  const codes = [...x].map((ch) => ch.charCodeAt(0));
  (ENDING_WITH[codes[codes.length - 1]] ??= []).push({ codes, pattern });
}

/** The pattern whose prefix ends just before `e` (PREFIX_SEARCH found one there). */
function prefixEndingAt(s: string, e: number): number {
  for (const { codes, pattern } of ENDING_WITH[s.charCodeAt(e - 1)]!) {
    const at = e - codes.length;
    if (at < 0) continue;
    let k = codes.length - 2;
    while (k >= 0 && s.charCodeAt(at + k) === codes[k]) k--;
    if (k < 0) return pattern;
  }
  throw new Error("no prefix ends here");
}

/**
 * Calls `onMatch` for each secret in `s`, left to right, as global matching of the
 * format's expressions (one alternation, in the table's order) finds them; stops when it
 * returns true. Linear in the length of `s`.
 *
 * It stops at each prefix. A URL's scheme is the one part before its prefix: it may start
 * before the prefix of another pattern and run through it (`x-sk-1://u:p@`), so at each
 * prefix the scanner first looks back for a scheme start not yet passed. Every match
 * ends after the prefix it stops at, so it never needs to look further back than that.
 */
export function scanSecrets(s: string, onMatch: (kind: PatternKind, start: number, end: number) => boolean | void): void {
  const n = s.length;
  const runs: Array<Run[] | undefined> = [];
  const runsOf = (k: number) => (runs[k] ??= PATTERNS[k].runs.map((bits) => new Run(s, bits)));
  // The first "://" at or after the scanner (-1: none left), its match's end once read
  // (-2: not yet), and where the run of scheme characters before it starts, once read
  // (-1: not yet): a URL can start only in that run, and ends the same from anywhere in it.
  let url = -2;
  let urlEnd = -2;
  let urlRun = -1;
  const urlFrom = (i: number, here: boolean) => {
    if (url !== -1 && url < i) {
      url = here ? i : s.indexOf("://", i);
      urlEnd = -2;
      urlRun = -1;
    }
  };
  const urlRunStart = () => {
    if (urlRun < 0) {
      let k = url;
      for (; k > 0; k--) {
        const c = s.charCodeAt(k - 1);
        if (c >= 128 || (ASCII[c] & SCHEME) === 0) break;
      }
      steps += url - k + 1;
      urlRun = k;
    }
    return urlRun;
  };
  const urlTail = () => (urlEnd === -2 ? (urlEnd = PATTERNS[URL_PATTERN].match(s, url, runsOf(URL_PATTERN))) : urlEnd);
  /** The first [a-z] in [from, to), or -1. */
  const firstLower = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      const c = s.charCodeAt(k); // in a scheme run: ASCII
      if ((ASCII[c] & LOWER) !== 0) {
        steps += k - from + 1;
        return k;
      }
    }
    steps += to - from + 1;
    return -1;
  };

  // Starts before pos are passed: inside a match, or tried. The search goes on after the
  // anchor of the last prefix found (the next one's anchor is after it).
  let pos = 0;
  let from = 0;
  while (from < n) {
    PREFIX_SEARCH.lastIndex = from;
    if (!PREFIX_SEARCH.test(s)) return;
    const which = prefixEndingAt(s, PREFIX_SEARCH.lastIndex);
    const i = PREFIX_SEARCH.lastIndex - PREFIX_LENGTH[which];
    from = i + ANCHOR[which] + 1;
    if (i < pos) continue;
    urlFrom(i, which === URL_PATTERN);
    let start = -1;
    let end = -1;
    let kind: PatternKind = "url-password";
    if (which === URL_PATTERN) {
      // no prefix since pos: only a URL whose scheme ends here can match before it
      end = urlTail();
      if (end >= 0) {
        start = firstLower(Math.max(pos, urlRunStart()), i);
        if (start < 0) end = -1;
      }
    } else {
      // Is i in the scheme run before the next "://"? Then a URL may start before i (in
      // that run, after pos), or at i.
      const inScheme = url >= 0 && urlRunStart() <= i;
      if (inScheme && i > pos && urlTail() >= 0) {
        start = firstLower(Math.max(pos, urlRun), i);
        if (start >= 0) end = urlEnd;
      }
      if (end < 0) {
        const pattern = PATTERNS[which];
        const blocked = pattern.notAfterAlnum && i > 0 && inClass(ALNUM, s.charCodeAt(i - 1));
        start = i;
        kind = pattern.kind;
        end = blocked ? -1 : pattern.match(s, i, runsOf(which));
      }
      // the URL alternative comes last at a position
      if (end < 0 && inScheme && (ASCII[s.charCodeAt(i)] & LOWER) !== 0) {
        end = urlTail();
        kind = "url-password";
      }
    }
    if (end >= 0) {
      if (onMatch(kind, start, end)) return;
      pos = from = end;
    } else pos = i + (which === URL_PATTERN ? PREFIX_LENGTH[URL_PATTERN] : 1);
  }
}

/**
 * Each PEM private-key block in `s` as the redactor replaces it whole: a private-key
 * header, then everything up to the first `-----END <same label>PRIVATE KEY-----`, or to
 * the end of the text when there is none (`-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?
 * (?:-----END \1PRIVATE KEY-----|$)`). Linear: every comparison with the label stops at
 * the first character outside [A-Z ], which no two END lines share.
 */
export function scanPemBlocks(s: string, onBlock: (start: number, end: number) => void): void {
  const run = new Run(s, PEM_LABEL);
  let pos = 0;
  for (;;) {
    const at = s.indexOf("-----BEGIN ", pos);
    if (at < 0) return;
    const j = pemLabelEnd(s, at, run);
    if (j < 0) {
      pos = at + 1;
      continue;
    }
    const label = s.slice(at + 11, j);
    let end = s.length;
    for (let from = j + 16; ;) {
      const f = s.indexOf("-----END ", from);
      if (f < 0) break;
      let k = 0;
      while (k < label.length && s.charCodeAt(f + 9 + k) === label.charCodeAt(k)) k++;
      steps += k + 1;
      if (k === label.length && s.startsWith("PRIVATE KEY-----", f + 9 + k)) {
        end = f + 9 + k + 16;
        break;
      }
      from = f + 1;
    }
    onBlock(at, end);
    pos = end;
  }
}

/**
 * Can this raw JSON line hold a secret redaction replaces? The prefilter on the text as
 * sent: the patterns' prefixes, the literals of what redaction finds beyond the format
 * (beyond-format.ts); any `\u` or `\/` escape makes it answer yes, since escapes could
 * spell a secret the literals would not see. (Secret key names are checked on the parsed
 * keys, which the reader walks anyway.)
 */
const LINE_MAY_MATCH = new RegExp(`${MAY_MATCH.source}|${LINE_LITERALS.map(anchored).join("|")}|\\\\[u/]`);

export function lineMayMatchPattern(jsonText: string): boolean {
  return LINE_MAY_MATCH.test(jsonText);
}

/** The prefilter: false means no pattern can match `s`. */
export function stringMayMatch(s: string): boolean {
  return MAY_MATCH.test(s);
}

const SECRET_KEYS = new Set([
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
  let found = false;
  scanSecrets(s, () => (found = true));
  return found;
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
  while (stack.length > 0) {
    const [v, path, key] = stack.pop()!;
    if (typeof v === "string") {
      if (key !== null && v !== "" && isSecretKey(key)) hits.push({ path, kind: "secret-field" });
      scanSecrets(v, (kind) => {
        hits.push({ path, kind });
      });
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

const KINDS = new Set<string>(["secret-field", ...PATTERNS.map((p) => p.kind)] satisfies SecretKind[]);
const PLACEHOLDER = /\[redacted:([a-z-]+):[0-9a-f]{12}\]/g;

/**
 * The redaction placeholders (`[redacted:<kind>:<12 hex>]`) in a value, as hits: for
 * content that Retrace redacted on an earlier arrival (spans received over OTLP are
 * redacted as they come in, and their run is derived later from what was kept). The
 * expression is linear: its only unbounded run stops at ":", which it cannot hold.
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
