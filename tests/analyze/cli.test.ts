/**
 * `retrace analyze` as users and CI run it: a child process, the example files, the
 * answer key, and the exit codes (0 whatever is found, 2 for unreadable input).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, ROOT } from "./run-cli";

const EXAMPLES = "tests/fixtures/examples";

interface Row {
  file: string;
  run: string;
  rule: string;
  seq: number;
  severity: string;
  message: string;
}

const answers = JSON.parse(readFileSync(path.join(ROOT, EXAMPLES, "answers.json"), "utf8")) as Record<
  string,
  Array<{ rule: string; seq: number }>
>;
const files = readdirSync(path.join(ROOT, EXAMPLES))
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

describe("retrace analyze (child process)", () => {
  it("--json on all example files prints one JSON object equal to the answer key, exit 0", () => {
    const r = cli("analyze", "--json", ...files.map((f) => `${EXAMPLES}/${f}`));
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const out = JSON.parse(r.stdout) as { findings: Row[] };
    expect(Object.keys(out)).toEqual(["findings"]);
    for (const f of files) {
      const mine = out.findings.filter((x) => x.file === `${EXAMPLES}/${f}`);
      expect(mine.map((x) => `${x.rule}@${x.seq}`).sort(), f).toEqual(answers[f].map((x) => `${x.rule}@${x.seq}`).sort());
    }
    for (const row of out.findings) {
      expect(Object.keys(row).sort()).toEqual(["file", "message", "rule", "run", "seq", "severity"]);
      expect(row.run).toMatch(/^demo-/);
    }
  });

  it("exits 2 for a missing file, says so on stderr, and still reports the readable ones", () => {
    const r = cli("analyze", "--json", "no/such/file.jsonl", `${EXAMPLES}/16-refund-state.hash-mismatch.jsonl`);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no/such/file.jsonl: no such file");
    expect((JSON.parse(r.stdout) as { findings: Row[] }).findings.map((x) => x.rule)).toEqual(["state.hash-mismatch"]);
  });

  it("exits 2 for a file that is not a journal", () => {
    const r = cli("analyze", "--json", `${EXAMPLES}/answers.json`);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not a journal/);
  });

  it("reads gzip, analyses each run of a multi-run file on its own, and agrees with the plain file", () => {
    const plain = cli("analyze", "--json", "tests/fixtures/generated/multi-run-seed-7.jsonl");
    const gz = cli("analyze", "--json", "tests/fixtures/generated/multi-run-seed-7.jsonl.gz");
    expect(plain.status).toBe(0);
    expect(gz.status).toBe(0);
    const strip = (s: string) => (JSON.parse(s) as { findings: Row[] }).findings.map(({ file: _f, ...rest }) => rest);
    expect(strip(gz.stdout)).toEqual(strip(plain.stdout));
    expect(new Set(strip(plain.stdout).map((x) => x.run)).size).toBeGreaterThan(1);
  });

  it("prints a readable report per file and run without --json, and usage errors exit 2", () => {
    const r = cli("analyze", `${EXAMPLES}/00-refund-clean.jsonl`, `${EXAMPLES}/17-booking-secret.exposed.jsonl`);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("run demo-refund-4185: no findings");
    expect(r.stdout).toMatch(/seq 8 +error +secret\.exposed/);
    expect(r.stdout).not.toContain("sk_live_");
    expect(cli("analyze").status).toBe(2);
    expect(cli("analyze", "--bogus", "x").status).toBe(2);
  });
});
