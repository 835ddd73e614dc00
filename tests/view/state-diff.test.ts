import { describe, expect, it } from "vitest";
import { diffLineText, jsonDiff as stateDiff } from "@/lib/compare/json-diff";

// The inspector's state pane diffs states with the one jsondiffpatch wrapper (lib/compare/json-diff.ts).
describe("state diff as text", () => {
  it("lists additions, removals and replacements as JSON Patch paths", () => {
    const lines = stateDiff({ status: "triage", order: null, n: 1 }, { status: "refund", order: { id: "A-1" }, extra: true });
    const text = lines.map(diffLineText);
    expect(text).toContain('~ /status: "triage" → "refund"');
    expect(text).toContain('~ /order: null → {"id":"A-1"}');
    expect(text).toContain("- /n: 1");
    expect(text).toContain("+ /extra: true");
  });

  it("is empty for equal states and cuts long values", () => {
    expect(stateDiff({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
    const [line] = stateDiff({}, { big: "y".repeat(10_000) }, 50);
    expect(line.value!.length).toBeLessThan(120);
    expect(line.value).toMatch(/more characters/);
  });

  it("keeps markup in values as text", () => {
    const [line] = stateDiff({}, { html: "<img src=x onerror=alert(1)>" });
    expect(diffLineText(line)).toBe('+ /html: "<img src=x onerror=alert(1)>"');
  });
});
