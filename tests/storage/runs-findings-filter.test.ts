/**
 * The runs list by findings, server-side on both databases: `rule`, `severity`,
 * `findings=1`, and `q` matching rule ids, finding messages and the rules' plain titles;
 * each run's error findings for its health. Expected runs come from the examples' answer key
 * (tests/fixtures/examples/answers.json) and the severities of the format's rule table
 * (docs/journal-format.md), written out by hand here.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { getRun, listRuns, runListQuery } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { ruleText } from "@/lib/analyze";
import { healthOf } from "@/lib/view/health";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const DIR = "tests/fixtures/examples";
const answers = JSON.parse(fs.readFileSync(path.join(DIR, "answers.json"), "utf8")) as Record<string, Array<{ rule: string; seq: number }>>;
const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".jsonl"));
const runOf = (file: string) => (JSON.parse(fs.readFileSync(path.join(DIR, file), "utf8").split("\n")[0]) as { run: string }).run;

// docs/journal-format.md, "Analysis rules": the rules of severity error
const ERROR_RULES = new Set([
  "journal.chain",
  "approval.missing",
  "approval.stale-state",
  "approval.denied",
  "loop.past-stop",
  "effect.retry-after-unknown",
  "effect.duplicate",
  "state.hash-mismatch",
  "secret.exposed",
]);
const runsWhere = (pred: (findings: Array<{ rule: string }>) => boolean) =>
  files
    .filter((f) => pred(answers[f] ?? []))
    .map(runOf)
    .sort();

describe.each(DIALECTS)("runs list by findings on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    const text = files.map((f) => fs.readFileSync(path.join(DIR, f), "utf8").trimEnd() + "\n").join("");
    const r = await ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
    expect(r.runs).toHaveLength(files.length);
  });
  afterAll(async () => t.cleanup());

  const ids = async (q: Record<string, string>) =>
    (await listRuns(db, runListQuery.parse({ limit: "500", ...q }), "all")).runs.map((r) => r.id).sort();

  it("?rule= lists exactly the runs with a finding of that rule", async () => {
    expect(await ids({ rule: "effect.retry-after-unknown" })).toEqual(["demo-booking-2781"]);
    expect(await ids({ rule: "secret.exposed" })).toEqual(runsWhere((fs) => fs.some((f) => f.rule === "secret.exposed")));
    expect(await ids({ rule: "approval.denied" })).toEqual([]);
    // a rule and another filter together
    expect(await ids({ rule: "retrieval.stale", workflow: "nope" })).toEqual([]);
  });

  it("?severity= and ?findings=1 list the runs with such findings", async () => {
    const withErrors = runsWhere((fs) => fs.some((f) => ERROR_RULES.has(f.rule)));
    const withWarnings = runsWhere((fs) => fs.some((f) => !ERROR_RULES.has(f.rule)));
    expect(withErrors.length).toBeGreaterThan(3);
    expect(await ids({ severity: "error" })).toEqual(withErrors);
    expect(await ids({ severity: "warning" })).toEqual(withWarnings);
    expect(await ids({ findings: "1" })).toEqual(runsWhere((fs) => fs.length > 0));
    expect((await ids({ findings: "1" })).length).toBe(15);
    expect(() => runListQuery.parse({ severity: "fatal" })).toThrow();
  });

  it("the search matches rule ids, finding messages and the rules' plain titles", async () => {
    expect(await ids({ q: "retry-after" })).toEqual(["demo-booking-2781"]);
    // 14's message: "retries write call … (seq 30, outcome timeout, never reconciled) …"
    expect(await ids({ q: "outcome TIMEOUT" })).toEqual(["demo-booking-2781"]);
    // the plain title of effect.retry-after-unknown
    expect(await ids({ q: "issued twice" })).toEqual(["demo-booking-2781"]);
    // literal: an underscore is no wildcard in a finding's text either
    expect(await ids({ q: "retry_after" })).toEqual([]);
  });

  it("each run carries its error findings, and its health reads them with the status", async () => {
    const { runs } = await listRuns(db, runListQuery.parse({ limit: "500" }), "all");
    const byId = new Map(runs.map((r) => [r.id, r]));
    for (const f of files) {
      const expected = (answers[f] ?? []).filter((a) => ERROR_RULES.has(a.rule)).length;
      expect(byId.get(runOf(f))?.errorFindings, f).toBe(expected);
      expect(byId.get(runOf(f))?.findingCount, f).toBe((answers[f] ?? []).length);
    }
    // every example ends "succeeded": the one with an error finding is not green
    const retry = byId.get("demo-booking-2781")!;
    expect(retry.status).toBe("succeeded");
    // its chip names its one error finding by the run page's title; its timed-out call is a failed event
    expect(retry.topRule).toBe("effect.retry-after-unknown");
    expect(healthOf(retry)).toMatchObject({
      tone: "bad",
      label: `succeeded · ${ruleText("effect.retry-after-unknown").title}`,
      detail: "1 error finding, 1 failed event",
      worst: "error",
    });
    const warned = byId.get("demo-refund-0102")!;
    expect(healthOf(warned)).toMatchObject({ tone: "warn", label: `succeeded · ${ruleText(warned.topRule!).title}` });
    expect(healthOf(byId.get("demo-refund-4185")!)).toMatchObject({ tone: "good", label: "succeeded", healthy: true });
    expect(await getRun(db, "demo-booking-2781")).toMatchObject({ errorFindings: 1, findingCount: 1 });
  });
});
