/**
 * `retrace import --policy` and `retrace policy attach` as a user runs them: the real CLI
 * program on a fresh SQLite database. The seqs expected are those the journal is built with.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { freshDb } from "../helpers/db";
import { getRun } from "@/lib/server/queries";

const exec = promisify(execFile);
const CLI = path.resolve("scripts/retrace.mjs");

async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await exec(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Two modifications of order #1, at seq 1 and seq 3. */
function journal(run: string): string {
  const items: Array<[string, Record<string, unknown>]> = [
    ["run.start", { workflow: { name: "airline" } }],
    ["tool.call", { call: "a", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-a" }],
    ["tool.result", { call: "a", status: "ok", result: {} }],
    ["tool.call", { call: "b", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-b" }],
    ["run.end", { status: "succeeded" }],
  ];
  return items
    .map(([type, data], seq) => JSON.stringify({ run, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), type, data }))
    .join("\n");
}

describe("retrace policy and import --policy", () => {
  it("imports with a policy, attaches versions to a workflow, and refuses a bad file with its path", async () => {
    const t = await freshDb("sqlite");
    const env = { DATABASE_URL: t.url };
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "policy-cli-"));
    const once = path.join(dir, "once.json");
    const ONCE = { invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify"], arg: "/order_id" }] };
    fs.writeFileSync(once, JSON.stringify(ONCE));
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ invariants: [{ id: "x", kind: "confirmed-by-input", tools: ["modify"], words: [] }] }));
    const a = path.join(dir, "a.jsonl");
    fs.writeFileSync(a, journal("cli-a"));
    const b = path.join(dir, "b.jsonl");
    fs.writeFileSync(b, journal("cli-b"));

    const refused = await cli(["import", "--policy", bad, a], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("policy.invariants[0].words");

    const imported = await cli(["import", "--policy", once, a], env);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const plain = await cli(["import", b], env);
    expect(plain.code).toBe(0);
    const db = t.open();
    const policyAt = async (run: string) =>
      (await getRun(db, run))!.findings.filter((f) => f.rule.startsWith("policy.")).map((f) => `${f.rule}@${f.seq}`);
    expect(await policyAt("cli-a")).toEqual(["policy.once-per@3"]);
    expect((await getRun(db, "cli-a"))!.judgedBy).toEqual({ source: "import", policy: ONCE });
    expect(await policyAt("cli-b")).toEqual([]);

    const badAttach = await cli(["policy", "attach", "airline", bad], env);
    expect(badAttach.code).toBe(2);
    expect(badAttach.stderr).toContain("policy.invariants[0].words");

    const attached = await cli(["policy", "attach", "airline", once], env);
    expect(attached.code).toBe(0);
    expect(attached.stdout).toContain(`attached policy v1 to workflow "airline": 2 runs judged again`);
    expect(await policyAt("cli-b")).toEqual(["policy.once-per@3"]);
    expect((await getRun(db, "cli-b"))!.judgedBy).toEqual({ source: "workflow", workflow: "airline", version: 1, policy: ONCE });
    const listed = await cli(["policy", "list", "airline"], env);
    expect(listed.stdout).toMatch(/^airline v1 {2}\S+ {2}cli:/m);
    await t.cleanup();
  });
});

describe("replay --policy and mcp-proxy --policy", () => {
  it("refuse a policy file that is not one with exit 2, naming the file and what is wrong, before anything runs", async () => {
    const dir = fs.mkdtempSync(path.join(inject("tmpDir"), "policy-replay-cli-"));
    const a = path.join(dir, "a.jsonl");
    fs.writeFileSync(a, journal("cli-replay"));
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ invariants: [{ id: "x", kind: "once-per", tools: ["modify"], arg: "/order_id" }], maxStep: 3 }));
    const broken = path.join(dir, "broken.json");
    fs.writeFileSync(broken, '{\n  "invariants": [\n    oops\n  ]\n}');
    const ran = path.join(dir, "ran");
    const command = [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(ran)}, "")`];

    const replay = await cli(["replay", a, "--policy", bad, "--", ...command], {});
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain(`replay: --policy ${bad}: policy`);
    expect(replay.stderr).toContain("maxStep");
    const syntax = await cli(["replay", a, "--policy", broken, "--", ...command], {});
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toContain(`--policy ${broken}: not JSON`);
    const missing = await cli(["replay", a, "--policy", path.join(dir, "none.json"), "--", ...command], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("(no such file)");
    expect(fs.existsSync(ran)).toBe(false);
    // the journal-only replay has no agent to refuse anything
    const hermetic = await cli(["replay", a, "--policy", bad], {});
    expect(hermetic.code).toBe(2);
    expect(hermetic.stderr).toContain("--policy needs a command to run");

    const proxy = await cli(["mcp-proxy", "--replay", a, "--policy", bad], {});
    expect(proxy.code).toBe(2);
    expect(proxy.stderr).toContain(`mcp-proxy: --policy ${bad}: policy`);
    const recording = await cli(["mcp-proxy", "--out", path.join(dir, "x.jsonl"), "--policy", bad, "--", ...command], {});
    expect(recording.code).toBe(2);
    expect(recording.stderr).toContain("--policy goes with --replay");
  });
});
