/**
 * Rows of the side-by-side list, from the real replay engine: a frame the replay inserts
 * has no recorded cell, so the two columns stay aligned; labels are plain text.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJournalText } from "../../lib/journal/reader";
import { createReplay } from "../../lib/replay";
import { buildRows, labelOf } from "../../components/replay/frame-rows";

const load = async (file: string) =>
  (await readJournalText(readFileSync(path.resolve(__dirname, "../fixtures/examples", file), "utf8"))).events;

describe("buildRows", () => {
  it("a maxSteps fork: the inserted stop has no recorded cell, the step it stops is stale", async () => {
    const rows = buildRows(createReplay(await load("02-codefix-clean.jsonl"), { fork: { seq: 0, override: { policy: { maxSteps: 2 } } } }));
    const at29 = rows.filter((r) => r.seq === 29);
    expect(at29.map((r) => [r.type, r.provenance, r.recorded?.type ?? null, r.simulated])).toEqual([
      ["decision", "simulated", null, true],
      ["step.start", "stale", "step.start", false],
    ]);
    expect(at29[0].label).toBe("stop: policy.maxSteps reached (what-if fork)");
  });

  it("a reconstruct: write calls blocked, their results substituted, tool kinds by effect", async () => {
    const rows = buildRows(createReplay(await load("00-refund-clean.jsonl")));
    const call = rows.find((r) => r.seq === 18)!;
    expect(call).toMatchObject({
      type: "tool.call",
      label: "issue_refund (write)",
      kind: "tool-write",
      provenance: "blocked",
      simulated: false,
    });
    expect(rows.find((r) => r.seq === 19)).toMatchObject({ kind: "tool-write", substituted: true, provenance: "recorded" });
    expect(rows.every((r) => r.recorded !== null)).toBe(true);
  });

  it("labels say what an event is about, as text", () => {
    expect(labelOf({ type: "model.response", data: { output: { toolCalls: [{ name: "<b>x</b>" }] } } })).toBe("→ <b>x</b>");
    expect(labelOf({ type: "state", data: { patch: [{}, {}] } })).toBe("patch, 2 ops");
    expect(labelOf({ type: "approval.decision", data: { approval: "ap_1", decision: "denied" } })).toBe("ap_1 denied");
  });
});
