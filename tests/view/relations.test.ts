/**
 * Related events both ways: the demo agent's blind retry (recorded for real) is found by
 * the analyzer at the retrying call; the relation reads it back from the finding, so the
 * earlier call's pane can say "retried by" and the graph can draw the edge.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { buildStepGraph } from "@/lib/graph";
import type { JournalEvent } from "@/lib/journal/types";
import type { FindingItem } from "@/lib/view/api-types";
import { relatedAt, relationsOf } from "@/lib/view/relations";
import { runScenarios } from "@/scripts/demo-agent/scenarios";
import { indexOf } from "../graph/helpers";

const tmp = mkdtempSync(join(tmpdir(), "retrace-relations-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("relations from findings", () => {
  let events: JournalEvent[];
  let findings: FindingItem[];
  let first: JournalEvent;
  let retry: JournalEvent;

  beforeAll(async () => {
    await runScenarios({ outDir: tmp, dbDir: join(tmp, "banks"), fixedClock: true, scenarios: ["refund-retry-no-idempotency"] });
    events = readFileSync(join(tmp, "refund-retry-no-idempotency.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JournalEvent);
    findings = analyzeEvents(events).map((f) => ({ rule: f.rule, seq: f.seq, severity: f.severity, message: f.message }));
    // the scenario calls issue_refund, it times out, and it calls issue_refund again
    [first, retry] = events.filter((e) => e.type === "tool.call" && e.data.tool === "issue_refund");
  });

  it("the retried call and its retry, each seeing the other", () => {
    expect(relationsOf(findings)).toEqual([{ kind: "retry", earlier: first.seq, later: retry.seq }]);
    expect(relatedAt(relationsOf(findings), first.seq)).toMatchObject({ retriedBy: [retry.seq], retries: [] });
    expect(relatedAt(relationsOf(findings), retry.seq)).toMatchObject({ retriedBy: [], retries: [first.seq] });
  });

  it("a duplicate is a relation of its own kind; other findings relate nothing", () => {
    const found: FindingItem[] = [
      {
        rule: "effect.duplicate",
        seq: 40,
        severity: "error",
        message: 'repeats write call "c1" (seq 12) to "pay" with the same arguments',
      },
      { rule: "retrieval.stale", seq: 7, severity: "warning", message: "document (seq 3) is old" },
    ];
    expect(relationsOf(found)).toEqual([{ kind: "duplicate", earlier: 12, later: 40 }]);
  });

  it("the graph draws the retry as an edge from the earlier call to the later", () => {
    const index = indexOf(events);
    const g = buildStepGraph(index, { collapsed: () => false, relations: relationsOf(findings) });
    expect(g.edges.filter((e) => e.kind === "retry")).toEqual([
      { id: `retry:e${first.seq}->e${retry.seq}`, source: `e${first.seq}`, target: `e${retry.seq}`, kind: "retry" },
    ]);
    // collapsed into one step node, the two calls are one node: no edge to itself
    const collapsed = buildStepGraph(index, { collapsed: () => true, relations: relationsOf(findings) });
    expect(collapsed.edges.filter((e) => e.kind === "retry")).toEqual([]);
  });
});
