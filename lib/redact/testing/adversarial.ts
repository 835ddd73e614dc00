/**
 * Hostile inputs for the secret matchers, per pattern: its prefix repeated, its prefix
 * followed by a long run of characters it accepts, and the near misses that made the old
 * backtracking expressions quadratic (`"a".repeat(n) + "://"` for URLs, "-eyJ" repeated
 * for JWTs); and, apart, its shortest secret repeated (`dense`: as many matches as the
 * length allows, where the cost is building the redacted text, several times longer than
 * the input). Shared by the linear-work test (lib/redact/patterns.test.ts) and
 * `npm run bench:redact`.
 */
import type { PatternKind } from "../patterns";

interface AdversarialInput {
  name: string;
  text: string;
  /** The shortest secret repeated: the work is in the replacements, not in matching. */
  dense: boolean;
}

/** `unit` repeated to exactly `n` characters (cut mid-unit at the end). */
function fill(unit: string, n: number): string {
  return unit.repeat(Math.ceil(Math.max(n, 0) / unit.length)).slice(0, Math.max(n, 0));
}

type Shape = [name: string, build: (n: number) => string];
const repeated = (unit: string): Shape => [`${JSON.stringify(unit)} repeated`, (n) => fill(unit, n)];
const thenRun = (head: string, run: string): Shape => [
  `${JSON.stringify(head)} + ${JSON.stringify(run)} repeated`,
  (n) => head + fill(run, n - head.length),
];
const runThen = (run: string, tail: string): Shape => [
  `${JSON.stringify(run)} repeated + ${JSON.stringify(tail)}`,
  (n) => fill(run, n - tail.length) + tail,
];

/** Each pattern's shortest secret (the same one each time: one HMAC, then the cache). */
const SHORTEST: Record<PatternKind, string> = {
  "aws-access-key": "AKIA" + "A".repeat(16) + " ",
  "openai-key": "sk-" + "a".repeat(20) + " ",
  "stripe-key": "sk_live_" + "a".repeat(16) + " ",
  "github-token": "ghp_" + "a".repeat(36) + " ",
  "slack-token": "xoxb-" + "a".repeat(10) + " ",
  "google-api-key": "AIza" + "a".repeat(35) + " ",
  jwt: "eyJ" + "a".repeat(10) + "." + "a".repeat(10) + "." + "a".repeat(10) + " ",
  "private-key": "-----BEGIN PRIVATE KEY-----x-----END PRIVATE KEY-----",
  "bearer-token": "Bearer " + "a".repeat(20) + " ",
  "url-password": "a://b:c@",
};

const SHAPES: Record<PatternKind, Shape[]> = {
  "aws-access-key": [repeated("AKIA"), repeated("-AKIA"), thenRun("AKIA", "A")],
  "openai-key": [repeated("sk-"), repeated("sk-!"), thenRun("sk-", "a"), repeated("sk-" + "a".repeat(19) + "!")],
  "stripe-key": [repeated("sk_live_"), repeated("-rk_test_"), thenRun("sk_live_", "a")],
  "github-token": [repeated("ghp_"), repeated("-ghp_" + "a".repeat(35)), thenRun("ghp_", "a")],
  "slack-token": [repeated("xoxb-"), repeated("!xoxb-"), thenRun("xoxb-", "a")],
  "google-api-key": [repeated("AIza"), repeated("-AIza" + "a".repeat(34)), thenRun("AIza", "a")],
  jwt: [
    repeated("eyJ"),
    repeated("-eyJ"),
    thenRun("eyJ", "a"),
    thenRun("eyJ" + "a".repeat(10) + ".", "a"),
    repeated("_eyJ" + "a".repeat(10) + "." + "a".repeat(10) + "."),
  ],
  "private-key": [
    repeated("-----BEGIN "),
    thenRun("-----BEGIN ", "A"),
    repeated("-----BEGIN PRIVATE KEY-----"),
    thenRun("-----BEGIN PRIVATE KEY-----", "x"),
    thenRun("-----BEGIN A PRIVATE KEY-----", "-----END A "),
    thenRun("-----BEGIN ", "PRIVATE KEY "),
  ],
  "bearer-token": [repeated("Bearer "), thenRun("Bearer ", "a"), repeated("Bearer " + "a".repeat(19) + " ")],
  "url-password": [
    runThen("a", "://"),
    runThen("a", "://u:p@"),
    repeated("a://"),
    thenRun("a://", "b"),
    thenRun("a://b:", "c"),
    repeated("a://b:"),
    runThen("sk-a.", "://x"),
  ],
};

/** The hostile inputs of one pattern, each `n` characters long. */
export function adversarialInputs(kind: PatternKind, n: number): AdversarialInput[] {
  const [name, build] = repeated(SHORTEST[kind]);
  return [...SHAPES[kind].map(([name, build]) => ({ name, text: build(n), dense: false })), { name, text: build(n), dense: true }];
}
