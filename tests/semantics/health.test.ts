import { describe, expect, it } from "vitest";
import { healthCounts, plural, runHealth, severityTone, topFinding } from "@/lib/semantics/health";

describe("run health: one verdict over status, failed events and findings", () => {
  it("a failed run with no findings is bad, and says it failed without naming a finding", () => {
    const h = runHealth({ status: "failed", findingCount: 0, errorFindings: 0, failedEvents: 1 });
    expect(h.tone).toBe("bad");
    expect(h.healthy).toBe(false);
    expect(h.label).toBe("failed · 1 failed event");
    expect(h.detail).toBe("1 failed event");
    // even when the counter found no failed event (an imported run with only a status)
    expect(runHealth({ status: "failed", findingCount: 0, errorFindings: 0 })).toMatchObject({
      tone: "bad",
      healthy: false,
      label: "failed",
    });
  });

  it("a run that succeeded with 18 failed tool results and no findings is never green", () => {
    const h = runHealth({ status: "succeeded", findingCount: 0, errorFindings: 0, failedEvents: 18 });
    expect(h.tone).toBe("bad");
    expect(h.healthy).toBe(false);
    expect(h.label).toBe("succeeded · 18 failed events");
  });

  it("names the top finding in words, with how many more of that severity", () => {
    const h = runHealth({
      status: "succeeded",
      findingCount: 3,
      errorFindings: 2,
      topFinding: "A payment was sent twice",
    });
    expect(h).toMatchObject({ tone: "bad", worst: "error", errors: 2, warnings: 1, healthy: false });
    expect(h.label).toBe("succeeded · A payment was sent twice (+1)");
    expect(h.detail).toBe("2 error findings, 1 warning");
    expect(runHealth({ status: "succeeded", findingCount: 1, errorFindings: 0, topFinding: "Stale document" })).toMatchObject({
      tone: "warn",
      label: "succeeded · Stale document",
    });
    // an error finding outranks failed events in the chip; the tooltip counts both, each by its name
    const both = runHealth({ status: "failed", findingCount: 2, errorFindings: 2, failedEvents: 1, topFinding: "X" });
    expect(both.label).toBe("failed · X (+1)");
    expect(both.detail).toBe("2 error findings, 1 failed event");
    // failed events outrank warnings
    expect(runHealth({ status: "succeeded", findingCount: 1, errorFindings: 0, failedEvents: 2, topFinding: "W" })).toMatchObject({
      tone: "bad",
      label: "succeeded · 2 failed events",
    });
  });

  it("a clean succeeded run is the only healthy one", () => {
    expect(runHealth({ status: "succeeded", findingCount: 0, errorFindings: 0, failedEvents: 0 })).toMatchObject({
      tone: "good",
      healthy: true,
      label: "succeeded",
      detail: "",
      worst: null,
    });
    expect(runHealth({ status: "running", live: true, findingCount: 0, errorFindings: 0 })).toMatchObject({ tone: "live", healthy: false });
    expect(runHealth({ status: "running", live: true, findingCount: 1, errorFindings: 1 }).tone).toBe("bad");
    expect(runHealth({ status: "cancelled", findingCount: 0, errorFindings: 0 }).tone).toBe("warn");
    expect(runHealth({ status: "incomplete", findingCount: 0, errorFindings: 0 }).tone).toBe("neutral");
  });

  it("the top finding is the first error by seq, else the first warning", () => {
    const w = { severity: "warning", seq: 1, rule: "b" };
    const e2 = { severity: "error", seq: 7, rule: "z" };
    const e1 = { severity: "error", seq: 7, rule: "a" };
    expect(topFinding([w, e2, e1])).toBe(e1);
    expect(topFinding([w])).toBe(w);
    expect(topFinding([])).toBeNull();
  });

  it("badges by severity, plurals by count", () => {
    expect(severityTone("error")).toBe("bad");
    expect(severityTone("warning")).toBe("warn");
    expect(severityTone(null)).toBe("neutral");
    expect(plural(1, "finding")).toBe("1 finding");
    expect(plural(0, "finding")).toBe("0 findings");
    expect(plural(1200, "failed event")).toBe("1,200 failed events");
    expect(plural(2, "entry", "entries")).toBe("2 entries");
    expect(healthCounts(1, 0, 0)).toBe("1 error finding");
  });
});
