import { describe, expect, it } from "vitest";
import { LINE_LITERALS, Redactor, findSecrets, hasSecret } from "./index";
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
  // and the literals of what redaction finds beyond the format
  const reference = new RegExp(
    [...escaped, ...LINE_LITERALS.map((x) => x.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")), "\\\\u", "\\\\/"].join("|"),
  );
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

describe("redaction beyond the format's list", () => {
  // built at run time: no literal secret in this file
  const pat = "github_pat_" + "11AB2CD3EF4GH5IJ6KL7MN" + "_" + "Zq9".repeat(19) + "xy";
  const secretKey = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY";
  const asia = "ASIA" + "ZXCVBNMLKJHGFDSA";
  const sha1 = "0123456789abcdef0123456789abcdef01234567";
  const redacted = (v: unknown) => JSON.stringify(r.redact(v).value);

  it("replaces GitHub fine-grained tokens and ASIA key ids, not after a letter or digit", () => {
    expect(r.redactString(`token ${pat} end`)).toMatch(/^token \[redacted:github-fine-grained-token:[0-9a-f]{12}\] end$/);
    expect(r.redactString(`x${pat}`)).toBe(`x${pat}`);
    expect(r.redactString(`id=${asia}`)).toMatch(/^id=\[redacted:aws-temporary-access-key:[0-9a-f]{12}\]$/);
  });

  it("replaces a 40-character AWS secret key under any secret-ish key name, beside a key id, or assigned in text", () => {
    for (const name of ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey", "session_token", "db_password", "signing_Key"])
      expect(redacted({ [name]: secretKey }), name).not.toContain(secretKey);
    expect(redacted({ AccessKeyId: aws, Value: secretKey })).not.toContain(secretKey);
    expect(redacted([asia, secretKey])).not.toContain(secretKey);
    expect(r.redactString(`${aws} ${secretKey}`)).not.toContain(secretKey);
    expect(r.redactString(`export AWS_SECRET_ACCESS_KEY=${secretKey}\n`)).not.toContain(secretKey);
    expect(r.redactString(`aws_secret_access_key: "${secretKey}"`)).not.toContain(secretKey);
    // elsewhere a 40-character run is data; beside a key id a hex digest (a commit) is too
    expect(redacted({ note: secretKey })).toContain(secretKey);
    expect(redacted({ id: aws, commit: sha1 })).toContain(sha1);
    expect(redacted({ keyword: secretKey })).toContain(secretKey);
  });

  it("replaces secrets in object keys, deterministically, losing no value when keys collide", () => {
    const v = { [openai]: 1, nested: { [`x-${pat}`]: { [aws]: "v" } } };
    const out = r.redact(v);
    const text = JSON.stringify(out.value);
    for (const s of [openai, pat, aws]) expect(text).not.toContain(s);
    expect(out.count).toBe(3);
    expect(JSON.stringify(r.redact(v).value)).toBe(text);
    // a placeholder equal to a key already there, and two keys redacting alike
    const ph = r.redactString(openai);
    const collide = r.redact({ [ph]: "kept", [openai]: "also kept" }).value;
    expect(collide).toEqual({ [ph]: "kept", [`${ph}#2`]: "also kept" });
    const both = r.redact({ [`a ${openai}`]: 1, [`a ${ph}`]: 2 }).value;
    expect(Object.keys(both)).toEqual([`a ${ph}#2`, `a ${ph}`]);
    expect(Object.values(both)).toEqual([1, 2]);
  });

  it("reports only what analysis finds (the format's patterns in values), while counting everything replaced", () => {
    const v = { [openai]: pat, k: { aws_secret_access_key: secretKey }, s: stripe };
    const out = r.redact(v);
    expect(out.hits).toEqual(findSecrets(v));
    expect(out.hits.map((h) => h.kind)).toEqual(["stripe-key"]);
    expect(out.count).toBe(4);
    expect(hasSecret({ v: pat })).toBe(false);
  });

  it("is idempotent: redacting stored data again changes nothing", () => {
    const once = r.redact({ [openai]: pat, k: { aws_secret_access_key: secretKey }, d: `${aws} ${secretKey}` }).value;
    const twice = r.redact(once);
    expect(twice.value).toEqual(once);
    expect(twice.count).toBe(0);
  });
});

describe("a secret-named field written as JSON inside a string", () => {
  it("has its value replaced, as the field would be in the object", () => {
    const args = JSON.stringify({ q: 1, password: "hunter2-long-value", nested: { Token: "abc" } });
    const out = r.redact({ arguments: args });
    const text = JSON.parse(out.value.arguments) as { password: string; nested: { Token: string } };
    expect(text.password).toMatch(/^\[redacted:secret-field:[0-9a-f]{12}\]$/);
    expect(text.nested.Token).toMatch(/^\[redacted:secret-field:[0-9a-f]{12}\]$/);
    expect(r.redact(out.value).count).toBe(0);
    // an empty value, and a key that only contains a secret name, are data
    expect(r.redactString('{"password":"","passwords":"x"}')).toBe('{"password":"","passwords":"x"}');
  });
});
