/** The versions two runs ran with: the prompt change a comparison is usually about. */
import { describe, expect, it } from "vitest";
import { compareVersions } from "../../lib/compare";

const start = (prompt: string, model: string, maxSteps: number) => ({
  workflow: { name: "support-refund", version: "2026.11.12" },
  agent: { name: "agent", version: "1.0.0" },
  versions: { prompts: { system: prompt }, policies: { default: "v4" }, tools: { issue_refund: "1.1.0" }, models: { planner: model } },
  environment: "production",
  policy: { requireApproval: ["issue_refund"], maxSteps },
});

describe("compareVersions", () => {
  it("lists every named version and marks the ones that differ", () => {
    const rows = compareVersions(start("v3", "gemini-2.5-pro", 6), start("v4", "gemini-2.5-pro", 4));
    expect(rows.filter((r) => r.differs).map((r) => `${r.group}/${r.name}: ${r.a} → ${r.b}`)).toEqual([
      "prompts/system: v3 → v4",
      "policy/maxSteps: 6 → 4",
    ]);
    expect(rows.find((r) => r.group === "policy" && r.name === "requireApproval")).toMatchObject({ a: "issue_refund", differs: false });
    expect(rows[0]).toEqual({
      group: "workflow",
      name: "workflow",
      a: "support-refund@2026.11.12",
      b: "support-refund@2026.11.12",
      differs: false,
    });
  });

  it("shows a version only one run names as missing in the other", () => {
    const b = start("v3", "m", 6);
    (b.versions.tools as Record<string, string>).send_email = "2.0.0";
    expect(compareVersions(start("v3", "m", 6), b).find((r) => r.name === "send_email")).toEqual({
      group: "tools",
      name: "send_email",
      a: null,
      b: "2.0.0",
      differs: true,
    });
  });

  it("copes with a run.start without versions (a trace)", () => {
    expect(compareVersions({}, null).every((r) => !r.differs)).toBe(true);
  });
});
