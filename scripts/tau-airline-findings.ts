/**
 * The tau-bench airline policy (docs/policies/tau-bench-airline.json) over a tau-bench
 * results file: one line per finding, `record message seq rule invariant`, tab-separated
 * (record = index in the file's array, message = index in its `traj` of the assistant
 * message making the call). The table of docs/policies/tau-bench-airline-findings.md is
 * these rows, each read by hand; tests/importers/tau-airline-findings.test.ts checks it.
 *
 *   npx tsx scripts/tau-airline-findings.ts historical_trajectories/gpt-4o-airline.json[.gz]
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { analyzeEvents } from "@/lib/analyze";
import { importTrace } from "@/lib/importers";

const file = process.argv[2];
if (!file) {
  console.error("usage: tsx scripts/tau-airline-findings.ts RESULTS.json[.gz]");
  process.exit(2);
}
const raw = fs.readFileSync(file);
const text = (file.endsWith(".gz") ? zlib.gunzipSync(raw) : raw).toString("utf8");
const policy = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../docs/policies/tau-bench-airline.json"), "utf8"));
const records = JSON.parse(text) as Array<{ traj: Array<{ role: string }> }>;
importTrace(text, { fileName: path.basename(file) }).runs.forEach((run, record) => {
  // the importer opens step `turn-N` for the Nth assistant message of the record's traj
  const assistant = records[record].traj.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
  const events = run.events.map((e) => (e.type === "run.start" ? { ...e, data: { ...e.data, policy } } : e));
  for (const f of analyzeEvents(events)) {
    if (!f.rule.startsWith("policy.") && f.rule !== "tool.args-invalid") continue;
    const step = events.find((e) => e.seq === f.seq)?.step ?? "";
    const message = assistant[Number(/^turn-(\d+)$/.exec(step)?.[1]) - 1];
    const invariant = /invariant "([^"]+)"/.exec(f.message)?.[1] ?? "";
    console.log([record, message, f.seq, f.rule, invariant].join("\t"));
  }
});
