import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Redactor, findSecrets, hasSecret } from "./index";
import {
  PATTERNS,
  lineMayMatchPattern,
  scanPemBlocks,
  scanSecrets,
  secretScanSteps,
  stringMayMatch,
  type PatternKind,
  type SecretKind,
} from "./patterns";
import { adversarialInputs } from "./testing/adversarial";

const key = new Uint8Array(32).fill(7);
const r = new Redactor(key);

// ---- the reference: the format's expressions run as JavaScript regular expressions, as
// this module did before (backtracking, so only on short inputs)
const NB = "(?<![A-Za-z0-9])";
const REFERENCE = new RegExp(PATTERNS.map((p, i) => `(?<p${i}>${p.notAfterAlnum ? NB : ""}${p.source})`).join("|"), "g");
const REFERENCE_PEM = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

function referenceMatches(s: string): Array<[PatternKind, number, number]> {
  const out: Array<[PatternKind, number, number]> = [];
  for (const m of s.matchAll(REFERENCE)) {
    const i = Object.values(m.groups!).findIndex((g) => g !== undefined);
    out.push([PATTERNS[i].kind, m.index, m.index + m[0].length]);
  }
  return out;
}

function referenceRedact(s: string): { text: string; kinds: SecretKind[] } {
  const kinds: SecretKind[] = [];
  if (referenceMatches(s).length === 0) return { text: s, kinds };
  let out = s.replace(REFERENCE_PEM, (block) => {
    kinds.push("private-key");
    return r.placeholder("private-key", block);
  });
  out = out.replace(REFERENCE, (match: string, ...rest: unknown[]) => {
    const groups = rest[rest.length - 1] as Record<string, string | undefined>;
    const kind = PATTERNS[Object.values(groups).findIndex((g) => g !== undefined)].kind;
    kinds.push(kind);
    if (kind === "url-password") {
      const colon = match.indexOf(":", match.indexOf("://") + 3);
      return match.slice(0, colon + 1) + r.placeholder(kind, match.slice(colon + 1, -1)) + "@";
    }
    if (kind === "bearer-token") return "Bearer " + r.placeholder(kind, match.slice(7));
    return r.placeholder(kind, match);
  });
  return { text: out, kinds };
}

function scanned(s: string): Array<[PatternKind, number, number]> {
  const out: Array<[PatternKind, number, number]> = [];
  scanSecrets(s, (kind, start, end) => {
    out.push([kind, start, end]);
  });
  return out;
}

function pemBlocks(s: string, re: boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (re) for (const m of s.matchAll(REFERENCE_PEM)) out.push([m.index, m.index + m[0].length]);
  else scanPemBlocks(s, (a, b) => out.push([a, b]));
  return out;
}

// ---- samples of each pattern, to show the prefilter lets every one through
const chars = (spec: string) => [...spec];
const ALNUM = chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
const UPPER_DIGIT = chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
const TOKEN = [...ALNUM, "_", "-"];
const str = (alphabet: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const lit = (...options: string[]) => fc.constantFrom(...options);
const cat = (...parts: fc.Arbitrary<string>[]) => fc.tuple(...parts).map((p) => p.join(""));
const URL_CHARS = [...ALNUM, ".", "-", "%", "é", "😀", "!", "#", "?", "=", "\u200b"];

const SAMPLES: Record<PatternKind, fc.Arbitrary<string>> = {
  "aws-access-key": cat(lit("AKIA"), str(UPPER_DIGIT, 16, 16)),
  "openai-key": cat(lit("sk-"), str(TOKEN, 20, 40)),
  "stripe-key": cat(lit("sk", "rk"), lit("_"), lit("live", "test"), lit("_"), str(ALNUM, 16, 30)),
  "github-token": cat(lit("gh"), lit(...chars("pousr")), lit("_"), str(ALNUM, 36, 50)),
  "slack-token": cat(lit("xox"), lit(...chars("abprs")), lit("-"), str([...ALNUM, "-"], 10, 30)),
  "google-api-key": cat(lit("AIza"), str(TOKEN, 35, 35)),
  jwt: cat(lit("eyJ"), str(TOKEN, 10, 20), lit("."), str(TOKEN, 10, 20), lit("."), str(TOKEN, 10, 20)),
  "private-key": cat(lit("-----BEGIN "), str(chars("ABCDERSZ "), 0, 10), lit("PRIVATE KEY-----")),
  "bearer-token": cat(lit("Bearer "), str([...ALNUM, ...chars("._~+/=-")], 20, 40)),
  "url-password": cat(
    str(chars("abcz"), 1, 1),
    str(chars("az09+.-"), 0, 8),
    lit("://"),
    str(URL_CHARS, 1, 10),
    lit(":"),
    str([...URL_CHARS, ":"], 1, 10),
    lit("@"),
  ),
};

// every character a class treats apart: JavaScript's whitespace (\s), and others around it
const SPECIAL = [
  ..."\t\n\v\f\r \u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff",
  ..."\u200b\u0085\u180e\u00ff",
  ...":/@._-+~=!#%Aaz09",
  "\ud83d",
];

// ---- random text made of the pieces the patterns are sensitive to
const run = (chars: string) => fc.tuple(fc.constantFrom(...chars), fc.integer({ min: 1, max: 40 })).map(([c, n]) => c.repeat(n));
const piece = fc.oneof(
  fc.constantFrom(
    ...[
      "AKIA",
      "AIza",
      "sk-",
      "sk_",
      "rk_",
      "live_",
      "test_",
      "ghp_",
      "gho_",
      "ghx_",
      "xoxb-",
      "xoxq-",
      "eyJ",
      "-----BEGIN ",
      "-----BEGIN",
      "PRIVATE KEY-----",
      "PRIVATE KEY",
      "-----END ",
      "-----END PRIVATE KEY-----",
      "RSA ",
      "-----BEGIN RSA PRIVATE KEY-----",
      "-----END RSA PRIVATE KEY-----",
      "-----END EC PRIVATE KEY-----",
      "-----END RSA PRIVATE KEY",
      "://:",
      ":@",
      "Bearer ",
      "Bearer",
      "://",
      ":/",
      "http",
      "a+b.c-d",
      ".",
      ":",
      "/",
      "@",
      " ",
      "\n",
      "\t",
      "\u00a0",
      "\u2028",
      "\u3000",
      "\ufeff",
      "\u200b",
      "é",
      "😀",
      "_",
      "-",
      "+",
      "~",
      "=",
      "!",
      "[redacted:",
    ],
  ),
  run("aZ09"),
  run("abcxyz"),
  run("ABCXYZ"),
  run("0123456789"),
  run("-_."),
  run("A "),
  // PEM blocks whose END line names the same label, another one, or a part of it
  fc
    .tuple(
      fc.constantFrom("", "RSA ", "EC ", "RS", "RSA EC "),
      fc.constantFrom("", "\nMIIE\n", "x"),
      fc.constantFrom("", "RSA ", "EC ", "RS"),
    )
    .map(([a, body, b]) => `-----BEGIN ${a}PRIVATE KEY-----${body}-----END ${b}PRIVATE KEY-----`),
  // whole secrets, and secrets cut short or run on
  ...Object.values(SAMPLES),
  ...Object.values(SAMPLES).map((a) => fc.tuple(a, fc.nat()).map(([x, cut]) => x.slice(0, cut % (x.length + 1)))),
  ...Object.values(SAMPLES).map((a) => fc.tuple(a, fc.nat()).map(([x, cut]) => x.slice(cut % (x.length + 1)))),
  // and with one character put in or taken out anywhere
  ...Object.values(SAMPLES).map((a) =>
    fc.tuple(a, fc.nat(), fc.constantFrom(...SPECIAL), fc.boolean()).map(([x, at, c, put]) => {
      const i = at % (x.length + 1);
      return put ? x.slice(0, i) + c + x.slice(i) : x.slice(0, i) + x.slice(i + 1);
    }),
  ),
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(""));

describe("the pattern table", () => {
  it("holds the format's expressions, as docs/journal-format.md lists them", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/journal-format.md"), "utf8").replace(/\s+/g, " ");
    for (const p of PATTERNS) expect(doc, p.kind).toContain("`" + p.source + "`");
    expect(doc).toContain("the first seven must not be preceded by a letter or digit");
    expect(PATTERNS.map((p) => p.notAfterAlnum)).toEqual([true, true, true, true, true, true, true, false, false, false]);
  });
});

describe("the linear matchers", () => {
  it("find what global matching of the format's expressions finds, and redact alike", () => {
    const seen = new Set<PatternKind>();
    fc.assert(
      fc.property(text, (s) => {
        const want = referenceMatches(s);
        for (const [kind] of want) seen.add(kind);
        expect(scanned(s)).toEqual(want);
        expect(pemBlocks(s, false)).toEqual(pemBlocks(s, true));
        const kinds: SecretKind[] = [];
        const ref = referenceRedact(s);
        expect(r.redactString(s, kinds)).toBe(ref.text);
        expect(kinds).toEqual(ref.kinds);
        expect(hasSecret({ v: s })).toBe(want.length > 0);
        // the prefilter never turns away a string that holds a secret
        if (want.length > 0) expect(stringMayMatch(s) && lineMayMatchPattern(JSON.stringify(s))).toBe(true);
      }),
      { numRuns: 4000, seed: 14 },
    );
    // the random text reaches every pattern
    expect([...seen].sort()).toEqual(PATTERNS.map((p) => p.kind).sort());
  });

  it("agree with the expressions on every hostile shape, short enough for the expressions to finish", () => {
    for (const p of PATTERNS) {
      for (const { name, text } of adversarialInputs(p.kind, 1500)) {
        expect(scanned(text), `${p.kind}: ${name}`).toEqual(referenceMatches(text));
        expect(r.redactString(text), `${p.kind}: ${name}`).toBe(referenceRedact(text).text);
      }
    }
  });

  it("read each character a bounded number of times on every hostile shape", () => {
    const n = 160_000;
    for (const p of PATTERNS) {
      for (const { name, text } of adversarialInputs(p.kind, n)) {
        const before = secretScanSteps();
        r.redactString(text);
        findSecrets({ v: text });
        // two passes (redaction, then analysis), each a small constant per character
        expect(secretScanSteps() - before, `${p.kind}: ${name}`).toBeLessThanOrEqual(8 * n);
      }
    }
  });

  it("handle the input that took 12 s to ingest: nothing to redact, found in a bounded number of steps", () => {
    const s = "a".repeat(160_000) + "://";
    const before = secretScanSteps();
    expect(r.redactString(s)).toBe(s);
    expect(findSecrets({ v: s })).toEqual([]);
    expect(hasSecret({ v: s })).toBe(false);
    expect(secretScanSteps() - before).toBeLessThanOrEqual(4 * s.length);
    // and with credentials after it, the password is replaced and the rest kept
    const url = s + "user:pa55word@host/x";
    const out = r.redactString(url);
    expect(out.startsWith(s + "user:[redacted:url-password:")).toBe(true);
    expect(out.endsWith("]@host/x")).toBe(true);
    expect(out).not.toContain("pa55word");
  });
});

describe("the prefilter", () => {
  it("lets through every generated sample of every pattern, raw and as JSON text", () => {
    for (const p of PATTERNS) {
      const whole = new RegExp(`^(?:${p.source})$`);
      fc.assert(
        fc.property(SAMPLES[p.kind], fc.constantFrom("", " ", "x=", "\n"), (sample, before) => {
          // the sample is one of the pattern's strings (so the generator tests something)
          expect(sample).toMatch(whole);
          const s = `${before}${sample} after`;
          expect(stringMayMatch(s), JSON.stringify(s)).toBe(true);
          expect(lineMayMatchPattern(JSON.stringify({ v: s })), JSON.stringify(s)).toBe(true);
          expect(scanned(s).map(([kind]) => kind)).toContain(p.kind);
        }),
        { numRuns: 300, seed: 7 },
      );
    }
  });

  it("answers no for text that holds no prefix", () => {
    expect(stringMayMatch("an ordinary sentence: with a colon and a/slash")).toBe(false);
    expect(lineMayMatchPattern(JSON.stringify({ v: "an ordinary sentence: with a colon and a/slash" }))).toBe(false);
  });
});
