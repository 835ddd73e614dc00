/**
 * `retrace replay --json` as scripts and CI run it: a child process on the examples.
 */
import { describe, expect, it } from "vitest";
import type { ReplaySummary } from "../../lib/replay";
import { cli } from "../analyze/run-cli";

const EXAMPLES = "tests/fixtures/examples";
const json = (s: string) => JSON.parse(s) as ReplaySummary & { file: string; frames: unknown };

describe("retrace replay (child process)", () => {
  it("reconstructs a clean run: zero divergences, writes blocked, exit 0", () => {
    const r = cli("replay", "--json", `${EXAMPLES}/00-refund-clean.jsonl`);
    expect(r.status).toBe(0);
    const out = json(r.stdout);
    expect(out).toMatchObject({
      file: `${EXAMPLES}/00-refund-clean.jsonl`,
      run: "demo-refund-4185",
      fidelity: "replayable",
      bestEffort: false,
      divergences: [],
      blocked: [18, 27],
      fork: null,
    });
    expect(out.provenance).toEqual({ recorded: 31, simulated: 0, blocked: 2, stale: 0 });
  });

  it("reports a fork's change: lower maxSteps stops the run at the step.start, with every frame listed on request", () => {
    const r = cli(
      "replay",
      "--json",
      `${EXAMPLES}/02-codefix-clean.jsonl`,
      "--fork",
      "0",
      "--override",
      '{"policy":{"maxSteps":2}}',
      "--frames",
    );
    expect(r.status).toBe(0);
    const out = json(r.stdout);
    expect(out.fork?.firstChange).toMatchObject({ seq: 29, kind: "stop" });
    expect(out.fork?.stoppedAt).toBe(29);
    expect(Array.isArray(out.frames)).toBe(true);
  });

  it("reports a denied approval's blocked call", () => {
    const out = json(
      cli("replay", "--json", `${EXAMPLES}/00-refund-clean.jsonl`, "--fork", "17", "--override", '{"approval":"denied"}').stdout,
    );
    expect(out.fork?.changes.map((c) => `${c.kind}@${c.seq}`)).toEqual(["overridden@17", "approval@18"]);
  });

  it("exits 2 for a bad override, a missing file, or an ambiguous multi-run file", () => {
    const bad = cli(
      "replay",
      "--json",
      `${EXAMPLES}/00-refund-clean.jsonl`,
      "--fork",
      "3",
      "--override",
      '{"toolResult":{"status":"error"}}',
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/toolResult override needs a tool.result/);
    expect(cli("replay", "--json", "missing.jsonl").status).toBe(2);
    const multi = cli("replay", "--json", "tests/fixtures/generated/multi-run-seed-7.jsonl");
    expect(multi.status).toBe(2);
    expect(multi.stderr).toMatch(/pick one with --run/);
    expect(cli("replay", "--json", "tests/fixtures/generated/multi-run-seed-7.jsonl", "--run", "gen-7-1").status).toBe(0);
  });
});
