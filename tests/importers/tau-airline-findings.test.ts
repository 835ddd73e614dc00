/**
 * docs/policies/tau-bench-airline-findings.md lists every finding of the tau-bench airline
 * policy over all 200 published gpt-4o airline trajectories, each read by hand. This test
 * recomputes the findings from the published file (kept unchanged, gzipped; its git blob id
 * is checked) and asserts they are exactly the table's rows. The table names each call by
 * the trajectory message that makes it; the test finds that message's tool.call in the
 * imported run itself, so a row's seq is checked against the source file, not only against
 * the analyzer's output.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { importTrace } from "@/lib/importers";

const ROOT = path.resolve(__dirname, "../..");
const FILE = path.join(ROOT, "tests/fixtures/corpus/tau-bench/gpt-4o-airline.json.gz");
const TABLE = path.join(ROOT, "docs/policies/tau-bench-airline-findings.md");
const POLICY = JSON.parse(fs.readFileSync(path.join(ROOT, "docs/policies/tau-bench-airline.json"), "utf8"));
/** sierra-research/tau-bench@59a200c historical_trajectories/gpt-4o-airline.json */
const BLOB = "a5f0d91569e740b949b37a181993b3f1822a86f4";

type Msg = { role: string; tool_calls?: unknown[] };
type Row = { record: number; message: number; seq: number; rule: string; invariant: string; verdict: string };

function tableRows(md: string): Row[] {
  const rows: Row[] = [];
  for (const line of md.split("\n")) {
    const m = /^\| (\d+) \| (\d+) \| [^|]+ \| (\d+) \| (\d+) \| `([^`]+)` \| `([^`]+)` \| (\w+) \|/.exec(line);
    if (m) rows.push({ record: +m[2], message: +m[3], seq: +m[4], rule: m[5], invariant: m[6], verdict: m[7] });
  }
  return rows;
}

describe("tau-bench airline policy over all published gpt-4o airline trajectories", () => {
  const bytes = zlib.gunzipSync(fs.readFileSync(FILE));
  const text = bytes.toString("utf8");
  const records = JSON.parse(text) as Array<{ traj: Msg[] }>;
  const imported = importTrace(text, { fileName: "gpt-4o-airline.json" });
  const runs = imported.runs.map((run) =>
    run.events.map((e) => (e.type === "run.start" ? { ...e, data: { ...e.data, policy: POLICY } } : e)),
  );
  const rows = tableRows(fs.readFileSync(TABLE, "utf8"));

  it("reads the published file unchanged, one run per record", () => {
    const blob = crypto.createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
    expect(blob).toBe(BLOB);
    expect(records).toHaveLength(200);
    expect(runs).toHaveLength(200);
  });

  it("the table's rows are all real violations, each at the call its trajectory message makes", () => {
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.verdict !== "real")).toEqual([]);
    for (const r of rows) {
      const msg = records[r.record].traj[r.message];
      expect(msg.role, `record ${r.record} message ${r.message}`).toBe("assistant");
      expect(msg.tool_calls?.length ?? 0).toBeGreaterThan(0);
      // the importer's step for an assistant message is turn-N, N counting assistant messages
      const turn = records[r.record].traj.slice(0, r.message + 1).filter((m) => m.role === "assistant").length;
      const calls = runs[r.record].filter((e) => e.type === "tool.call" && e.step === `turn-${turn}`).map((e) => e.seq);
      expect(calls, `record ${r.record} message ${r.message}`).toContain(r.seq);
    }
  });

  it("the policy reports exactly the table's findings", () => {
    const got: string[] = [];
    runs.forEach((events, record) => {
      for (const f of analyzeEvents(events)) {
        if (!f.rule.startsWith("policy.") && f.rule !== "tool.args-invalid") continue;
        got.push(`${record}@${f.seq} ${f.rule} ${/invariant "([^"]+)"/.exec(f.message)?.[1]}`);
      }
    });
    const want = rows.map((r) => `${r.record}@${r.seq} ${r.rule} ${r.invariant}`);
    expect(got.sort()).toEqual(want.sort());
  });

  it("without the policy the same runs have no policy findings", () => {
    for (const run of imported.runs) expect(analyzeEvents(run.events).filter((f) => f.rule.startsWith("policy."))).toEqual([]);
  });
});
