import { describe, expect, it } from "vitest";
import { Redactor, findSecrets, hasSecret } from "./index";
import { PATTERNS, lineMayMatchPattern, stringMayMatch } from "./patterns";
import { createRng } from "../replay/testing/journal-generator";

const key = new Uint8Array(32).fill(7);
const r = new Redactor(key);

// Built at run time so this file holds no literal secret.
const aws = "AKIA" + "ABCDEFGHIJKLMNOP";
const openai = "sk-" + "a".repeat(24);
const stripe = "sk_live_" + "b".repeat(20);
const gh = "ghp_" + "c".repeat(36);
const slack = "xoxb-" + "1234567890-abc";
const google = "AIza" + "d".repeat(35);
const jwt = "eyJ" + "e".repeat(12) + "." + "f".repeat(12) + "." + "g".repeat(12);
const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + "h".repeat(40) + "\n-----END RSA PRIVATE KEY-----";
const bearer = "Bearer " + "i".repeat(30);
const url = "postgres://admin:hunter2pass@db.internal:5432/x";

describe("secret patterns", () => {
  it("find each pattern of the format, with its kind", () => {
    const kinds = [aws, openai, stripe, gh, slack, google, jwt, pem, bearer, url].map((s) => findSecrets({ v: `x ${s} y` })[0]?.kind);
    expect(kinds).toEqual([
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
    ]);
  });
  it("respect the not-preceded-by-a-letter-or-digit rule", () => {
    expect(hasSecret({ v: "X" + aws })).toBe(false);
    expect(hasSecret({ v: "-" + aws })).toBe(true);
    expect(hasSecret({ v: "task-" + "a".repeat(24) })).toBe(false);
  });
  it("flag non-empty values under secret keys in any case, never keys", () => {
    expect(findSecrets({ data: { Password: "pw" } })).toEqual([{ path: "data.Password", kind: "secret-field" }]);
    expect(hasSecret({ token: "" })).toBe(false);
    expect(hasSecret({ [aws]: 1 })).toBe(false);
    expect(hasSecret({ token: ["nested"] })).toBe(false);
  });
});

describe("Redactor", () => {
  it("replaces every secret with a stable placeholder and leaves clean values untouched", () => {
    const clean = { a: "hello", b: [1, { c: "world" }] };
    expect(r.redact(clean).value).toBe(clean);
    const ev = { data: { args: { k: aws, again: `use ${aws}` }, headers: { Authorization: "Basic abc" }, u: url, p: pem } };
    const out = r.redact(ev);
    const text = JSON.stringify(out.value);
    for (const s of [aws, "Basic abc", "hunter2pass", "MIIEow"]) expect(text).not.toContain(s);
    expect(out.count).toBe(5);
    const ph = out.value.data.args.k as string;
    expect(ph).toMatch(/^\[redacted:aws-access-key:[0-9a-f]{12}\]$/);
    expect(out.value.data.args.again).toBe(`use ${ph}`);
    expect(out.value.data.u).toMatch(/^postgres:\/\/admin:\[redacted:url-password:[0-9a-f]{12}\]@db\.internal/);
    // what still matches a pattern is a placeholder (under a secret key, or as a URL's password)
    expect(
      findSecrets(out.value)
        .map((h) => h.path)
        .sort(),
    ).toEqual(["data.headers.Authorization", "data.u"]);
  });
  it("gives different placeholders under a different deployment key", () => {
    const other = new Redactor(new Uint8Array(32).fill(9));
    expect(other.redactString(aws)).not.toBe(r.redactString(aws));
  });
});

describe("lineMayMatchPattern and stringMayMatch", () => {
  // the plain alternation of the table's prefixes, and of the escapes that could spell one
  const escaped = PATTERNS.flatMap((p) => p.prefixes).map((x) => x.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"));
  const reference = new RegExp([...escaped, "\\\\u", "\\\\/"].join("|"));
  const plain = new RegExp(escaped.join("|"));
  it("answers as the plain alternation of its literals on fuzzed text", () => {
    const pieces = [
      "AKIA",
      "AKI",
      "AIza",
      "AIz",
      "sk-",
      "sk_",
      "rk_",
      "rk-",
      "k-",
      "k_",
      "s",
      "r",
      "k",
      "gh",
      "ghp_",
      "gho_",
      "ghx_",
      "_",
      "xoxb-",
      "xoxq-",
      "xox",
      "-",
      "-----BEGIN ",
      "-----BEGIN",
      "----BEGIN ",
      "eyJ",
      "ey",
      "J",
      "Bearer ",
      "Bearer",
      ":/",
      "://",
      "/",
      ":",
      "\\u",
      "\\/",
      "\\",
      "u",
      "a",
      " ",
      '"',
      "é",
      "😀",
    ];
    const rng = createRng(11);
    const pick = () => rng.pick(pieces);
    let positives = 0;
    for (let i = 0; i < 20000; i++) {
      let text = "";
      const n = 1 + (i % 9);
      for (let k = 0; k < n; k++) text += pick();
      const want = reference.test(text);
      if (want) positives++;
      expect(lineMayMatchPattern(text), JSON.stringify(text)).toBe(want);
      expect(stringMayMatch(text), JSON.stringify(text)).toBe(plain.test(text));
    }
    expect(positives).toBeGreaterThan(1000);
  });
});
